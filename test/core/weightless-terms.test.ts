// A word in most messages weighs nothing in bm25: a query's any-term list leaves it out and ranks its other words.
import { afterAll, describe, expect, test } from "bun:test";
import { openTemp, removeTempHomes } from "../fixture/home.ts";
import { spyStatements } from "../fixture/statement-spy.ts";
import { FLOOR_WINDOW } from "../../src/search/keyword.ts";
import { ftsAnyQuery, queryTerms } from "../../src/search/query-terms.ts";
import { windowTexts } from "../../src/storage/sqlite/keyword-queries.ts";
import { openDatabase } from "../../src/storage/sqlite/open-database.ts";

afterAll(removeTempHomes);

const NOW = 1_790_000_000_000_000_000n;
const MINUTE = 60_000_000_000n;

describe("weightless words in keyword search", () => {
  test("ftsAnyQuery leaves out the words not kept, unless it would leave none", () => {
    const terms = queryTerms("deploy zork config");
    expect(ftsAnyQuery(terms)).toBe('"deploy" OR "zork" OR "config"');
    expect(ftsAnyQuery(terms, (t) => t.text !== "deploy")).toBe('"zork" OR "config"');
    // One word kept is still an any-term list (of a query of several words).
    expect(ftsAnyQuery(terms, (t) => t.text === "zork")).toBe('"zork"');
    expect(ftsAnyQuery(terms, () => false)).toBe('"deploy" OR "zork" OR "config"');
    expect(ftsAnyQuery(queryTerms("zork"), () => true)).toBeUndefined();
  });

  test("a message with the rare word is found past the newest messages holding the common one", async () => {
    const { api } = openTemp({ now: () => NOW });
    try {
      // Old messages with the rare word only, then more than a ranking window of messages with the common one.
      api.add(
        "old",
        Array.from({ length: 30 }, (_, i) => ({
          role: "user" as const,
          content: i === 29 ? "the zork cluster needs a new certificate" : `zork note ${i}`,
          sendAt: NOW - BigInt(9_000 - i) * MINUTE,
        })),
      );
      for (let b = 0; b < 5; b++)
        api.add(
          `s${b}`,
          Array.from({ length: 500 }, (_, i) => ({
            role: "user" as const,
            content: `deploy step ${b * 500 + i} of the rollout went fine`,
            sendAt: NOW - BigInt(5_000 - b * 500 - i) * MINUTE,
          })),
        );
      // No message holds both words: the rare one decides what ranks first.
      const r = await api.search({ query: "deploy zork", limit: 5 });
      expect(r.hits.map((h) => h.message.content.includes("zork"))).toEqual([true, true, true, true, true]);
      // A word in every message still matches when it is all the query has, or when the rare word is too rare
      // to fill the page (the rows holding only the common word fill it).
      expect((await api.search({ query: "deploy rollout", limit: 5 })).hits.length).toBe(5);
      expect((await api.search({ query: "deploy certificate", limit: 5 })).hits.length).toBe(5);
      // In one session, or with a filter, the index's shares (of all rows) do not say what fills the list:
      // a session without the rare word still gets its page of the common one.
      expect((await api.search({ query: "deploy zork", session: "s2", limit: 5 })).hits.length).toBe(5);
      expect((await api.search({ query: "deploy zork", range: "7d", limit: 5 })).hits.length).toBe(5);
    } finally {
      api.close();
    }
  });

  test("a query of such words only: its matches are ranked without reading their text, and found whole", async () => {
    const { api } = openTemp({ now: () => NOW, env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" } });
    const db = openDatabase(api.paths.db);
    try {
      api.add(
        "s",
        Array.from({ length: 300 }, (_, i) => ({
          role: "user" as const,
          content: i % 3 ? `deploy step ${i} went to the server` : `deploy ${i} done, the server deploy log too`,
          sendAt: NOW - BigInt(300 - i) * MINUTE,
        })),
      );
      // An empty list of repeat keys: no row's text is read.
      const rows = windowTexts(db, '"deploy" AND "server"', 100, { recent: false }, false, []);
      expect(rows.length).toBeGreaterThan(50);
      expect(rows.every((r) => r.lower === undefined && r.tokens > 0)).toBe(true);
      const r = await api.search({ query: "deploy server", limit: 10 });
      expect(r.hits.length).toBe(10);
      for (const h of r.hits) {
        expect(h.message.content).toContain("deploy");
        expect(h.highlights.length).toBeGreaterThanOrEqual(2);
      }
    } finally {
      db.close();
      api.close();
    }
  });

  test("a query of such words: the any-term window is read only when the substring matches leave room", async () => {
    // Statements run that read an any-term window of both words (on every connection).
    let windowReads = 0;
    const stop = spyStatements(
      (sql) => /messages_fts MATCH/.test(sql) && /CROSS JOIN messages/.test(sql),
      (_sql, args) => {
        if (args.some((a) => typeof a === "string" && /"deploy" OR "server"|"server" OR "deploy"/.test(a)))
          windowReads++;
      },
    );
    try {
      // Nothing archived, and most rows archived (the recent tier then holds a few rows of each session).
      for (const env of [{}, { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" }]) {
        const { api } = openTemp({ now: () => NOW, env });
        try {
          // Session "both": every row holds each word (most rows hold both verbatim); "apart": each row holds one.
          api.add(
            "both",
            Array.from({ length: 240 }, (_, i) => ({
              role: "user" as const,
              content: i % 4 ? `deploy ${i} to the server done` : `server ${i} deploy, then the deploy log`,
              sendAt: NOW - BigInt(600 - i) * MINUTE,
            })),
          );
          api.add(
            "apart",
            Array.from({ length: 240 }, (_, i) => ({
              role: "user" as const,
              content: i % 2 ? `deploy step ${i} went fine` : `server ${i} restarted fine`,
              sendAt: NOW - BigInt(300 - i) * MINUTE,
            })),
          );
          const page = async (q: string, session: string | undefined, limit: number) => {
            windowReads = 0;
            const hits = (await api.search({ query: q, session, limit })).hits;
            return { reads: windowReads, hits: hits.map((h) => `${h.message.id} ${h.score.toFixed(9)}`) };
          };
          const cases: [string, string | undefined, number][] = [
            ["deploy server", "both", 10],
            ["deploy server", "both", 40],
            ["server deploy", undefined, 10],
            ["deploy server", "apart", 10],
          ];
          for (const [q, session, limit] of cases) {
            FLOOR_WINDOW.matchesFirst = false;
            const read = await page(q, session, limit);
            expect(read.reads).toBeGreaterThan(0);
            expect(read.hits.length).toBe(limit);
            FLOOR_WINDOW.matchesFirst = true;
            const first = await page(q, session, limit);
            expect(first.hits).toEqual(read.hits);
            // The substring matches fill the page where the recent rows hold enough of them (every one scores
            // above any window row): the window is not read. Where no row holds both words, it is.
            const filled = session !== "apart" && (limit === 10 || env.MEMVOY_LIMITS_MAX_HISTORY_BYTES === undefined);
            if (filled) expect(first.reads).toBe(0);
            else expect(first.reads).toBe(read.reads);
          }
        } finally {
          api.close();
        }
      }
    } finally {
      stop();
      FLOOR_WINDOW.matchesFirst = true;
    }
  });

  test("a one-word query of such a word still ranks a row holding it more often first", async () => {
    const { api } = openTemp({ now: () => NOW, env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" } });
    try {
      api.add(
        "s",
        Array.from({ length: 300 }, (_, i) => ({
          role: "user" as const,
          // Every row the same length in index tokens; one old row holds the word three times.
          content: i === 40 ? `deploy deploy deploy x${i}` : `deploy alpha beta x${i}`,
          sendAt: NOW - BigInt(300 - i) * MINUTE,
        })),
      );
      const r = await api.search({ query: "deploy", limit: 100 });
      const archived = r.hits.filter((h) => h.source === "archive");
      expect(archived.length).toBeGreaterThan(0);
      expect(archived[0]!.message.content).toBe("deploy deploy deploy x40");
    } finally {
      api.close();
    }
  });
});
