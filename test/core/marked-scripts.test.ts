// Words whose letters carry combining marks (Devanagari and Tamil vowel signs and viramas, Arabic and Hebrew vowel
// points) are whole words of a query: found in both tiers in keyword and hybrid modes, and highlighted whole. Thai
// words, with no spaces between them, are found inside their runs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { HomeMemory } from "../../src/app/open-memory.ts";
import { queryTerms } from "../../src/search/query-terms.ts";
import { querySymbols } from "../../src/search/symbols.ts";
import { openTemp, removeTempHomes } from "../fixture/home.ts";

afterAll(removeTempHomes);

const TEXTS = ["नमस्ते दुनिया, आज सर्वर बंद है", "வணக்கம் உலகம்", "مَرْحَبًا بِالعَالَم", "सरल वर्ष", "สวัสดีครับ เซิร์ฟเวอร์ล่ม"];

test("a word with marks is one query term, not a symbol piece", () => {
  expect(queryTerms("नमस्ते सर्वर").map((t) => t.text)).toEqual(["नमस्ते", "सर्वर"]);
  expect(queryTerms("வணக்கம்").map((t) => t.text)).toEqual(["வணக்கம்"]);
  expect(querySymbols("नमस्ते सर्वर")).toEqual([]);
});

describe("search in scripts with combining marks", () => {
  let api: HomeMemory;
  beforeAll(async () => {
    api = openTemp({ drain: "off", env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" } }).api;
    const pad = " filler".repeat(80);
    api.add(
      "old",
      TEXTS.map((t) => ({ role: "user" as const, content: `${t}${pad}` })),
    );
    for (let i = 0; i < 12; i++) api.add("old", { role: "assistant", content: `padding ${i}${pad}` });
    api.add(
      "new",
      TEXTS.map((t) => ({ role: "user" as const, content: t })),
    );
    await api.drainEmbeddings();
  });
  afterAll(() => api.close());

  for (const [query, text] of [
    ["नमस्ते", TEXTS[0]!],
    ["सर्वर", TEXTS[0]!],
    ["வணக்கம்", TEXTS[1]!],
    ["مَرْحَبًا", TEXTS[2]!],
  ] as const)
    test(`${query} finds its message, archived and recent, in keyword and hybrid modes, highlighted whole`, async () => {
      for (const session of ["old", "new"])
        for (const match of ["keyword", "hybrid"] as const) {
          const hits = (await api.search({ query, session, match })).hits;
          const hit = hits.find((h) => h.message.content.startsWith(text));
          expect({ session, match, found: hit !== undefined }).toEqual({ session, match, found: true });
          if (session === "old") expect(hit!.source).toBe("archive");
          const marked = hit!.highlights.map(([s, e]) => hit!.snippet.slice(s, e));
          expect({ session, match, marked }).toEqual({ session, match, marked: [query] });
          // सरल वर्ष holds the letters of सर्वर, not the word (hybrid may add it as a neighbour or by meaning).
          if (match === "keyword") expect(hits.some((h) => h.message.content.startsWith(TEXTS[3]!))).toBe(false);
        }
    });

  test("a Thai word, written without spaces around it, is found inside its run, archived and recent, in both modes", async () => {
    for (const query of ["สวัสดี", "เซิร์ฟเวอร์", "ครับ"])
      for (const session of ["old", "new"])
        for (const match of ["keyword", "hybrid"] as const) {
          const hits = (await api.search({ query, session, match })).hits;
          const found = hits.some((h) => h.message.content.startsWith(TEXTS[4]!));
          expect({ query, session, match, found }).toEqual({ query, session, match, found: true });
        }
  });

  test("a Thai word is found whatever its vowel and tone marks, which split the index's tokens, in every scope", async () => {
    // "ล่ม" ends a run after "เซิร์ฟเวอร์", "วัสดี" lies inside "สวัสดีครับ": neither starts an index token there.
    for (const query of ["ล่ม", "วัสดี", "เวอร์ล่ม"])
      for (const session of ["old", "new", undefined])
        for (const match of ["keyword", "hybrid"] as const) {
          const hits = (await api.search({ query, session, match })).hits.filter((h) =>
            h.message.content.startsWith(TEXTS[4]!),
          );
          const marked = hits.every((h) => h.highlights.some(([s, e]) => h.snippet.slice(s, e).includes(query)));
          expect({ query, session, match, found: hits.length, marked }).toEqual({
            query,
            session,
            match,
            found: session ? 1 : 2,
            marked: true,
          });
        }
  });
});
