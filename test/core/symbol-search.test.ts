// Punctuation and symbols are searchable in both tiers, and a query with symbols needs them verbatim.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { HomeMemory } from "../../src/app/open-memory.ts";
import { querySymbols } from "../../src/search/symbols.ts";
import { NS_PER_DAY } from "../../src/shared/time.ts";
import { openTemp, removeTempHomes } from "../fixture/home.ts";

afterAll(removeTempHomes);

const NOW = 1_790_000_000_000_000_000n;
const daysAgo = (d: number) => NOW - BigInt(d) * NS_PER_DAY;

/** Query, and the text a message holding it says (archived: "old …", recent: "new …"). */
const CASES: [string, string][] = [
  ["<", "compare with a < b before the loop"],
  ["&&", "run make && make install in the build dir"],
  ["->", "the pointer p->next was null"],
  ["::", "call std::vector reserve first"],
  ["#123", "this is tracked in issue #123 upstream"],
  ["C++", "the C++ compiler rejected the template"],
  [".env", "put the token in .env and reload"],
  ["___", "a ___ separator line"],
  ["_", "set max_len to 10"],
];

describe("symbol search", () => {
  let api: HomeMemory;
  beforeAll(async () => {
    // A small history.json: the first messages are compacted into the archive, the last ones stay recent.
    api = openTemp({ env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "6000" }, now: () => NOW, drain: "off" }).api;
    const pad = " filler".repeat(60);
    let day = 300;
    for (const [, text] of CASES) api.add("s", { role: "user", content: `old ${text}${pad}`, sendAt: daysAgo(day--) });
    api.add("s", { role: "user", content: `plain words about c and d and make install${pad}`, sendAt: daysAgo(day--) });
    for (let i = 0; i < 20; i++)
      api.add("s", { role: "assistant", content: `padding message ${i}${pad}`, sendAt: daysAgo(day--) });
    for (const [, text] of CASES) api.add("s", { role: "user", content: `new ${text}`, sendAt: daysAgo(day--) });
    api.add("s", { role: "user", content: "so c > d holds here", sendAt: daysAgo(day--) });
    api.add("s", { role: "user", content: "c and d are letters", sendAt: daysAgo(day--) });
    await api.drainEmbeddings();
  }, 60_000);
  afterAll(() => api.close());

  for (const [query, text] of CASES) {
    test(`${JSON.stringify(query)} finds its message in the archive and in the recent tier`, async () => {
      for (const match of ["keyword", "hybrid"] as const) {
        for (const session of ["s", undefined]) {
          const r = await api.search({ query, session, match, limit: 20 });
          const found = (tier: string, start: string) =>
            r.hits.some((h) => h.message.recent === (tier === "recent") && h.message.content.startsWith(start));
          expect(found("archive", `old ${text}`)).toBe(true);
          expect(found("recent", `new ${text}`)).toBe(true);
          for (const h of r.hits) expect(h.message.content.toLowerCase()).toContain(query.toLowerCase());
        }
      }
    }, 30_000);
  }

  test("a query with symbols needs them verbatim, whitespace normalised", async () => {
    for (const match of ["keyword", "hybrid"] as const) {
      for (const session of ["s", undefined]) {
        const r = await api.search({ query: "c > d", session, match });
        expect(r.hits.map((h) => h.message.content)).toEqual(["so c > d holds here"]);
        const spaced = await api.search({ query: "c   >  d", session, match });
        expect(spaced.hits.map((h) => h.message.content)).toEqual(["so c > d holds here"]);
      }
    }
  }, 30_000);

  test("no hit because no message holds a symbol piece as written: the reason names the piece, in every mode", async () => {
    // A message holds the error's words, not the path pasted from another machine.
    const query = "the C++ compiler rejected /home/me/proj/src/tpl.hpp";
    for (const match of ["keyword", "semantic", "hybrid"] as const) {
      const r = await api.search({ query, match });
      expect({ match, hits: r.hits, why: r.emptyReason }).toEqual({
        match,
        hits: [],
        why: 'no message holds "/home/me/proj/src/tpl.hpp" as written (symbols, paths and code in a query match exactly)',
      });
    }
    // Held, but outside the time range: the filter is why, as before.
    const narrowed = await api.search({ query: "c > d", since: NOW - 1n });
    expect(narrowed.emptyReason).toBe("messages hold the query's terms, but none falls in the time range");
  }, 30_000);

  test("the symbol pieces of a query", () => {
    expect(querySymbols("c > d")).toEqual(["c > d"]);
    expect(querySymbols("fix the C++ build?")).toEqual(["c++"]);
    expect(querySymbols('what did "Becoming Nicole" say?')).toEqual([]);
    expect(querySymbols("see (#123).")).toEqual(["#123"]);
    expect(querySymbols("well-known")).toEqual([]);
    // Operands keep what they hold next to the operator: the piece is the query's own text.
    expect(querySymbols("see log. -> x")).toEqual(["log. -> x"]);
    expect(querySymbols("ß 🎉 [1]")).toEqual(["ß 🎉 [1"]);
    expect(querySymbols('"c > d"')).toEqual(["c > d"]);
    expect(querySymbols("“")).toEqual(["“"]);
  });
});

test("a query of symbol pieces ranks the rows holding all its words, however many newer rows hold one of them", async () => {
  const { api } = openTemp({ now: () => NOW, drain: "off" });
  try {
    // Five rows holding JSON.parse, the shorter the older; then 2,100 newer rows holding one of its words only (more
    // than a match window), each among nine rows of other words.
    const holding = Array.from({ length: 5 }, (_, i) => ({
      role: "user" as const,
      content: `call JSON.parse on the body${" and then more words".repeat(i * 4)}`,
      sendAt: daysAgo(40 - i),
    }));
    const newer = Array.from({ length: 21_000 }, (_, i) => ({
      role: "assistant" as const,
      content:
        i % 10 ? `weather report ${i} for the harbor` : (i / 10) % 2 ? `the json blob ${i}` : `parse the config ${i}`,
      sendAt: daysAgo(30) + BigInt(i) * 100_000_000n,
    }));
    api.add("s", [...holding, ...newer]);
    const hits = (await api.search({ query: "JSON.parse", limit: 10 })).hits;
    expect(hits.map((h) => h.message.content).sort()).toEqual(holding.map((m) => m.content).sort());
    // Ranked by their words, the shortest first, not by their age alone (as the symbol's own matches are).
    expect(hits[0]!.message.content).toBe(holding[0]!.content);
  } finally {
    api.close();
  }
}, 30_000);

test("a query of symbol pieces ranks the rows that hold the pieces, however many newer rows hold all its words", async () => {
  const { api } = openTemp({ now: () => NOW, drain: "off" });
  try {
    // Five rows holding module.exports, the shorter the older; then 2,100 newer rows holding both its words apart
    // (more than a match window), each among nine rows of other words.
    const holding = Array.from({ length: 5 }, (_, i) => ({
      role: "user" as const,
      content: `set module.exports here${" and then more words".repeat(i * 4)}`,
      sendAt: daysAgo(40 - i),
    }));
    const newer = Array.from({ length: 21_000 }, (_, i) => ({
      role: "assistant" as const,
      content: i % 10 ? `weather report ${i} for the harbor` : `the module ${i} exports a function`,
      sendAt: daysAgo(30) + BigInt(i) * 100_000_000n,
    }));
    api.add("s", [...holding, ...newer]);
    const hits = (await api.search({ query: "module.exports", limit: 10 })).hits;
    expect(hits.map((h) => h.message.content).sort()).toEqual(holding.map((m) => m.content).sort());
    // Ranked by their words, the shortest first, not by their age alone (as the symbol's own matches are).
    expect(hits[0]!.message.content).toBe(holding[0]!.content);
    expect(hits[0]!.score).toBeGreaterThan(hits[4]!.score);
  } finally {
    api.close();
  }
}, 30_000);

test("a hit of a symbol query shows and highlights the piece, however far into its message it is, in every mode", async () => {
  const { api } = openTemp({ now: () => NOW, drain: "off" });
  try {
    const lead = "lorem ipsum dolor sit amet ".repeat(40);
    api.add("s", {
      role: "user",
      content: `${lead}then run make && make install; the rocket 🚀 launched; C++ is fine; use foo::bar here`,
      sendAt: daysAgo(1),
    });
    await api.drainEmbeddings();
    for (const query of ["&&", "🚀", "C++", "::", "foo::bar", "make && make"])
      for (const match of ["keyword", "semantic", "hybrid"] as const) {
        const [hit] = (await api.search({ query, match })).hits;
        if (!hit) {
          // A semantic search may find nothing close for a symbol alone; keyword and hybrid always find it.
          expect(match).toBe("semantic");
          continue;
        }
        const shown = hit.highlights.map(([s, e]) => hit.snippet.slice(s, e));
        expect({ query, match, shown }).toEqual({ query, match, shown: [query] });
      }
  } finally {
    api.close();
  }
}, 30_000);

test("quotes and sentence punctuation of any script around a word, or between CJK words, are not looked for", async () => {
  // 4 KiB history.json: the first messages are compacted into the archive, the last ones stay recent.
  const { api } = openTemp({ env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" }, now: () => NOW, drain: "off" });
  try {
    let day = 300;
    const say = (content: string) => api.add("s", { role: "user", content, sendAt: daysAgo(day--) });
    const texts = ["我们明天讨论数据库迁移的问题", "The café serves crème brûlée", "هذا اختبار للبحث باللغة العربية"];
    for (const t of texts) say(`old ${t}`);
    for (let i = 0; i < 40; i++) say(`padding message ${i}${" filler".repeat(20)}`);
    for (const t of texts) say(`new ${t}`);
    await api.drainEmbeddings();
    const queries: [string, string][] = [
      ["「数据库」", texts[0]!],
      ["《数据库》", texts[0]!],
      ["数据库。", texts[0]!],
      ["数据库、", texts[0]!],
      // No space between words or clauses: the punctuation between them separates them.
      ["数据库，迁移？", texts[0]!],
      ["「数据库」迁移", texts[0]!],
      ["«crème brûlée»", texts[1]!],
      ["„brûlée“", texts[1]!],
      ["¿café?", texts[1]!],
      // Markdown emphasis is not a symbol either.
      ["**brûlée**", texts[1]!],
      ["العربية؟", texts[2]!],
    ];
    for (const [query, text] of queries) {
      expect({ query, pieces: querySymbols(query) }).toEqual({ query, pieces: [] });
      for (const match of ["keyword", "hybrid", "semantic"] as const) {
        const r = await api.search({ query, match, limit: 20 });
        const tiers = r.hits.filter((h) => h.message.content.endsWith(text)).map((h) => h.message.recent);
        // Semantic search covers the recent tier only.
        const want = match === "semantic" ? [true] : [false, true];
        expect({ query, match, tiers: [...new Set(tiers)].sort() }).toEqual({ query, match, tiers: want });
      }
    }
    // Nor is an abbreviation of letters and dots (its words are looked for, in both tiers).
    const query = "crème, i.e. brûlée";
    expect(querySymbols(query)).toEqual([]);
    for (const match of ["keyword", "hybrid"] as const) {
      const r = await api.search({ query, match, limit: 20 });
      const tiers = r.hits.filter((h) => h.message.content.endsWith(texts[1]!)).map((h) => h.message.recent);
      expect({ match, tiers: [...new Set(tiers)].sort() }).toEqual({ match, tiers: [false, true] });
    }
  } finally {
    api.close();
  }
}, 60_000);

test("an abbreviation searched alone (U.S.A., e.g.) finds the messages holding it, not every one with its letters", async () => {
  // 4 KiB history.json: the first messages are compacted into the archive, the last ones stay recent.
  const { api } = openTemp({ env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" }, now: () => NOW, drain: "off" });
  try {
    let day = 300;
    const say = (content: string) => api.add("s", { role: "user", content, sendAt: daysAgo(day--) });
    const texts = ["shipped to the U.S.A. last week", "use a cache, e.g. redis"];
    for (const t of texts) say(`old ${t}`);
    for (let i = 0; i < 40; i++) say(`padding message ${i} is used as a filler${" filler".repeat(20)}`);
    for (const t of texts) say(`new ${t}`);
    for (const [query, text] of [
      ["U.S.A.", texts[0]!],
      ["e.g.", texts[1]!],
    ] as const) {
      const r = await api.search({ query, match: "keyword", limit: 100 });
      const found = r.hits.map((h) => h.message.content).sort();
      expect({ query, found }).toEqual({ query, found: [`new ${text}`, `old ${text}`] });
    }
  } finally {
    api.close();
  }
}, 60_000);

test("a shorter page of a symbol query is the start of a longer one: archived rows holding the piece are not put below rows holding its words", async () => {
  // 4 KiB history.json: the first messages are compacted into the archive, the last ones stay recent.
  const { api } = openTemp({ env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" }, now: () => NOW, drain: "off" });
  try {
    const words = ["alpha", "beta", "gamma", "delta", "deploy", "server", "cache", "build", "docker", "node"];
    const text = (i: number, n: number) => Array.from({ length: n }, (_, k) => words[(i * 7 + k * 3) % words.length]);
    for (let i = 0; i < 200; i++) {
      const body = text(i, 2 + ((i * 7) % 29)).join(" ");
      const content = i % 5 === 0 ? `${body} see #42 ${text(i + 1, (i * 3) % 21).join(" ")}` : body;
      api.add("s", { role: "user", content, sendAt: daysAgo(400 - i) });
    }
    for (let i = 0; i < 40; i++)
      api.add("s", { role: "user", content: `padding message ${i}${" filler".repeat(20)}`, sendAt: daysAgo(150 - i) });
    const page = async (limit: number) =>
      (await api.search({ query: "#42", match: "keyword", limit })).hits.map((h) => h.message.content);
    const [short, long] = [await page(3), await page(10)];
    expect(short).toEqual(long.slice(0, 3));
    expect(short.every((c) => c.includes("#42"))).toBe(true);
  } finally {
    api.close();
  }
}, 60_000);

test("an emoji typed with its presentation selector (⚠️) finds it written without (⚠), archived or recent", async () => {
  const { api } = openTemp({ env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "6000" }, drain: "off" });
  try {
    const pad = " filler".repeat(60);
    const texts = ["⚠ warning: disk almost full", "⚠️ build failed on main", "I ❤️ this feature"];
    for (const t of texts) api.add("s", { role: "user", content: `old ${t}${pad}` });
    for (let i = 0; i < 20; i++) api.add("s", { role: "assistant", content: `padding message ${i}${pad}` });
    for (const t of texts) api.add("s", { role: "user", content: `new ${t}` });
    expect(querySymbols("⚠️")).toEqual(["⚠"]);
    // Inside a piece it stays: a text holding the piece holds it as typed.
    expect(querySymbols("I ❤️ this")).toEqual(["i ❤️ this"]);
    const found = async (query: string, match: "keyword" | "hybrid") =>
      (await api.search({ query, match, limit: 20 })).hits.map((h) => h.message.content.split(" filler")[0]);
    for (const match of ["keyword", "hybrid"] as const) {
      expect((await found("⚠️", match)).sort()).toEqual(
        [`new ${texts[0]}`, `new ${texts[1]}`, `old ${texts[0]}`, `old ${texts[1]}`].sort(),
      );
      expect((await found("I ❤️ this", match)).sort()).toEqual([`new ${texts[2]}`, `old ${texts[2]}`]);
    }
  } finally {
    api.close();
  }
}, 60_000);

test("characters a copied query carries unseen (zero-width space, soft hyphen, word joiner) are left out", async () => {
  const { api } = openTemp({ drain: "off" });
  try {
    api.add("s", [
      { role: "user", content: "the deploy of issue #123 failed" },
      { role: "assistant", content: "call std::vector reserve first" },
    ]);
    for (const [query, text] of [
      ["deploy\u200b", "the deploy of issue #123 failed"],
      ["\u200b#123", "the deploy of issue #123 failed"],
      ["de\u00adploy", "the deploy of issue #123 failed"],
      ["std::vec\u2060tor", "call std::vector reserve first"],
      ["\u200fdeploy", "the deploy of issue #123 failed"],
    ] as [string, string][])
      for (const match of ["keyword", "hybrid"] as const) {
        const r = await api.search({ query, match });
        // Hybrid also brings the hit's neighbour (conversation context).
        expect({ query, match, first: r.hits[0]?.message.content }).toEqual({ query, match, first: text });
        if (match === "keyword") expect(r.hits).toHaveLength(1);
      }
    expect(api.search({ query: "\u200b" })).rejects.toThrow("query");
  } finally {
    api.close();
  }
});
