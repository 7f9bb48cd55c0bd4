// Keyword and hybrid search with accents aside, in both tiers: a plain spelling finds the accented word and the
// accented spelling finds the plain word, whatever their stems (the index stems runs of ASCII letters only).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { HomeMemory } from "../../src/app/open-memory.ts";
import { openTemp, removeTempHomes } from "../fixture/home.ts";

afterAll(removeTempHomes);

describe("search with accents aside", () => {
  let api: HomeMemory;
  beforeAll(async () => {
    api = openTemp({ drain: "off", env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" } }).api;
    const pad = " filler".repeat(80);
    api.add("old", [
      { role: "user", content: `Please attach your Résumé to the application${pad}` },
      { role: "assistant", content: `That is a naïve plan, said André${pad}` },
      { role: "user", content: `send me your resume as a PDF${pad}` },
      { role: "assistant", content: `noted${pad}` },
    ]);
    for (let i = 0; i < 12; i++) api.add("old", { role: i % 2 ? "assistant" : "user", content: `padding ${i}${pad}` });
    api.add("new", [
      { role: "user", content: "the école normale sent a résumé" },
      { role: "assistant", content: "a naive approach, Andre thinks" },
    ]);
    await api.drainEmbeddings();
  });
  afterAll(() => api.close());

  const found = async (query: string, session: string, match: "keyword" | "hybrid") =>
    (await api.search({ query, session, match })).hits.map((h) => h.message.content.split(" filler")[0]);

  test("a plain spelling finds the accented word, archived or recent, in keyword and hybrid modes", async () => {
    const [archived] = (await api.search({ query: "application", session: "old" })).hits;
    expect(archived!.source).toBe("archive");
    for (const match of ["keyword", "hybrid"] as const) {
      expect(await found("resume", "old", match)).toContain("Please attach your Résumé to the application");
      expect(await found("naive", "old", match)).toContain("That is a naïve plan, said André");
      expect(await found("andre", "old", match)).toContain("That is a naïve plan, said André");
      expect(await found("ecole", "new", match)).toContain("the école normale sent a résumé");
      expect(await found("resume", "new", match)).toContain("the école normale sent a résumé");
    }
  });

  test("an accented spelling finds the plain word, and the accented word itself in hybrid mode too", async () => {
    for (const match of ["keyword", "hybrid"] as const) {
      expect(await found("résumé", "old", match)).toContain("send me your resume as a PDF");
      expect(await found("résumé", "old", match)).toContain("Please attach your Résumé to the application");
      expect(await found("naïve", "new", match)).toContain("a naive approach, Andre thinks");
      expect(await found("André", "new", match)).toContain("a naive approach, Andre thinks");
    }
  });

  test("the matched word is highlighted", async () => {
    const hit = (await api.search({ query: "résumé", session: "old" })).hits.find((h) =>
      h.message.content.startsWith("send me"),
    )!;
    expect(hit.highlights.map(([s, e]) => hit.snippet.slice(s, e))).toEqual(["resume"]);
    const [plain] = (await api.search({ query: "naive", session: "old" })).hits;
    expect(plain!.highlights.map(([s, e]) => plain!.snippet.slice(s, e))).toEqual(["naïve"]);
  });

  test("a word with no accented form in the index searches as before", async () => {
    expect(await found("application", "old", "keyword")).toEqual(["Please attach your Résumé to the application"]);
    expect(await found("xylophone", "old", "keyword")).toEqual([]);
  });
});

describe("search in Greek and Russian with accents or ё aside", () => {
  let api: HomeMemory;
  beforeAll(async () => {
    api = openTemp({ drain: "off", env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" } }).api;
    const pad = " filler".repeat(80);
    api.add("old", [
      { role: "user", content: `Μιλάω Ελληνικά καλά${pad}` },
      { role: "assistant", content: `новогодняя ёлка стоит в зале${pad}` },
      { role: "user", content: `η πολη ειναι ομορφη${pad}` },
      { role: "assistant", content: `зеленая елка у окна${pad}` },
    ]);
    for (let i = 0; i < 12; i++) api.add("old", { role: i % 2 ? "assistant" : "user", content: `padding ${i}${pad}` });
    api.add("new", [
      { role: "user", content: "Μιλάω Ελληνικά καλά" },
      { role: "assistant", content: "новогодняя ёлка стоит в зале" },
    ]);
    await api.drainEmbeddings();
  });
  afterAll(() => api.close());

  const found = async (query: string, session: string, match: "keyword" | "hybrid") =>
    (await api.search({ query, session, match })).hits.map((h) => h.message.content.split(" filler")[0]);

  test("a word typed without its accent or ё finds it, archived or recent, in keyword and hybrid modes", async () => {
    const [archived] = (await api.search({ query: "новогодняя", session: "old" })).hits;
    expect(archived!.source).toBe("archive");
    for (const match of ["keyword", "hybrid"] as const)
      for (const session of ["old", "new"]) {
        expect(await found("ελληνικα", session, match)).toContain("Μιλάω Ελληνικά καλά");
        expect(await found("ΕΛΛΗΝΙΚΑ", session, match)).toContain("Μιλάω Ελληνικά καλά");
        expect(await found("μιλαω", session, match)).toContain("Μιλάω Ελληνικά καλά");
        expect(await found("елка", session, match)).toContain("новогодняя ёлка стоит в зале");
      }
  });

  test("a word typed with its accent or ё finds the word written without", async () => {
    for (const match of ["keyword", "hybrid"] as const) {
      expect(await found("πόλη", "old", match)).toEqual(["η πολη ειναι ομορφη"]);
      expect(await found("ёлка", "old", match)).toEqual(
        expect.arrayContaining(["новогодняя ёлка стоит в зале", "зеленая елка у окна"]),
      );
    }
  });

  test("й is a letter of its own, not и with an accent", async () => {
    api.add("letters", [{ role: "user", content: "мои ключи" }]);
    expect(await found("мой", "letters", "keyword")).toEqual([]);
  });

  test("the matched word is highlighted", async () => {
    const [hit] = (await api.search({ query: "елка", session: "new" })).hits;
    expect(hit!.highlights.map(([s, e]) => hit!.snippet.slice(s, e))).toEqual(["ёлка"]);
  });
});

describe("an accented spelling scores as the word itself among recent messages", () => {
  let api: HomeMemory;
  beforeAll(() => {
    api = openTemp({ drain: "off" }).api;
    const said = ["a naive bayes classifier", "the naive approach is slow", "naive datetimes lack tzinfo", "so naive"];
    for (let i = 0; i < 40; i++)
      api.add("s", { role: "user", content: i === 20 ? "This naïve café plan" : `${said[i % 4]} #${i}` });
    api.add("s", { role: "user", content: "Cafe opening hours are posted" });
  });
  afterAll(() => api.close());

  const scores = async (query: string, limit = 50) =>
    new Map((await api.search({ query, limit })).hits.map((h) => [h.message.content, h.score] as const));

  test("naive finds naïve at a verbatim match's score, and naïve ranks the word as typed first", async () => {
    const plain = await scores("naive");
    const verbatim = plain.get("so naive #39")!;
    expect(plain.get("This naïve café plan")!).toBeGreaterThan(verbatim - 0.01);
    expect(plain.get("This naïve café plan")!).toBeLessThan(verbatim);
    const [first, second] = (await api.search({ query: "naïve" })).hits;
    expect(first!.message.content).toBe("This naïve café plan");
    expect(second!.score).toBeGreaterThan(first!.score - 0.01);
  });

  test("a word whose plain spelling the index holds alike (cafe, café) scores alike too", async () => {
    const plain = await scores("cafe");
    expect(plain.get("This naïve café plan")!).toBeGreaterThan(plain.get("Cafe opening hours are posted")! - 0.01);
    const accented = await scores("café");
    expect(accented.get("Cafe opening hours are posted")!).toBeGreaterThan(
      accented.get("This naïve café plan")! - 0.01,
    );
  });
});

describe("German ß and ss spell one word", () => {
  let api: HomeMemory;
  beforeAll(async () => {
    api = openTemp({ drain: "off", env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" } }).api;
    const pad = " filler".repeat(80);
    const said = ["Die Straße ist gesperrt", "In Zürich schreibt man Strasse", "GROSSE Probleme heute"];
    api.add("old", [...said.map((content) => ({ role: "user" as const, content: `${content}${pad}` }))]);
    for (let i = 0; i < 12; i++) api.add("old", { role: i % 2 ? "assistant" : "user", content: `padding ${i}${pad}` });
    api.add(
      "new",
      said.map((content) => ({ role: "user" as const, content })),
    );
    await api.drainEmbeddings();
  });
  afterAll(() => api.close());

  const found = async (query: string, session: string, match: "keyword" | "hybrid") =>
    (await api.search({ query, session, match })).hits.map((h) => h.message.content.split(" filler")[0]);

  test("straße finds Strasse and STRASSE finds Straße, große finds GROSSE, archived or recent", async () => {
    const [archived] = (await api.search({ query: "gesperrt", session: "old" })).hits;
    expect(archived!.source).toBe("archive");
    for (const match of ["keyword", "hybrid"] as const)
      for (const session of ["old", "new"]) {
        for (const query of ["straße", "Strasse", "STRASSE"])
          expect(await found(query, session, match)).toEqual(
            expect.arrayContaining(["Die Straße ist gesperrt", "In Zürich schreibt man Strasse"]),
          );
        expect(await found("große", session, match)).toContain("GROSSE Probleme heute");
      }
  });

  test("the other spelling scores as the word itself, just below the one typed", async () => {
    const [first, second] = (await api.search({ query: "straße", session: "new" })).hits;
    expect(first!.message.content).toBe("Die Straße ist gesperrt");
    expect(second!.message.content).toBe("In Zürich schreibt man Strasse");
    expect(second!.score).toBeGreaterThan(first!.score - 0.01);
    expect(second!.highlights.map(([s, e]) => second!.snippet.slice(s, e))).toEqual(["Strasse"]);
  });
});
