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
      const queries = [
        "node_modules deploy",
        "react_dom server",
        "x86_64 build logs",
        "deploy server_logs",
        "node_modules",
      ];
      const run = async (perRow: number) => {
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
      const counted = await run(0); // no phrase is looked up: each row's text is tokenized
      expect(counted.filter((r) => (r as { hits: unknown[] }).hits.length === 0)).toEqual([]);
      expect(await run(PHRASE_LOOKUP.perRow)).toEqual(counted);
      expect(await run(1e9)).toEqual(counted);
    } finally {
      api.close();
    }
  });
});
