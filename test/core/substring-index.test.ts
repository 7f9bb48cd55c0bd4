// The substring index (messages_trigram): kept in step by every write and deletion, built in the background
// on a home made before it existed (resumable, search on the scan until it is complete), and its searches
// finding what the scan finds.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { openDatabase } from "../../src/storage/sqlite/open-database.ts";
import { insertMessages } from "../../src/storage/sqlite/messages-repo.ts";
import { replaceMessageContent } from "../../src/storage/sqlite/message-content-repo.ts";
import { trigramForm, trigramReady } from "../../src/storage/sqlite/substring-index.ts";
import { SCANNED_TIER } from "../../src/storage/sqlite/substring-queries.ts";
import { cli, openTemp, removeTempHomes, repoRoot, tempHome } from "../fixture/home.ts";
import { undoV06 } from "../fixture/old-schema.ts";
import { markRecent } from "../../src/storage/sqlite/salvage.ts";
import { upgradeUntilKilled } from "../fixture/killed-upgrade.ts";

afterAll(removeTempHomes);

const NOW = 1_790_000_000_000_000_000n;
const ENV = { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" };

const TABLES = ["messages_trigram", "messages_trigram_archived"] as const;
const hasTable = (db: Database, t: string) => db.query("SELECT 1 FROM sqlite_master WHERE name = ?").get(t) !== null;

/** Seqs one index table holds for a text: every trigram of its index form, then checked by no one (index only). */
function indexedIn(db: Database, table: string, text: string): bigint[] {
  if (!hasTable(db, table)) return [];
  const chars = Array.from(trigramForm(text).trimEnd().toLowerCase());
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= chars.length; i++) grams.add(chars.slice(i, i + 3).join(""));
  const match = [...grams].map((g) => `"${g.replaceAll('"', '""')}"`).join(" AND ");
  return (db.query(`SELECT rowid FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid`).values(match) as [bigint][]).map(
    (r) => BigInt(r[0]),
  );
}

/** Seqs the index holds for a text, in either table. */
const indexed = (db: Database, text: string) => TABLES.flatMap((t) => indexedIn(db, t, text));

/** Rows of a seq left anywhere in the index's pages (deleted rows included until the index is merged). */
const leftovers = (db: Database, seq: bigint) =>
  TABLES.filter((t) => hasTable(db, t)).reduce(
    (n, t) => n + Number((db.query(`SELECT count(*) AS n FROM ${t}_terms WHERE doc = ?`).get(seq) as { n: bigint }).n),
    0,
  );

const openDb = (home: string) => new Database(join(home, ".store", "history.db"), { safeIntegers: true });

describe("substring index writes", () => {
  test("add, rm-message, reset and rm keep it in step, and leave no removed text in it", async () => {
    const { home, api } = openTemp({ now: () => NOW, env: ENV });
    try {
      const pad = " filler".repeat(30);
      api.add("a", { role: "user", content: `first zorblax-alpha note${pad}`, sendAt: NOW - 10_000n });
      for (let i = 0; i < 20; i++)
        api.add("a", { role: "user", content: `middle ${i} quexfrob-beta${pad}`, sendAt: NOW - 9_000n + BigInt(i) });
      api.add("b", { role: "user", content: "in b: wumpcake-gamma && more", sendAt: NOW - 100n });
      api.add("c", { role: "user", content: "in c: plinketh-delta", sendAt: NOW - 50n });
      const db = openDb(home);
      try {
        expect(trigramReady(db)).toBe(true);
        const seqOf = (text: string) =>
          BigInt((db.query("SELECT seq FROM messages WHERE content LIKE ?").get(`%${text}%`) as { seq: bigint }).seq);
        const alpha = seqOf("zorblax-alpha"); // archived by compaction by now: still indexed
        expect(indexed(db, "ZORBLAX-alpha")).toEqual([alpha]);
        expect(indexed(db, "quexfrob-beta").length).toBe(20);
        const gamma = seqOf("wumpcake-gamma");
        expect(indexed(db, "wumpcake-gamma &&")).toEqual([gamma]);

        const id = (api.history("b")[0] as { id: string }).id;
        await api.rmMessage(id);
        expect(indexed(db, "wumpcake-gamma")).toEqual([]);
        expect(leftovers(db, gamma)).toBe(0);

        const delta = seqOf("plinketh-delta");
        api.reset("c");
        expect(indexed(db, "plinketh-delta")).toEqual([]);
        expect(leftovers(db, delta)).toBe(0);

        api.remove("a");
        expect(indexed(db, "zorblax-alpha")).toEqual([]);
        expect(indexed(db, "quexfrob-beta")).toEqual([]);
        expect(leftovers(db, alpha)).toBe(0);
      } finally {
        db.close();
      }
      expect((await api.search({ query: "zorblax" })).hits).toEqual([]);
    } finally {
      api.close();
    }
  });

  test("a message whose text grows (import) is indexed with its new text", () => {
    const db = openDatabase(join(tempHome(), "history.db"));
    try {
      const [seq] = db.transaction(() =>
        insertMessages(db, "s", [{ id: "m1", role: "assistant", content: "partial reply", sendAt: NOW }], NOW),
      )();
      expect(indexed(db, "partial reply")).toEqual([seq!]);
      db.transaction(() => replaceMessageContent(db, "s", "m1", "partial reply, then the grizzlewort ending"))();
      expect(indexed(db, "grizzlewort ending")).toEqual([seq!]);
      expect(indexed(db, "partial reply")).toEqual([seq!]);
      db.transaction(() => replaceMessageContent(db, "s", "m1", "rewritten entirely"))();
      expect(indexed(db, "grizzlewort")).toEqual([]);
    } finally {
      db.close();
    }
  });
});

const TOPICS = ["deploy the server", "payment refund", "std::vector && c > d", "ÄRGER im Büro", "東京の会議"];

/** Make the home look as if made before the substring index (schema version 7, so without 009's changes either). */
function toSchema7(home: string): void {
  const db = new Database(join(home, ".store", "history.db"));
  try {
    db.transaction(() => {
      undoV06(db);
      db.run("DROP TABLE index_tokens_build");
      db.run("ALTER TABLE messages DROP COLUMN index_tokens");
      db.run("DROP TABLE messages_trigram_terms");
      db.run("DROP TABLE messages_trigram");
      db.run("DROP TABLE trigram_build");
      db.run("PRAGMA user_version = 7");
    })();
  } finally {
    db.close();
  }
}

const QUERIES = ["deploy", "ärger", "&&", "c > d", "::", "会議", "refund"];

async function allResults(home: string): Promise<Record<string, string[]>> {
  const { api } = openTemp({ home, now: () => NOW, env: ENV });
  try {
    const out: Record<string, string[]> = {};
    for (const q of QUERIES) {
      out[q] = (await api.search({ query: q, limit: 500 })).hits.map((h) => h.message.id).sort();
      out[`${q} in beta`] = (await api.search({ query: q, session: "beta", limit: 500 })).hits
        .map((h) => h.message.id)
        .sort();
    }
    return out;
  } finally {
    api.close();
  }
}

describe("substring index build", () => {
  test("a home made before it: search keeps the scan until the build is complete; the build resumes after a kill; add never waits for it", async () => {
    const { home, api: first } = openTemp({ now: () => NOW, env: ENV });
    try {
      for (let round = 0; round < 60; round += 10)
        for (const s of ["alpha", "beta"])
          first.add(
            s,
            Array.from({ length: 10 }, (_, i) => ({
              role: "user" as const,
              content: `${s} ${round + i}: ${TOPICS[(round + i) % TOPICS.length]}`,
              sendAt: NOW - BigInt(1000 - round - i) * 1_000_000_000n,
            })),
          );
    } finally {
      first.close();
    }
    const expected = await allResults(home);
    expect(expected["c > d"]!.length).toBe(24);
    expect(expected.ärger!.length).toBe(24);
    toSchema7(home);

    // Reopened: migrated to the empty index, not complete, so search stays on the scan.
    const { api } = openTemp({ home, now: () => NOW, env: ENV });
    try {
      expect(api.indexUpgrade().done).toBe(false);
      expect(await allResults(home)).toEqual(expected);
    } finally {
      api.close();
    }

    // A child builds in small slow steps and is killed once it has made progress.
    await upgradeUntilKilled(home, { batch: 10, what: "build progress" });

    const { api: again } = openTemp({ home, now: () => NOW, env: ENV });
    try {
      const mid = again.indexUpgrade();
      expect(mid.done).toBe(false);
      expect(mid.copied).toBeGreaterThan(0);
      expect(mid.copied).toBeLessThan(mid.total);
      // Half built: search still finds every match (the index alone would miss the rows not built yet).
      expect(await allResults(home)).toEqual(expected);
      // add goes on meanwhile; its row is left to the build (it comes after the cursor).
      again.add("beta", { role: "user", content: "late: c > d again", sendAt: NOW });
      const r = await again.upgradeIndex({ batch: 7 });
      expect(r.done).toBe(true);
      expect(again.indexUpgrade().done).toBe(true);
      const db = openDb(home);
      try {
        expect(trigramReady(db)).toBe(true);
        expect(indexed(db, "late: c > d again").length).toBe(1);
        expect(indexed(db, "c > d").length).toBe(25);
      } finally {
        db.close();
      }
      const late = (await again.search({ query: "c > d", limit: 500 })).hits.map((h) => h.message.id).sort();
      expect(late.length).toBe(25);
      expect(late.filter((id) => !expected["c > d"]!.includes(id)).length).toBe(1);
      // A tier this small is scanned; through the index, search finds the same.
      const scanned = await allResults(home);
      const rows = SCANNED_TIER.rows;
      SCANNED_TIER.rows = 0;
      try {
        expect(await allResults(home)).toEqual(scanned);
      } finally {
        SCANNED_TIER.rows = rows;
      }
    } finally {
      again.close();
    }
  }, 120_000);

  test("memvoy doctor --migrate builds it with the keyword index", async () => {
    const { home, api } = openTemp({ now: () => NOW, env: ENV });
    try {
      api.add("s", [
        { role: "user", content: "one && two", sendAt: NOW - 2n },
        { role: "user", content: "three", sendAt: NOW - 1n },
      ]);
    } finally {
      api.close();
    }
    toSchema7(home);
    const r = await cli(["doctor", "--migrate"], { home });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("keyword index: upgraded (2 messages");
    const db = openDb(home);
    try {
      expect(trigramReady(db)).toBe(true);
      expect(indexed(db, "one && two").length).toBe(1);
    } finally {
      db.close();
    }
  }, 60_000);
});

/** Bytes of the recent table's index pages. */
const dataBytes = (db: Database) =>
  Number((db.query("SELECT sum(length(block)) AS n FROM messages_trigram_data").get() as { n: bigint }).n);

/** Where each message's row is: the index tables holding it (its vocabulary rows), by seq. */
function placement(db: Database): Map<bigint, { recent: boolean; tables: string[] }> {
  const out = new Map<bigint, { recent: boolean; tables: string[] }>();
  for (const r of db.query("SELECT seq, recent FROM messages").all() as { seq: bigint; recent: bigint }[])
    out.set(BigInt(r.seq), { recent: Number(r.recent) === 1, tables: [] });
  for (const t of TABLES)
    if (hasTable(db, t))
      for (const r of db.query(`SELECT DISTINCT doc FROM ${t}_terms`).all() as { doc: bigint }[])
        out.get(BigInt(r.doc))?.tables.push(t);
  return out;
}

/** Every row in one table: its tier's once the split has placed it (seq <= cursor, or done), else the recent one. */
function expectPlaced(db: Database): { cursor: bigint; done: boolean } {
  const s = db.query("SELECT cursor, done FROM trigram_split").get() as { cursor: bigint; done: bigint };
  const [cursor, done] = [BigInt(s.cursor), Number(s.done) === 1];
  const wrong: string[] = [];
  for (const [seq, p] of placement(db)) {
    const want = !p.recent && (done || seq <= cursor) ? "messages_trigram_archived" : "messages_trigram";
    if (p.tables.length !== 1 || p.tables[0] !== want)
      wrong.push(`${seq} ${p.recent ? "recent" : "archived"}: ${p.tables}`);
  }
  expect(wrong).toEqual([]);
  return { cursor, done };
}

/** Fill a home with two sessions whose oldest messages are archived (ENV's small history limit; turns of two). */
function fillTwo(api: ReturnType<typeof openTemp>["api"], rounds = 60): void {
  for (let round = 0; round < rounds; round += 10)
    for (const s of ["alpha", "beta"])
      api.add(
        s,
        Array.from({ length: 10 }, (_, i) => ({
          role: i % 2 === 0 ? ("user" as const) : ("assistant" as const),
          content: `${s} ${round + i}: ${TOPICS[(round + i) % TOPICS.length]}`,
          sendAt: NOW - BigInt(1000 - round - i) * 1_000_000_000n,
        })),
      );
}

describe("substring index by tier", () => {
  test("a new home: each row in its tier's table, compaction moves it, a repair places rows again", () => {
    const { home, api } = openTemp({ now: () => NOW, env: ENV });
    try {
      fillTwo(api);
      const db = openDb(home);
      try {
        expect(expectPlaced(db).done).toBe(true);
        const tiers = [...placement(db).values()];
        expect(tiers.filter((p) => p.recent).length).toBeGreaterThan(0);
        expect(tiers.filter((p) => !p.recent).length).toBeGreaterThan(60);
        // A recent row that compaction archives moves with it.
        const recentBefore = (
          db.query("SELECT min(seq) AS s FROM messages WHERE session_id = 'alpha' AND recent = 1").get() as {
            s: bigint;
          }
        ).s;
        api.add("alpha", [
          { role: "user", content: `new ${"words ".repeat(200)}`, sendAt: NOW },
          { role: "assistant", content: `reply ${"words ".repeat(200)}`, sendAt: NOW + 1n },
        ]);
        const moved = placement(db).get(BigInt(recentBefore))!;
        expect(moved).toEqual({ recent: false, tables: ["messages_trigram_archived"] });
        expectPlaced(db);
        // doctor's repair sets tiers from history.json again: the rows follow.
        db.run("UPDATE messages SET recent = 1 WHERE session_id = 'beta'");
        markRecent(
          db,
          "beta",
          api.history("beta").map((m) => m.id),
          NOW,
        );
        expectPlaced(db);
      } finally {
        db.close();
      }
    } finally {
      api.close();
    }
  });

  test("a home made with one table: same results before, during and after the split; it resumes after a kill; writes during it keep every row in place", async () => {
    const { home, api: first } = openTemp({ now: () => NOW, env: ENV });
    try {
      // gamma's few rows come first: the split passes them while they are still recent.
      first.add("gamma", [
        { role: "user", content: "gamma asks: c > d?", sendAt: NOW - 2_000_000_000_000n },
        { role: "assistant", content: "gamma hears: yes", sendAt: NOW - 1_999_000_000_000n },
      ]);
      fillTwo(first);
    } finally {
      first.close();
    }
    const expected = await allResults(home);
    let blocksBefore = 0;
    const db0 = openDb(home);
    try {
      db0.transaction(() => undoV06(db0))();
      expect(indexedIn(db0, "messages_trigram", "c > d").length).toBe(25); // every tier in one table
      blocksBefore = dataBytes(db0);
    } finally {
      db0.close();
    }
    {
      const { api } = openTemp({ home, now: () => NOW, env: ENV });
      try {
        expect(api.indexUpgrade().done).toBe(false);
        const db = openDb(home);
        try {
          expect(expectPlaced(db)).toEqual({ cursor: 0n, done: false });
        } finally {
          db.close();
        }
      } finally {
        api.close();
      }
    }
    expect(await allResults(home)).toEqual(expected);

    // A child splits in small slow steps and is killed once it has made progress.
    await upgradeUntilKilled(home, {
      batch: 5,
      setup: `import { SPLIT_SPAN } from ${JSON.stringify(join(repoRoot, "src/storage/sqlite/substring-index-split.ts"))}; SPLIT_SPAN.rows = 12;`,
      what: "split progress",
    });

    const { api } = openTemp({ home, now: () => NOW, env: ENV });
    try {
      const db = openDb(home);
      try {
        const mid = expectPlaced(db);
        expect(mid.done).toBe(false);
        expect(mid.cursor).toBeGreaterThan(0n);
        expect(await allResults(home)).toEqual(expected);
        // Writes meanwhile: new rows, and compaction of rows on both sides of the cursor (gamma's are before it).
        const gamma = db.query("SELECT max(seq) AS s FROM messages WHERE session_id = 'gamma'").get() as { s: bigint };
        expect(BigInt(gamma.s)).toBeLessThanOrEqual(mid.cursor);
        for (const s of ["alpha", "beta", "gamma"])
          api.add(s, [
            { role: "user", content: `late ${s}: c > d again ${"pad ".repeat(600)}`, sendAt: NOW },
            { role: "assistant", content: `noted ${"pad ".repeat(600)}`, sendAt: NOW + 1n },
          ]);
        expectPlaced(db);
        const r = await api.upgradeIndex({ batch: 7 });
        expect(r.done).toBe(true);
        expect(expectPlaced(db).done).toBe(true);
        expect(placement(db).get(BigInt(gamma.s))).toEqual({ recent: false, tables: ["messages_trigram_archived"] });
        // The rows moved out were only marked deleted in the recent table: its last steps merged them away.
        expect(dataBytes(db)).toBeLessThan(blocksBefore / 2);
        expect(indexed(db, "c > d").length).toBe(28);
      } finally {
        db.close();
      }
      const after = await allResults(home);
      expect(after["c > d"]!.length).toBe(28);
      for (const [q, ids] of Object.entries(expected))
        expect({ q, missing: ids.filter((id) => !after[q]!.includes(id)) }).toEqual({ q, missing: [] });
    } finally {
      api.close();
    }
  }, 120_000);
});
