// The background FTS upgrade: copy every message into messages_fts_next (text + session token) in short
// transactions from a saved cursor, then swap it in for messages_fts. Resumable after a kill at any point;
// writers keep using messages_fts meanwhile and search keeps today's path until the swap.
import type { Database } from "bun:sqlite";
import { searchForm } from "../../shared/search-form.ts";
import upgradeSql from "./upgrades/fts-session.sql" with { type: "text" };
import { deleteTrigramRows, trigramWriter } from "./substring-index.ts";
import { tokenCountWriter } from "./index-tokens.ts";
import { schemaShape } from "./schema-shape.ts";
import type { SteppedJobOptions, SteppedJobResult } from "./stepped-job.ts";

const NAME = "fts-session";

/** The FTS token that stands for a session: one unicode61 token, the same for the same id in every process. */
export function sessionToken(session: string): string {
  return "s" + Bun.hash.wyhash(session, 0x6d656d766f79n).toString(36);
}

/** Whether messages_fts already carries the session column (checked again whenever the schema changes, e.g. another process swapped it in). */
export function ftsHasSession(db: Database): boolean {
  return schemaShape(db).ftsSession;
}

/**
 * Writes a message's index rows: its searchable form, plus its session token once the index has that
 * column; its length in index tokens (index-tokens.ts); and its substring index row (substring-index.ts), in
 * its tier's table (`recent`, true for a new message). Call inside the write transaction.
 */
export function messageFtsWriter(
  db: Database,
): (seq: bigint, content: string, session: string, recent?: boolean) => void {
  const trigram = trigramWriter(db);
  const tokens = tokenCountWriter(db);
  if (!ftsHasSession(db)) {
    const plain = db.query("INSERT INTO messages_fts (rowid, body) VALUES (?, ?)");
    return (seq, content, _session, recent) => {
      plain.run(seq, searchForm(content));
      tokens(seq);
      trigram(seq, content, recent);
    };
  }
  const fts = db.query("INSERT INTO messages_fts (rowid, body, sess) VALUES (?, ?, ?)");
  let last: [string, string] | undefined;
  return (seq, content, session, recent) => {
    if (last?.[0] !== session) last = [session, sessionToken(session)];
    fts.run(seq, searchForm(content), last[1]);
    tokens(seq);
    trigram(seq, content, recent);
  };
}

/** A home with no message yet gets the new index at once (nothing to copy); called when the database opens. */
export function upgradeEmptyFts(db: Database): void {
  if (ftsHasSession(db) || db.query("SELECT 1 FROM messages LIMIT 1").get() !== null) return;
  db.transaction(() => {
    if (ftsHasSession(db) || db.query("SELECT 1 FROM messages LIMIT 1").get() !== null) return;
    db.run(upgradeSql);
    swap(db);
    db.run("DROP TABLE messages_fts_old");
  }).immediate();
}

function swap(db: Database): void {
  db.run("ALTER TABLE messages_fts RENAME TO messages_fts_old");
  db.run("ALTER TABLE messages_fts_next RENAME TO messages_fts");
  db.run("DROP TABLE fts_upgrade");
}

/**
 * Delete keyword-index rows: from messages_fts, and from the index being built when an upgrade is under
 * way (it may already hold copies), and from the substring index. `seqs` is SQL selecting the seqs, with its
 * arguments. Every removal of messages goes through here, so no removed text lingers in any index.
 */
export function deleteFtsRows(db: Database, seqs: string, ...args: (string | bigint | number)[]): void {
  db.prepare(`DELETE FROM messages_fts WHERE rowid IN (${seqs})`).run(...args);
  if (db.query("SELECT 1 FROM sqlite_master WHERE name = 'messages_fts_next'").get() !== null) {
    db.prepare(`DELETE FROM messages_fts_next WHERE rowid IN (${seqs})`).run(...args);
  }
  deleteTrigramRows(db, seqs, ...args);
}

export interface FtsUpgradeState {
  done: boolean;
  /** Messages copied so far / messages in the archive (an estimate while it runs). */
  copied: number;
  total: number;
}

const count = (db: Database, sql: string, ...args: (bigint | number | string)[]) =>
  Number((db.query(sql).get(...args) as { n: bigint }).n);

export function ftsUpgradeState(db: Database): FtsUpgradeState {
  const total = count(db, "SELECT count(*) AS n FROM messages");
  if (ftsHasSession(db)) return { done: true, copied: total, total };
  const started = db.query("SELECT name FROM sqlite_master WHERE name = 'fts_upgrade'").get() !== null;
  const cursor = started
    ? ((db.query("SELECT cursor FROM fts_upgrade WHERE name = ?").get(NAME) as { cursor: bigint } | null)?.cursor ?? 0n)
    : 0n;
  return {
    done: false,
    copied: cursor > 0n ? count(db, "SELECT count(*) AS n FROM messages WHERE seq <= ?", cursor) : 0,
    total,
  };
}

export type FtsUpgradeOptions = SteppedJobOptions;

/** `done`: true once messages_fts carries the session column. */
export type FtsUpgradeResult = SteppedJobResult;

/**
 * Run (or resume) the upgrade until it is done or `signal` aborts. Each step copies `batch` messages after
 * the cursor and moves the cursor in the same transaction; the last step also swaps the tables. The old
 * index is dropped in a transaction of its own (a kill before that leaves it to the next run).
 */
export async function upgradeFts(db: Database, options: FtsUpgradeOptions = {}): Promise<FtsUpgradeResult> {
  const started = performance.now();
  const batch = Math.max(1, options.batch ?? 500);
  const pause = options.pauseMs ?? 2;
  let longest = 0;
  let copied = 0;
  const finish = (done: boolean): FtsUpgradeResult => ({
    done,
    copied,
    longestStepMs: longest,
    ms: performance.now() - started,
  });
  if (!ftsHasSession(db)) {
    await options.waitForWriters?.();
    db.transaction(() => {
      db.run(upgradeSql);
      db.query("INSERT OR IGNORE INTO fts_upgrade (name, cursor, started) VALUES (?, 0, ?)").run(NAME, Date.now());
    }).immediate();
    const total = count(db, "SELECT count(*) AS n FROM messages");
    let done = count(
      db,
      "SELECT count(*) AS n FROM messages WHERE seq <= (SELECT cursor FROM fts_upgrade WHERE name = ?)",
      NAME,
    );
    const read = db.query("SELECT seq, session_id, content FROM messages WHERE seq > ? ORDER BY seq LIMIT ?");
    const insert = db.query("INSERT INTO messages_fts_next (rowid, body, sess) VALUES (?, ?, ?)");
    const move = db.query("UPDATE fts_upgrade SET cursor = ? WHERE name = ?");
    for (;;) {
      if (options.signal?.aborted) return finish(false);
      await options.waitForWriters?.();
      if (options.signal?.aborted) return finish(false);
      const t = performance.now();
      const swapped = db
        .transaction(() => {
          if (ftsHasSession(db)) return true; // another process finished it
          const cursor = (db.query("SELECT cursor FROM fts_upgrade WHERE name = ?").get(NAME) as { cursor: bigint })
            .cursor;
          const rows = read.all(cursor, batch) as { seq: bigint; session_id: string; content: string }[];
          for (const r of rows) insert.run(r.seq, searchForm(r.content), sessionToken(r.session_id));
          if (rows.length) move.run(rows[rows.length - 1]!.seq, NAME);
          copied += rows.length;
          done += rows.length;
          if (rows.length === batch) return false;
          // Caught up: nothing can be written between this copy and the swap (same write transaction).
          swap(db);
          return true;
        })
        .immediate();
      longest = Math.max(longest, performance.now() - t);
      options.progress?.(Math.min(done, Math.max(total, done)), Math.max(total, done));
      if (swapped) break;
      await Bun.sleep(pause);
    }
  }
  if (db.query("SELECT 1 FROM sqlite_master WHERE name = 'messages_fts_old'").get() !== null) {
    await options.waitForWriters?.();
    const t = performance.now();
    db.run("DROP TABLE IF EXISTS messages_fts_old");
    longest = Math.max(longest, performance.now() - t);
  }
  return finish(true);
}
