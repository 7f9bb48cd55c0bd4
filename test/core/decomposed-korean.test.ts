// Korean stored in decomposed jamo (NFD, as text copied from macOS holds it) is found by a Korean query typed
// normally (NFC), in keyword and hybrid modes, archived or recent, with the matched word highlighted.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { HomeMemory } from "../../src/app/open-memory.ts";
import { openTemp, removeTempHomes } from "../fixture/home.ts";

afterAll(removeTempHomes);

const nfd = (s: string) => s.normalize("NFD");

describe("Korean in decomposed jamo", () => {
  let api: HomeMemory;
  beforeAll(async () => {
    api = openTemp({ drain: "off", env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" } }).api;
    const pad = " filler".repeat(80);
    api.add("old", [
      { role: "user", content: nfd(`한국어 회의록을 정리했다${pad}`) },
      { role: "assistant", content: nfd(`서울에서 만나요${pad}`) },
    ]);
    for (let i = 0; i < 12; i++) api.add("old", { role: "user", content: `padding ${i}${pad}` });
    api.add("new", [
      { role: "user", content: nfd("한국어 회의록을 정리했다") },
      { role: "assistant", content: "회의록 원문" },
    ]);
    await api.drainEmbeddings();
  });
  afterAll(() => api.close());

  const found = async (query: string, session: string, match: "keyword" | "hybrid") =>
    (await api.search({ query, session, match })).hits.map((h) =>
      h.message.content.split(" filler")[0]!.normalize("NFC"),
    );

  test("a word, or the start of one a particle follows, is found archived or recent, in keyword and hybrid modes", async () => {
    const [archived] = (await api.search({ query: "회의록", session: "old" })).hits;
    expect(archived!.source).toBe("archive");
    for (const match of ["keyword", "hybrid"] as const) {
      for (const session of ["old", "new"]) {
        expect(await found("한국어", session, match)).toContain("한국어 회의록을 정리했다");
        expect(await found("회의록", session, match)).toContain("한국어 회의록을 정리했다");
        expect(await found("회의록 정리", session, match)).toContain("한국어 회의록을 정리했다");
      }
      expect(await found("서울", "old", match)).toEqual(["서울에서 만나요"]);
      expect(await found("회의록", "new", match)).toContain("회의록 원문");
      expect(await found("서울", "new", match)).toEqual([]);
    }
  });

  test("the matched word is highlighted", async () => {
    for (const match of ["keyword", "hybrid"] as const) {
      const hit = (await api.search({ query: "회의록", session: "old", match })).hits[0]!;
      expect(hit.highlights.map(([s, e]) => hit.snippet.slice(s, e).normalize("NFC"))[0]).toStartWith("회의록");
    }
  });
});
