import { afterAll, describe, expect, test } from "bun:test";
import { openDatabase } from "../../src/storage/sqlite/open-database.ts";
import { RANK_WINDOW, scanRecent, windowTexts } from "../../src/storage/sqlite/keyword-queries.ts";
import {
  BUILD_AFTER,
  cachedRecentRows,
  cachedRecentScan,
  holdRecentText,
  holdsRecentText,
  RECENT_TEXT_CAP,
} from "../../src/storage/sqlite/recent-text-cache.ts";
import { keywordSearch } from "../../src/search/keyword.ts";
import { openTemp, removeTempHomes } from "../fixture/home.ts";
import { seededRandom } from "../fixture/seeded-random.ts";

afterAll(removeTempHomes);

const NOW = 1_790_000_000_000_000_000n;
const PIECES = [
  "Deploy",
  "deploy",
  "DEPLOYED",
  "server",
  "Éclair",
  "éclair",
  "数据库",
  "50%",
  "a_b",
  "K\u212Aelvin",
  "log",
  "Catalog",
];

describe("recent text held in memory", () => {
  test("selects exactly what the SQL scan selects, and sees every later write", () => {
    const { api } = openTemp({ now: () => NOW });
    try {
      const rnd = seededRandom(11);
      const pick = () => PIECES[Math.floor(rnd() * PIECES.length)]!;
      for (const s of ["a", "b", "c"])
        api.add(
          s,
          Array.from({ length: 120 }, (_, i) => ({
            role: i % 2 ? ("assistant" as const) : ("user" as const),
            content: `${pick()} ${pick()}${pick()} ${pick()}`,
            sendAt: NOW - BigInt(400 - i) * 60_000_000_000n,
            ...(i % 3 === 0 ? { sender: "ann" } : {}),
          })),
        );
      const db = openDatabase(api.paths.db);
      // The scan the cache stands in for: the one run before the substring index is built.
      db.run("UPDATE trigram_build SET done = 0");
      const fresh = () => openDatabase(api.paths.db); // a connection's first scan runs the SQL
      const filters = [{}, { role: "user" as const }, { sender: "ann" }, { since: NOW - 200n * 60_000_000_000n }];
      const needles = [
        ["deploy"],
        ["éclair"],
        ["数据库", "log"],
        ["50%"],
        ["a_b"],
        ["kelvin"],
        ["log", "deploy"],
        ["deploy server"],
        ["g d"],
        ["%"],
      ];
      // Needles with cased letters beyond ASCII never reach the cache: the scan folds them in JS.
      const foldsBeyondAscii = (n: string[]) => n.some((x) => /[^\0-\x7f]/.test(x) && x.toUpperCase() !== x);
      const check = () => {
        for (const f of filters)
          for (const n of needles.filter((x) => !foldsBeyondAscii(x)))
            for (const limit of [50, 3]) {
              const sqlDb = fresh();
              try {
                const viaSql = scanRecent(sqlDb, n, f, limit).map((m) => m.seq);
                holdRecentText(db);
                expect({ n, f, seqs: cachedRecentScan(db, n, f, limit) }).toEqual({ n, f, seqs: viaSql });
              } finally {
                sqlDb.close();
              }
            }
      };
      check();
      const eclairs = (
        db.query("SELECT seq, content FROM messages WHERE recent = 1 ORDER BY seq DESC").all() as {
          seq: bigint;
          content: string;
        }[]
      ).filter((r) => r.content.toLowerCase().includes("éclair"));
      expect(eclairs.some((r) => r.content.includes("Éclair"))).toBe(true);
      expect(scanRecent(db, ["éclair"], {}, 1000).map((m) => m.seq)).toEqual(eclairs.map((r) => r.seq));
      // A write by this process's API (another connection) and one through the cached connection itself.
      api.add("a", { role: "user", content: "deploy zzfresh", sendAt: NOW });
      expect(cachedRecentScan(db, ["zzfresh"], {}, 50)?.length ?? 0).toBe(0); // first look at the new state: SQL
      expect(scanRecent(db, ["zzfresh"], {}, 50).map((m) => m.content)).toEqual(["deploy zzfresh"]);
      db.run("UPDATE messages SET recent = 0 WHERE content = 'deploy zzfresh'");
      expect(scanRecent(db, ["zzfresh"], {}, 50)).toEqual([]);
      expect(scanRecent(db, ["zzfresh"], {}, 50)).toEqual([]);
      check();
      db.close();
    } finally {
      api.close();
    }
  }, 60_000);
});

describe("when the recent text is held", () => {
  const seed = (api: ReturnType<typeof openTemp>["api"], n: number) =>
    api.add(
      "a",
      Array.from({ length: n }, (_, i) => ({
        role: "user" as const,
        content: `deploy note ${i}`,
        sendAt: NOW - BigInt(n - i) * 1_000_000_000n,
      })),
    );

  test("a process that writes between searches never loads it; the BUILD_AFTER-th search at one state does", () => {
    const { api } = openTemp({ now: () => NOW });
    const db = openDatabase(api.paths.db);
    try {
      seed(api, 40);
      db.run("UPDATE trigram_build SET done = 0");
      for (let i = 0; i < 3; i++) {
        api.add("a", { role: "user", content: `deploy write ${i}`, sendAt: NOW + BigInt(i) });
        expect(keywordSearch(db, { query: "deploy", now: NOW }).length).toBeGreaterThan(0);
        expect(holdsRecentText(db)).toBe(false);
      }
      for (let i = 2; i < BUILD_AFTER; i++) keywordSearch(db, { query: "deploy", now: NOW }); // one ran above
      expect(holdsRecentText(db)).toBe(false);
      keywordSearch(db, { query: "deploy", now: NOW });
      expect(holdsRecentText(db)).toBe(true);
    } finally {
      db.close();
      api.close();
    }
  });

  test("of a tier of more rows than the cap, only the newest are held, and substring scans run in SQL", () => {
    const { api } = openTemp({ now: () => NOW });
    const db = openDatabase(api.paths.db);
    const cap = RECENT_TEXT_CAP.rows;
    try {
      seed(api, 30);
      db.run("UPDATE trigram_build SET done = 0");
      RECENT_TEXT_CAP.rows = 29;
      const hits = () => keywordSearch(db, { query: "note", now: NOW, limit: 50 }).length;
      for (let i = 0; i < BUILD_AFTER; i++) expect(hits()).toBe(30);
      expect(holdsRecentText(db)).toBe(false);
      expect(holdsRecentText(db, false)).toBe(true);
      expect(cachedRecentScan(db, ["note"], {}, 50)).toBeUndefined();
      // Asked to look in the rows held, it answers when they hold `limit` matches: the newest ones.
      const all = () => 1; // every row is expected to hold the needle: the rows held are looked in
      const viaSql = scanRecent(db, ["note"], {}, 10).map((m) => m.seq);
      expect(cachedRecentRows(db, ["note"], {}, 10, all)?.map((r) => r.seq)).toEqual(viaSql);
      expect(cachedRecentRows(db, ["note 2"], {}, 10, all)?.map((r) => r.seq)).toEqual(
        scanRecent(db, ["note 2"], {}, 10).map((m) => m.seq),
      );
      expect(cachedRecentRows(db, ["note"], {}, 10)).toBeUndefined();
      expect(cachedRecentRows(db, ["note"], {}, 30, all)).toBeUndefined(); // 29 held: the 30th may be older
      expect(cachedRecentRows(db, ["note 0"], {}, 1, all)).toBeUndefined(); // only in the row not held
      expect(hits()).toBe(30);
      RECENT_TEXT_CAP.rows = 30;
      const other = openDatabase(api.paths.db);
      try {
        for (let i = 0; i < BUILD_AFTER; i++)
          expect(keywordSearch(other, { query: "note", now: NOW, limit: 50 }).length).toBe(30);
        expect(holdsRecentText(other)).toBe(true);
      } finally {
        other.close();
      }
    } finally {
      RECENT_TEXT_CAP.rows = cap;
      db.close();
      api.close();
    }
  });
});

describe("match windows read from the recent rows held", () => {
  const WORDS = ["alpha", "beta", "gamma", "delta", "Omega", "Éclair", "Ωmega"];

  test("rank the same rows as the table's, where the window reaches below the oldest row held too", () => {
    const { api } = openTemp({ now: () => NOW });
    const cap = RECENT_TEXT_CAP.rows;
    const rows = RANK_WINDOW + 700;
    const rnd = seededRandom(7);
    const word = () => WORDS[Math.floor(rnd() * WORDS.length)]!;
    for (const s of ["a", "b", "c"])
      api.add(
        s,
        Array.from({ length: rows / 3 }, (_, i) => ({
          role: i % 2 ? ("assistant" as const) : ("user" as const),
          content: `Note ${word()} ${word()} ${"filler ".repeat(Math.floor(rnd() * 6))}${word()}`,
          sendAt: NOW - BigInt(rows - i) * 60_000_000_000n,
          ...(i % 3 === 0 ? { sender: "ann" } : {}),
        })),
      );
    const held = openDatabase(api.paths.db);
    const table = openDatabase(api.paths.db, { shortLived: true }); // never holds the text
    const issued: string[] = [];
    const query = held.query.bind(held);
    held.query = ((sql: string) => {
      issued.push(sql);
      return query(sql);
    }) as typeof held.query;
    try {
      RECENT_TEXT_CAP.rows = 1_500;
      for (let i = 0; i < BUILD_AFTER; i++) keywordSearch(held, { query: "note", now: NOW });
      expect(holdsRecentText(held, false)).toBe(true);
      expect(holdsRecentText(held)).toBe(false);
      const filters = [{}, { role: "user" as const }, { sender: "ann" }, { since: NOW - 2_300n * 60_000_000_000n }];
      const queries = [
        "note alpha",
        "alpha beta",
        "alpha beta gamma",
        "omega",
        "note",
        "gamma delta omega",
        "filler beta",
        "éclair note",
        "éclair",
        "ωmega note",
        "ωmega",
      ];
      for (const filter of filters)
        for (const q of queries) {
          const o = { query: q, now: NOW, filter, limit: 20 };
          const seen = (db: typeof held) =>
            keywordSearch(db, o).map((h) => [h.message.seq, h.source, h.score.toFixed(12)]);
          issued.length = 0;
          expect({ q, filter, hits: seen(held) }).toEqual({ q, filter, hits: seen(table) });
          // Its any-term window, in most rows, reaches below the rows held ("note", in every row, weighs nothing).
          if (q === "alpha beta gamma" && Object.keys(filter).length === 0)
            expect(issued.some((sql) => sql.includes("CROSS JOIN") && sql.includes("rowid < ?"))).toBe(true);
          // A term in most rows: its substring matches are found in the rows held, not through the index.
          if (q === "note") expect(issued.some((sql) => sql.includes("messages_trigram"))).toBe(false);
          if (q === "éclair") expect(issued.some((sql) => sql.includes("messages_trigram"))).toBe(true);
        }
      // The window rows themselves, as ranking reads them (text in lower case, length, order).
      for (const filter of filters)
        for (const match of ['"note" OR "alpha"', '"ωmega"', '"note"', '"gamma" AND "delta"'])
          for (const size of [500, RANK_WINDOW]) {
            const rows = (db: typeof held) => windowTexts(db, match, size, { ...filter, recent: true });
            const got = rows(held);
            expect({ match, filter, size, rows: got }).toEqual({ match, filter, size, rows: rows(table) });
            if (match === '"note"') expect(got.some((r) => r.lower!.includes("ωmega"))).toBe(true);
          }
      // A text cap smaller than the newest row: nothing is held, and windows read the table.
      const chars = RECENT_TEXT_CAP.chars;
      const small = openDatabase(api.paths.db);
      try {
        RECENT_TEXT_CAP.chars = 3;
        for (let i = 0; i < BUILD_AFTER; i++) keywordSearch(small, { query: "note", now: NOW });
        expect(holdsRecentText(small, false)).toBe(false);
        const w = (db: typeof held) => windowTexts(db, '"note"', RANK_WINDOW, { recent: true });
        expect(w(small)).toEqual(w(table));
      } finally {
        RECENT_TEXT_CAP.chars = chars;
        small.close();
      }
    } finally {
      RECENT_TEXT_CAP.rows = cap;
      held.close();
      table.close();
      api.close();
    }
  }, 60_000);
});
