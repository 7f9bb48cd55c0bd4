import { afterAll, describe, expect, test } from "bun:test";
import { addTexts, openTemp, removeTempHomes } from "../fixture/home.ts";
import { indexStats, windowTexts, withLower } from "../../src/storage/sqlite/keyword-queries.ts";
import { openDatabase } from "../../src/storage/sqlite/open-database.ts";
import { bm25, repeatKey } from "../../src/search/bm25.ts";
import { ftsAllQuery, ftsPhrases, queryTerms } from "../../src/search/query-terms.ts";
import { seededRandom } from "../fixture/seeded-random.ts";

afterAll(removeTempHomes);

const NOW = 1_790_000_000_000_000_000n;

/** Forms of the queries' words: other cases, words that start or end with them, Kelvin signs, dotted capitals. */
const WORDS = [
  "deploy",
  "DEPLOY",
  "Deploying",
  "deployment",
  "redeploy",
  "deplo",
  "kube",
  "KUBE",
  "\u212Aube", // the Kelvin sign: JS lower-cases it to k, LIKE does not
  "kubes",
  "skube",
  "PİNG",
  "ping",
  "pings",
  "数据库",
  "数据库数据库",
  "数据",
  "库",
  "ログ",
  "ブログ",
  "über",
  "ÜBER",
  "x",
  "y",
];

describe("an all-term window read with the text of repeating rows only", () => {
  test("scores every row as the window read whole does", () => {
    const { api } = openTemp({ now: () => NOW });
    const db = openDatabase(api.paths.db);
    try {
      const rnd = seededRandom(5);
      const contents = Array.from({ length: 600 }, () =>
        Array.from({ length: 1 + Math.floor(rnd() * 7) }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(
          rnd() < 0.5 ? " " : ", ",
        ),
      );
      addTexts(api, "a", contents, NOW);
      const st = indexStats(db);
      let sparse = 0;
      for (const q of [
        "deploy",
        "kube",
        "ping",
        "数据库",
        "库",
        "ログ",
        "über",
        "deploy kube",
        "数据库 ログ",
        "ping 库 deploy",
      ]) {
        const terms = queryTerms(q);
        const phrases = ftsPhrases(terms);
        expect(phrases.length).toBe(q.split(" ").length);
        const match = ftsAllQuery(terms)!;
        const keys = phrases.map((p) => repeatKey(p)!);
        for (const f of [{ recent: true }, { recent: true, session: "a" }, {}]) {
          const whole = windowTexts(db, match, 500, f);
          const read = windowTexts(db, match, 500, f, false, keys);
          expect(read.map((r) => r.seq)).toEqual(whole.map((r) => r.seq));
          const score = (r: (typeof read)[number]) => bm25(r.lower, r.tokens, phrases, st.rows, st.avgTokens, true);
          expect({ q, f, scores: read.map(score) }).toEqual({ q, f, scores: whole.map(score) });
          sparse += read.filter((r) => r.lower === undefined).length;
          // The text read afterwards is the text read whole.
          withLower(db, read);
          expect(read).toEqual(whole);
        }
      }
      // Most rows hold their query's word once, and their text is not read.
      expect(sparse).toBeGreaterThan(1000);
    } finally {
      db.close();
      api.close();
    }
  });
});
