// An AND window beside words in many rows is found from its rarer terms' matches, each checked for the common
// words in its text: the same window as FTS5's own AND, and the same page.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { spyStatements } from "../fixture/statement-spy.ts";
import { openTemp, removeTempHomes } from "../fixture/home.ts";
import { seededRandom } from "../fixture/seeded-random.ts";
import { searchForm } from "../../src/shared/search-form.ts";
import { commonWordsSplit } from "../../src/search/common-words.ts";
import { queryTerms } from "../../src/search/query-terms.ts";
import { plainForWords, RARER_FIRST, SEPARATORS, stemsHeld } from "../../src/storage/sqlite/and-by-rarer-terms.ts";
import { openDatabase } from "../../src/storage/sqlite/open-database.ts";

afterAll(removeTempHomes);

const NOW = 1_790_000_000_000_000_000n;
const MINUTE = 60_000_000_000n;

/** Words whose stems the text check has to get right: forms, apostrophes, irregular stems, case, overlong words. */
const TRICKY = [
  "deploy",
  "deploys",
  "deployed",
  "deploying",
  "Deploy",
  "DEPLOYMENT",
  "deploy's",
  "deploy’s",
  "x'deploy",
  "'deploy'",
  "redeploy",
  "deploy2",
  "2deploy",
  "deploy_log",
  "server",
  "servers",
  "serving",
  "served",
  "Server's",
  "observer",
  "dying",
  "die",
  "skies",
  "sky",
  "sensibility",
  "sensible",
  "don't",
  "don’t",
  "rock'n'roll",
  "o'clock",
  "a".repeat(41) + "'deploy",
  "s" + "e".repeat(45),
  "error",
  "errors",
  "erroneous",
  "timeout",
  "retry",
  "retries",
];
/** What may stand between words: ASCII, separators the check relies on, CJK (set apart by searchForm), other letters. */
const BETWEEN = [
  " ",
  " ",
  ", ",
  ". ",
  "-",
  "/",
  "(",
  ")",
  "'",
  "’",
  "—",
  "“",
  "”",
  "…",
  "。",
  "！",
  "、",
  "东京",
  "ログ",
  "\u00a0",
  "é",
  "ñ",
  "д",
  "1",
];

function text(random: () => number): string {
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  let out = "";
  for (let i = 1 + Math.floor(random() * 8); i > 0; i--) out += pick(TRICKY) + pick(BETWEEN);
  return out;
}

describe("windows found from the rarer terms", () => {
  test("the split: common Latin words apart from the other terms, never beside a prefix", () => {
    const shares: Record<string, number> = { '"deploy"': 0.9, '"server"': 0.6, '"error"': 0.1 };
    // The shares asked for: never a prefix's, which costs FTS5 a merge of every row list it names.
    const asked: string[] = [];
    const share = (m: string) => {
      asked.push(m);
      return shares[m] ?? 0.01;
    };
    const st = { rows: 1000, avgTokens: 10, share, has: () => true };
    const split = (q: string, typing = false) => commonWordsSplit(queryTerms(q, { typing }), st);
    expect(split("deploy the server after the rollback incident")).toEqual({
      rarer: '"rollback" AND "incid"',
      common: ["deploy", "server"],
      commonShare: 1.5,
      rarerShare: 0.01 * 0.01,
    });
    expect(split("deploy deployed error timeout")).toEqual({
      rarer: '"timeout"',
      common: ["deploy", "error"],
      commonShare: 1,
      rarerShare: 0.01,
    });
    // Nothing apart: no common word, only common words, a prefix being typed (FTS5 merges its row lists however
    // few matches are asked for), a CJK character (a prefix too), one word.
    expect(split("rollback incident")).toBeUndefined();
    expect(split("deploy server")).toBeUndefined();
    expect(split("deploy serv", true)).toBeUndefined();
    expect(split("deploy rollback inci", true)).toBeUndefined();
    expect(split("deploy 库")).toBeUndefined();
    expect(split("deploy")).toBeUndefined();
    // Typed but whole: the last word is no prefix once a space follows it.
    expect(split("deploy rollback ", true)?.rarer).toBe('"rollback"');
    expect(asked.filter((m) => m.includes('"*'))).toEqual([]);
  });

  test("every separator the text check relies on splits the index's tokens, and searchForm leaves it alone", () => {
    const db = new Database(":memory:");
    db.run("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='unicode61 remove_diacritics 2')");
    db.run("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row')");
    const insert = db.query("INSERT INTO t (body) VALUES (?)");
    let chars = 0;
    for (const [from, to] of SEPARATORS)
      for (let c = from; c <= to; c++) {
        const s = `1${String.fromCharCode(c)}2`;
        insert.run(searchForm(s));
        if (c !== 0x2019) expect(searchForm(s)).toBe(s); // ’ is an apostrophe inside a word, as ' is
        chars++;
      }
    expect(chars).toBeGreaterThan(80);
    expect(db.query("SELECT term FROM v ORDER BY term").values().flat()).toEqual(["1", "2"]);
    db.close();
  });

  test("the text check finds the stems the index holds, for every plain text", () => {
    const { api } = openTemp({ now: () => NOW });
    const random = seededRandom(7);
    const texts = Array.from({ length: 3000 }, () => text(random));
    api.add(
      "s",
      texts.map((content, i) => ({ role: "user" as const, content, sendAt: NOW - BigInt(3000 - i) * MINUTE })),
    );
    const db = openDatabase(api.paths.db);
    try {
      const stems = ["deploy", "server", "die", "sky", "dont", "error", "retri", "sensibl"];
      const inIndex = db.query("SELECT 1 FROM messages_fts WHERE messages_fts MATCH ? AND rowid = ?");
      const rows = db.query("SELECT seq, content FROM messages ORDER BY seq").values() as [bigint, string][];
      let plain = 0;
      let told = 0;
      for (const [seq, content] of rows) {
        if (!plainForWords(content)) continue;
        plain++;
        const found = stemsHeld(content, stems);
        if (found === undefined) continue;
        told++;
        for (const [k, stem] of stems.entries())
          expect([content, stem, found[k]]).toEqual([content, stem, inIndex.get(`{body}: "${stem}"`, seq) !== null]);
      }
      // Most texts are plain and told; the others (other letters, overlong words) are looked up in the index.
      expect(plain).toBeGreaterThan(1000);
      expect(plain).toBeLessThan(rows.length);
      expect(told).toBeGreaterThan(plain / 2);
      expect(told).toBeLessThan(plain);
    } finally {
      db.close();
      api.close();
    }
  });

  test("the page is the one FTS5's own AND gives, with and without archived rows", async () => {
    // Statements that read a window found this way, and candidates looked up in the index (every connection).
    const seen = { windows: 0, lookups: 0 };
    const stop = spyStatements(
      (sql) => sql.includes("AS s FROM json_each(?)) w") || sql.includes("MATCH ? AND rowid = ?"),
      (sql) => {
        if (sql.includes("AS s FROM json_each(?)) w")) seen.windows++;
        else seen.lookups++;
      },
    );
    const cost = { ...RARER_FIRST.cost };
    try {
      for (const env of [{}, { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" }]) {
        const { api } = openTemp({ now: () => NOW, env });
        try {
          // Common words in most rows, rare ones in a few; some rows in other scripts (looked up in the index).
          const random = seededRandom(11);
          // More rows than a window holds: a smaller scope is read whole, oldest first, and never this way.
          for (const session of ["a", "b", "c", "d", "e", "f"])
            api.add(
              session,
              Array.from({ length: 450 }, (_, i) => {
                const common = random() < 0.8 ? "deploy the server" : random() < 0.5 ? "deployed" : "the servers";
                const rare = random() < 0.06 ? " after the rollback incident" : random() < 0.05 ? " zork timeout" : "";
                const other = random() < 0.1 ? " журнал ошибок" : random() < 0.1 ? " café déployé" : "";
                return {
                  role: "user" as const,
                  content: `${common} step ${i}${rare}${other} ${text(random)}`,
                  sendAt: NOW - BigInt(2800 - i * 6) * MINUTE,
                };
              }),
            );
          const queries = [
            "deploy server rollback incident",
            "deploy rollback incident",
            "deploy the server after the rollback incident",
            "server zork timeout",
            "deploy zork",
            "deploy server",
            "servers deploying rollback",
            "deploy deployed rollback incident",
          ];
          const page = async (on: boolean, q: string, limit: number, range?: "30d" | "1y", session?: string) => {
            RARER_FIRST.on = on;
            const hits = (await api.search({ query: q, limit, range, session })).hits;
            return hits.map((h) => `${h.message.id} ${h.source} ${h.score.toFixed(9)}`);
          };
          // A word being typed (the TUI's ranked search): the same page both ways.
          for (const q of ["deploy serv", "deploy server rollback inci"]) {
            const typed = async (on: boolean) => {
              RARER_FIRST.on = on;
              return (await api.search({ query: q, limit: 10, typing: true })).hits.map((h) => h.message.id);
            };
            expect(await typed(true)).toEqual(await typed(false));
          }
          // Every window the rarer terms can find is found that way here.
          RARER_FIRST.cost = { candidate: 0, lookup: 0, entry: 1 };
          for (const q of queries)
            for (const limit of [1, 10, 40])
              for (const range of [undefined, "30d", "1y"] as const)
                for (const session of [undefined, "b"])
                  expect([q, limit, range, session, await page(true, q, limit, range, session)]).toEqual([
                    q,
                    limit,
                    range,
                    session,
                    await page(false, q, limit, range, session),
                  ]);
        } finally {
          api.close();
        }
      }
      // Both homes took the new way, and checked rows in other scripts in the index.
      expect(seen.windows).toBeGreaterThan(20);
      expect(seen.lookups).toBeGreaterThan(0);
    } finally {
      stop();
      RARER_FIRST.on = true;
      RARER_FIRST.cost = cost;
    }
  });
});
