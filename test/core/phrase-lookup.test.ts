import { afterAll, describe, expect, test } from "bun:test";
import { addTexts, openTemp, removeTempHomes } from "../fixture/home.ts";
import { PHRASE_LOOKUP } from "../../src/search/keyword.ts";
import { seededRandom } from "../fixture/seeded-random.ts";

afterAll(removeTempHomes);

const NOW = 1_790_000_000_000_000_000n;
const WORDS = [
  "node",
  "modules",
  "node_modules",
  "node modules",
  "react_dom",
  "react",
  "dom",
  "deploy",
  "server_logs",
  "server",
  "x86_64",
  "64",
  "build",
  "logs",
];
const JOINS = [" ", " ", " ", "-", "_", ".", "/"];

/** Pages of `queries` (all sessions and session "a") with phrases looked up when `perRow` allows. */
function pagesWith(api: ReturnType<typeof openTemp>["api"], queries: readonly string[]) {
  return async (perRow: number) => {
    const was = PHRASE_LOOKUP.perRow;
    PHRASE_LOOKUP.perRow = perRow;
    try {
      const out: unknown[] = [];
      for (const query of queries)
        for (const session of [undefined, "a"])
          out.push({
            query,
            session,
            hits: (await api.search({ query, session, limit: 50 })).hits.map((h) => [h.message.id, h.score]),
          });
      return out;
    } finally {
      PHRASE_LOOKUP.perRow = was;
    }
  };
}

describe("multi-token phrases looked up in the index", () => {
  test("rank every window as counting them in each row's text does", async () => {
    const { api } = openTemp({ now: () => NOW });
    try {
      const rnd = seededRandom(9);
      const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
      const contents = Array.from({ length: 800 }, () =>
        Array.from({ length: 2 + Math.floor(rnd() * 8) }, () => pick(WORDS))
          .map((w, k) => (k === 0 ? w : pick(JOINS) + w))
          .join(""),
      );
      addTexts(api, "a", contents, NOW);
      const run = pagesWith(api, [
        "node_modules deploy",
        "react_dom server",
        "x86_64 build logs",
        "deploy server_logs",
        "node_modules",
      ]);
      const counted = await run(0); // no phrase is looked up: each row's text is tokenized
      expect(counted.filter((r) => (r as { hits: unknown[] }).hits.length === 0)).toEqual([]);
      expect(await run(PHRASE_LOOKUP.perRow)).toEqual(counted);
      expect(await run(1e9)).toEqual(counted);
    } finally {
      api.close();
    }
  });

  // unicode61 keeps a Greek or Cyrillic letter's diacritics and splits at other scripts' marks, where the text
  // count folds them: a lookup in the index would drop rows the count finds.
  test("rank text beyond ASCII as the count does, whichever way is cheaper", async () => {
    const { api } = openTemp({ now: () => NOW });
    try {
      const rows = (n: number, text: string) => Array.from({ length: n }, () => text);
      addTexts(
        api,
        "a",
        [
          ...rows(30, "long talk Ελληνικά"),
          ...rows(30, "ελληνικα deploy widget"),
          ...rows(30, "time ёлка"),
          ...rows(30, "елка елка build"),
          ...rows(30, "deploy हिन्दी"),
          ...rows(300, "widget build time"),
        ],
        NOW,
      );
      // No row holds both words as the index reads them: the page is the any-term window's.
      const run = pagesWith(api, ["long ελληνικα", "time елка", "हिन्दी long"]);
      const counted = await run(0);
      expect(counted.filter((r) => (r as { hits: unknown[] }).hits.length === 0)).toEqual([]);
      expect(await run(1e9)).toEqual(counted);
    } finally {
      api.close();
    }
  });
});
