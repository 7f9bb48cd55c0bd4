// Each message's length in keyword-index tokens on its row (messages.index_tokens): what FTS5's docsize
// holds for its text, kept by every write, counted in the background for a home made before the column
// (resumable), and ranking the same whether a row is counted yet or not.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { openDatabase } from "../../src/storage/sqlite/open-database.ts";
import { insertMessages } from "../../src/storage/sqlite/messages-repo.ts";
import { replaceMessageContent } from "../../src/storage/sqlite/message-content-repo.ts";
import { bodyTokens } from "../../src/storage/sqlite/index-tokens.ts";
import { cli, openTemp, removeTempHomes, tempHome } from "../fixture/home.ts";
import { undoV06 } from "../fixture/old-schema.ts";
import { upgradeUntilKilled } from "../fixture/killed-upgrade.ts";

afterAll(removeTempHomes);

const NOW = 1_790_000_000_000_000_000n;
const ENV = { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" };
const TOPICS = [
  "deploy the server tonight",
  "payment refund for the order, refund again",
  "ÄRGER im Büro über Äpfel",
  "東京の会議は明日です",
  "rollback of incident 4711 after the deploys",
  "a very long note " + "with many words ".repeat(80),
];

const openDb = (home: string) => new Database(join(home, ".store", "history.db"), { safeIntegers: true });

/** Rows whose count is not what docsize holds for their text (NULL counts aside). */
function wrongCounts(db: Database): bigint[] {
  const rows = db
    .query(
      "SELECT m.seq, m.index_tokens AS n, d.sz FROM messages m LEFT JOIN messages_fts_docsize d ON d.id = m.seq WHERE m.index_tokens IS NOT NULL",
    )
    .all() as { seq: bigint; n: bigint; sz: Uint8Array | null }[];
  return rows.filter((r) => BigInt(bodyTokens(r.sz) ?? -1) !== r.n).map((r) => r.seq);
}

const uncounted = (db: Database) =>
  Number((db.query("SELECT count(*) AS n FROM messages WHERE index_tokens IS NULL").get() as { n: bigint }).n);

function fill(home: string): void {
  const { api } = openTemp({ home, now: () => NOW, env: ENV });
  try {
    for (let round = 0; round < 60; round += 10)
      for (const s of ["alpha", "beta"])
        api.add(
          s,
          Array.from({ length: 10 }, (_, i) => ({
            role: "user" as const,
            content: `${s} ${round + i}: ${TOPICS[(round + i) % TOPICS.length]}`,
            sendAt: NOW - BigInt(1000 - round - i) * 1_000_000_000n,
          })),
        );
  } finally {
    api.close();
  }
}

const QUERIES = ["deploy", "refund", "ärger", "会議", "rollback incident", "many words", "deploy refund note"];

/** Ids, scores and snippets of ranked searches, across sessions and in one. */
async function ranked(home: string): Promise<unknown[]> {
  const { api } = openTemp({ home, now: () => NOW, env: ENV });
  try {
    const out: unknown[] = [];
    for (const q of QUERIES)
      for (const session of [undefined, "beta"])
        out.push(
          (await api.search({ query: q, session, limit: 30 })).hits.map((h) => [h.message.id, h.score, h.snippet]),
        );
    return out;
  } finally {
    api.close();
  }
}

/** Make the home one made before the column (schema version 8): the next open migrates it, every count missing. */
function toSchema8(home: string): void {
  const db = openDb(home);
  try {
    db.transaction(() => {
      undoV06(db);
      db.run("DROP TABLE index_tokens_build");
      db.run("ALTER TABLE messages DROP COLUMN index_tokens");
      db.run("PRAGMA user_version = 8");
    })();
  } finally {
    db.close();
  }
}

describe("index token counts", () => {
  test("every write keeps the count docsize holds; a replaced text is counted again", () => {
    const db = openDatabase(join(tempHome(), "history.db"));
    try {
      const seqs = db.transaction(() =>
        insertMessages(
          db,
          "s",
          TOPICS.map((content, i) => ({ id: `m${i}`, role: "user" as const, content, sendAt: NOW + BigInt(i) })),
          NOW,
        ),
      )();
      expect(uncounted(db)).toBe(0);
      expect(wrongCounts(db)).toEqual([]);
      const before = db.query("SELECT index_tokens AS n FROM messages WHERE seq = ?").get(seqs[0]!) as { n: bigint };
      db.transaction(() => replaceMessageContent(db, "s", "m0", `${TOPICS[0]} and then a much longer ending`))();
      const after = db.query("SELECT index_tokens AS n FROM messages WHERE seq = ?").get(seqs[0]!) as { n: bigint };
      expect(after.n).toBeGreaterThan(before.n);
      expect(wrongCounts(db)).toEqual([]);
    } finally {
      db.close();
    }
  });

  test("a home made before the column: same ranking uncounted, half counted and counted; the count resumes after a kill; add never waits for it", async () => {
    const { home } = openTemp({ now: () => NOW, env: ENV });
    fill(home);
    const expected = await ranked(home);
    toSchema8(home);
    {
      const { api } = openTemp({ home, now: () => NOW, env: ENV });
      try {
        expect(api.indexUpgrade().done).toBe(false);
      } finally {
        api.close();
      }
    }
    expect(await ranked(home)).toEqual(expected);

    // A child counts in small slow steps and is killed once it has made progress.
    await upgradeUntilKilled(home, {
      batch: 10,
      // Steps of the count, the upgrade's part before the long messages' starts and the scan for İ and the Kelvin
      // sign (each part counts 120 messages).
      until: (lines) =>
        lines.filter((l) => {
          const [done, total] = l.split("/").map(Number);
          return done! > total! - 360 && done! < total! - 240;
        }).length >= 3,
      what: "count progress",
    });

    const db = openDb(home);
    try {
      const left = uncounted(db);
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThan(120);
      expect(wrongCounts(db)).toEqual([]);
    } finally {
      db.close();
    }
    expect(await ranked(home)).toEqual(expected);

    const { api } = openTemp({ home, now: () => NOW, env: ENV });
    try {
      const mid = api.indexUpgrade();
      expect(mid.done).toBe(false);
      expect(mid.copied).toBeGreaterThan(0);
      expect(mid.copied).toBeLessThan(mid.total);
      // add goes on meanwhile and counts its own row.
      api.add("beta", { role: "user", content: "late: deploy the refund", sendAt: NOW });
      const r = await api.upgradeIndex({ batch: 7 });
      expect(r.done).toBe(true);
      expect(api.indexUpgrade().done).toBe(true);
    } finally {
      api.close();
    }
    const done = openDb(home);
    try {
      expect(uncounted(done)).toBe(0);
      expect(wrongCounts(done)).toEqual([]);
    } finally {
      done.close();
    }
    const late = await ranked(home);
    expect(JSON.stringify(late[0])).toContain("late: deploy the refund");
  }, 120_000);

  test("memvoy doctor --migrate counts them", async () => {
    const { home } = openTemp({ now: () => NOW, env: ENV });
    fill(home);
    toSchema8(home);
    const r = await cli(["doctor", "--migrate"], { home });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("keyword index: upgraded (120 messages");
    const db = openDb(home);
    try {
      expect(uncounted(db)).toBe(0);
      expect(wrongCounts(db)).toEqual([]);
    } finally {
      db.close();
    }
    expect((await cli(["doctor", "--migrate"], { home })).stdout).toContain("keyword index: up to date");
  }, 60_000);
});
