// The substring index walk of a large table: the trigrams it walks, and the rows it answers with.
import type { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import {
  CHECKED_WALK,
  REFINED_WALK,
  SMALL_TABLE,
  substringMatches,
} from "../../src/storage/sqlite/substring-queries.ts";
import { openDatabase } from "../../src/storage/sqlite/open-database.ts";
import { addTexts, openTemp, removeTempHomes } from "../fixture/home.ts";
import { seededRandom } from "../fixture/seeded-random.ts";

afterAll(removeTempHomes);

const NOW = 1_790_000_000_000_000_000n;
/** A statement that walks the index: stepped from JS, or checking each candidate in SQL (a join to messages). */
const walks = (sql: string) => sql.includes("MATCH ?") && (!sql.includes("LIMIT") || sql.includes("JOIN messages"));

/** The walk's FTS expressions, as the statement that steps through the index is given them. */
function recordWalks(db: Database): string[] {
  const walked: string[] = [];
  const query = db.query.bind(db);
  db.query = ((sql: string) => {
    const st = query(sql);
    if (!walks(sql)) return st;
    const iterate = st.iterate.bind(st);
    const all = st.all.bind(st);
    return Object.assign(Object.create(st), {
      iterate: (...args: Parameters<typeof st.iterate>) => {
        walked.push(String(args[0]));
        return iterate(...args);
      },
      all: (...args: Parameters<typeof st.all>) => {
        walked.push(String(args[0]));
        return all(...args);
      },
    });
  }) as typeof db.query;
  return walked;
}

/** The newest `limit` of `contents` whose lower case holds every needle. */
const holding = (contents: readonly string[], needles: readonly string[], limit: number) =>
  contents
    .filter((c) => needles.every((n) => c.toLowerCase().includes(n)))
    .reverse()
    .slice(0, limit);

/** Run `body` on a home holding `contents` (one session, in order), SMALL_TABLE as it was afterwards. */
function withHome(contents: readonly string[], body: (db: Database) => void): void {
  const { api } = openTemp({ now: () => NOW });
  const rows = SMALL_TABLE.rows;
  try {
    addTexts(api, "s", [...contents], NOW);
    const db = openDatabase(api.paths.db);
    try {
      body(db);
    } finally {
      db.close();
    }
  } finally {
    SMALL_TABLE.rows = rows;
    api.close();
  }
}

const WORDS = ["deploy", "redeploying", "Deployment", "server", "observer", "log", "catalog", "blog", "login"];

describe("substring index walk", () => {
  test("a needle in most rows is left out of the walk beside a rare one, and the answer is the scan's", () => {
    const rnd = seededRandom(5);
    const contents = Array.from(
      { length: 400 },
      (_, i) => `m${i} ` + Array.from({ length: 5 }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(" "),
    );
    withHome(contents, (db) => {
      const walked = recordWalks(db);
      SMALL_TABLE.rows = 0; // walked as a large table: on the rarest trigrams, measured first
      // Candidates checked in SQL, and (a walk selecting most rows) read into JS and checked there.
      const share = CHECKED_WALK.share;
      for (const checkedInSql of [true, false])
        for (const needles of [["deploy", "m17"], ["log", "m25"], ["deploy", "server"], ["m1"], ["serv", "m3"]])
          for (const limit of [1, 5, 50]) {
            walked.length = 0;
            CHECKED_WALK.share = checkedInSql ? share : -1;
            const got = substringMatches(db, needles, { recent: true }, limit);
            CHECKED_WALK.share = share;
            expect({ needles, limit, checkedInSql, got: got?.map((m) => m.content) }).toEqual({
              needles,
              limit,
              checkedInSql,
              got: holding(contents, needles, limit),
            });
            // "deploy" (in most rows) is not walked beside "m17" (in 11): only the rare needle's trigram is.
            if (needles[1] === "m17") expect(walked.at(-1)).toBe('"m17"');
            // Two needles in many rows each: both narrow the walk.
            if (needles[1] === "server") expect(walked.at(-1)?.split(" AND ").length).toBe(2);
          }
    });
  });

  test("beside another needle, a needle's next trigram is walked when it strikes many candidates, not when it goes with the first", () => {
    // "aid" and "sai" are each in many words, "said" in few; "cku" and "kup" are only ever in "backup".
    const filler = ["paid", "raid", "saint", "mosaic", "used", "because", "backup", "log", "server", "deploy"];
    filler.push("build", "test", "merge", "branch", "commit", "review", "cache", "query", "index", "table");
    const rnd = seededRandom(11);
    const contents = Array.from({ length: 600 }, (_, i) => {
      const words = Array.from({ length: 3 }, () => filler[Math.floor(rnd() * filler.length)]!);
      if (i % 9 === 0) words.push("said");
      if (i % 4 === 0) words.push("user");
      return `m${i} ${words.join(" ")}`;
    });
    withHome(contents, (db) => {
      const walked = recordWalks(db);
      SMALL_TABLE.rows = 0;
      const grams = () => walked.at(-1)!.split(" AND ").sort();
      expect(substringMatches(db, ["said", "user"], { recent: true }, 20)?.map((m) => m.content)).toEqual(
        holding(contents, ["said", "user"], 20),
      );
      expect(grams()).toContain('"aid"');
      expect(grams()).toContain('"sai"');
      expect(substringMatches(db, ["backup", "user"], { recent: true }, 20)?.map((m) => m.content)).toEqual(
        holding(contents, ["backup", "user"], 20),
      );
      expect(grams().filter((g) => ['"cku"', '"kup"', '"bac"', '"ack"'].includes(g))).toHaveLength(1);
    });
  });

  test("a needle whose newest candidates hold too few matches is walked on, past them, on the later trigrams that narrow it", () => {
    // "anc" (in "branch") is the rarest trigram of "brancher"; "ran", "nch" and "bra" always come with it, and
    // "her" and "che" (in "other" and "cache", most rows) narrow it. Two old rows hold "brancher".
    const rnd = seededRandom(23);
    const contents = Array.from({ length: 800 }, (_, i) => {
      const words = [`m${i}`];
      if (rnd() < 0.2) words.push("branch");
      for (const w of ["random", "lunch", "brace"]) if (rnd() < 0.1) words.push(w);
      for (const w of ["other", "cache"]) if (rnd() < 0.45) words.push(w);
      if (i === 40 || i === 90) words.push("Brancher");
      return words.join(" ");
    });
    const knobs = { ...REFINED_WALK };
    withHome(contents, (db) => {
      const walked = recordWalks(db);
      SMALL_TABLE.rows = 0;
      Object.assign(REFINED_WALK, { candidates: 20, stretch: 20, measure: 1 });
      const share = CHECKED_WALK.share;
      try {
        for (const [needle, limit, checkedInSql] of [
          ["brancher", 5, true],
          ["brancher", 1, true],
          ["branchers", 5, true],
          ["branch", 5, true],
          ["brancher", 5, false],
          ["branch", 5, false],
        ] as const) {
          walked.length = 0;
          // Candidates checked in SQL, or (a walk selecting most rows) read into JS and checked there.
          CHECKED_WALK.share = checkedInSql ? share : -1;
          expect({
            needle,
            checkedInSql,
            got: substringMatches(db, [needle], { recent: true }, limit)?.map((m) => m.content),
          }).toEqual({ needle, checkedInSql, got: holding(contents, [needle], limit) });
          if (needle === "branchers") continue; // "ers" is in no row: nothing is walked past it
          const first = walked[0]!.split(" AND ");
          if (needle === "branch") {
            // Dense: the first stretch holds the matches, and nothing more is measured or walked.
            expect(walked).toHaveLength(1);
            continue;
          }
          // Sparse: the first stretch walked "anc" alone; the rest, with the trigrams that narrow it.
          expect({ checkedInSql, first }).toEqual({ checkedInSql, first: ['"anc"'] });
          const rest = walked.at(-1)!.split(" AND ");
          expect(rest).toContain('"anc"');
          expect(rest.filter((g) => g === '"her"' || g === '"che"').length).toBeGreaterThan(0);
          expect(rest.filter((g) => ['"ran"', '"nch"', '"bra"'].includes(g))).toEqual([]);
        }
      } finally {
        Object.assign(REFINED_WALK, knobs);
        CHECKED_WALK.share = share;
      }
    });
  });

  test("past a first stretch with too few matches, the rows of a short needle are checked when they are few", () => {
    // "bucket" is in many rows (checked in SQL: under a quarter), "s3" in three (one without "bucket"), "ok" in half.
    const rnd = seededRandom(31);
    const contents = Array.from({ length: 800 }, (_, i) => {
      const words = [`m${i}`];
      if (rnd() < 0.2) words.push("bucket");
      if (rnd() < 0.5) words.push("ok");
      if (i === 40 || i === 90) words.push("S3 bucket");
      if (i === 300) words.push("s3");
      return words.join(" ");
    });
    const knobs = { ...REFINED_WALK };
    withHome(contents, (db) => {
      const walked = recordWalks(db);
      // How many candidates the walk checked: the seqs of the statements that read their text.
      let checked = 0;
      let termReads = 0;
      const query = db.query.bind(db);
      db.query = ((sql: string) => {
        const st = query(sql);
        if (sql.includes("_terms")) termReads++;
        if (!sql.includes("json_each")) return st;
        const all = st.all.bind(st);
        return Object.assign(Object.create(st), {
          all: (...args: Parameters<typeof st.all>) => {
            if (sql.includes("m.content") && !sql.includes("m.role")) checked += JSON.parse(String(args[0])).length;
            return all(...args);
          },
        });
      }) as typeof db.query;
      SMALL_TABLE.rows = 0;
      Object.assign(REFINED_WALK, { candidates: 20, stretch: 20, measure: 1 });
      const share = CHECKED_WALK.share;
      try {
        for (const checkedInSql of [true, false])
          for (const [needles, limit] of [
            [["s3", "bucket"], 5],
            [["s3", "bucket"], 1],
            [["ok", "bucket"], 5],
            [["ok", "bucket"], 100],
          ] as const) {
            walked.length = 0;
            checked = 0;
            termReads = 0;
            CHECKED_WALK.share = checkedInSql ? share : -1;
            expect({
              needles,
              limit,
              checkedInSql,
              got: substringMatches(db, needles, { recent: true }, limit)?.map((m) => m.content),
            }).toEqual({ needles, limit, checkedInSql, got: holding(contents, needles, limit) });
            if (needles[0] === "s3") {
              // The first stretch, then the rows holding "s3" below it: nothing more is walked.
              expect(walked).toHaveLength(1);
              expect(termReads).toBe(1);
              if (!checkedInSql) expect(checked).toBeLessThanOrEqual(REFINED_WALK.stretch + 3);
            } else if (limit === 100) {
              // "ok" is in too many rows: the walk goes on past the stretch (in SQL, on the narrower AND).
              if (checkedInSql) expect(walked).toHaveLength(2);
              else expect(checked).toBeGreaterThan(REFINED_WALK.stretch);
            }
          }
      } finally {
        Object.assign(REFINED_WALK, knobs);
        CHECKED_WALK.share = share;
      }
    });
  });

  test("a needle ending in i finds İ, which the index holds as İ and JS lower-cases to i̇", () => {
    const contents = Array.from({ length: 200 }, (_, i) => `m${i} ${i % 5 === 0 ? "SPİNE" : "spine"} ${WORDS[i % 9]}`);
    const rows = SMALL_TABLE.rows;
    withHome(contents, (db) => {
      for (const small of [rows, 0]) {
        SMALL_TABLE.rows = small;
        for (const needle of ["spi", "pi", "i", "spine"])
          expect({
            needle,
            small,
            got: substringMatches(db, [needle], { recent: true }, 100)?.map((m) => m.content),
          }).toEqual({ needle, small, got: holding(contents, [needle], 100) });
      }
    });
  });

  test("a row the walk's LIKE selects for İ or the Kelvin sign alone is checked, and left out when it does not hold the needle", () => {
    const VARIANTS = ["kubernetesi", "ubernetes İSTANBUL", "\u212aubernetesi", "ubernetes \u212aelvin", "KUBERNETESİ"];
    const contents = Array.from(
      { length: 500 },
      (_, i) => `m${i} ${i % 10 === 0 ? VARIANTS[(i / 10) % 5] : ""} ${WORDS[i % 9]}`,
    );
    const rows = SMALL_TABLE.rows;
    withHome(contents, (db) => {
      SMALL_TABLE.rows = 0;
      const walked = recordWalks(db);
      for (const needle of ["kubernetesi", "ubernetesi", "kubernetes"]) {
        const got = substringMatches(db, [needle], { recent: true }, 100)?.map((m) => m.content);
        expect({ needle, got }).toEqual({ needle, got: holding(contents, [needle], 100) });
      }
      // The index was walked: the rows are not a scan's.
      expect(walked.length).toBeGreaterThan(0);
    });
    SMALL_TABLE.rows = rows;
  });

  test("a pasted line's needle measures a dozen of its trigrams, and one that no row holds ends the walk at once", () => {
    const line = "at ReactDOMServerRenderer.render (/app/node_modules/react-dom/cjs/server.js:3753:22)";
    const contents = Array.from({ length: 300 }, (_, i) =>
      i % 7 === 0 ? `m${i} ${line} x` : `m${i} node_modules app.js`,
    );
    withHome(contents, (db) => {
      let probes = 0;
      const query = db.query.bind(db);
      db.query = ((sql: string) => {
        if (sql.includes("MATCH ?") && !walks(sql)) probes++;
        return query(sql);
      }) as typeof db.query;
      SMALL_TABLE.rows = 0;
      const needle = line.toLowerCase();
      expect(substringMatches(db, [needle], { recent: true }, 100)?.map((m) => m.content)).toEqual(
        holding(contents, [needle], 100),
      );
      expect(probes).toBeLessThanOrEqual(12);
      // The same line with one character that no row holds: none is checked.
      probes = 0;
      const absent = needle.replace("3753", "3#53");
      expect(substringMatches(db, [absent], { recent: true }, 100)).toEqual([]);
      expect(probes).toBeLessThanOrEqual(12);
    });
  });
});
