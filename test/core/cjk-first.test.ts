// A query mixing two-character CJK words with others finds its recent substring matches from the word index's
// rows of the CJK words (exactly the rows holding them), checked for the others: the same page as the walk.
import { afterAll, describe, expect, test } from "bun:test";
import { spyStatements } from "../fixture/statement-spy.ts";
import { openTemp, removeTempHomes } from "../fixture/home.ts";
import { seededRandom } from "../fixture/seeded-random.ts";
import { CJK_FIRST } from "../../src/search/cjk-first.ts";

afterAll(removeTempHomes);

const NOW = 1_790_000_000_000_000_000n;
const MINUTE = 60_000_000_000n;

const LATIN = ["deploy", "Deploy", "deployed", "error", "ERRORS", "timeout", "server", "the", "redeploy", "errorlog"];
const CJK = ["東京", "ログ", "会議", "東京都", "ログイン", "数据库", "库", "東", "京"];
const BETWEEN = [" ", "", "、", "。", ", ", "-", "\n"];

describe("recent substring matches from the CJK words' rows", () => {
  test("the page is the walk's, and the walk is left alone where it is quick", async () => {
    // Windows of one CJK word alone (how this way reads its rows), on every connection.
    let cjkPasses = 0;
    const stop = spyStatements(
      (sql) => sql.includes("messages_fts MATCH") && sql.includes("CROSS JOIN messages"),
      (_sql, args) => {
        if (args.some((a) => typeof a === "string" && /^"(東京|ログ|会議)"$/.test(a))) cjkPasses++;
      },
    );
    const smallTier = CJK_FIRST.smallTier;
    try {
      const passes: number[] = [];
      for (const env of [{}, { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" }]) {
        cjkPasses = 0;
        // A one-shot process: the recent text is never held in memory (a long-lived one may scan that instead).
        const { api } = openTemp({ now: () => NOW, env, shortLived: true });
        try {
          const random = seededRandom(5);
          const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
          for (const session of ["a", "b", "c"])
            api.add(
              session,
              Array.from({ length: 500 }, (_, i) => {
                let content = "";
                for (let k = 2 + Math.floor(random() * 6); k > 0; k--)
                  content += (random() < 0.5 ? pick(LATIN) : pick(CJK)) + pick(BETWEEN);
                return { role: "user" as const, content, sendAt: NOW - BigInt(1500 - i * 3) * MINUTE };
              }),
            );
          const queries = [
            "deploy 東京",
            "error ログ",
            "server 東京 ログ",
            "東京 deploy timeout",
            "Error: ログ",
            "会議 redeploy",
          ];
          for (const tier of [0, smallTier]) {
            CJK_FIRST.smallTier = tier;
            for (const q of queries)
              for (const limit of [1, 10, 40])
                for (const range of [undefined, "30d"] as const) {
                  const page = async (on: boolean) => {
                    CJK_FIRST.on = on;
                    const hits = (await api.search({ query: q, limit, range })).hits;
                    return hits.map((h) => `${h.message.id} ${h.source} ${h.score.toFixed(9)}`);
                  };
                  expect([q, limit, range, await page(true)]).toEqual([q, limit, range, await page(false)]);
                }
          }
        } finally {
          api.close();
        }
        passes.push(cjkPasses);
      }
      // Taken on the home with nothing archived once its tier counts as large; never beside archived rows.
      expect(passes[0]).toBeGreaterThan(10);
      expect(passes[1]).toBe(0);
    } finally {
      stop();
      CJK_FIRST.on = true;
      CJK_FIRST.smallTier = smallTier;
    }
  });
});
