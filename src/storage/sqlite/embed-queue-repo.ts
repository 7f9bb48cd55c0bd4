// The embedding queue and pending vector deletions (written by the write path, consumed by the drain).
import type { Database } from "bun:sqlite";
import type { StoredMessage } from "../../shared/message.ts";
import { idsWhere, toStored, M_MESSAGE_COLUMNS } from "./messages-repo.ts";
import { REFUSED_MARK, refusedError, withoutRefusedMark } from "../ports/refused-input.ts";

export interface VectorDelete {
  id: bigint;
  session: string;
  beforeSeq: bigint;
}

export interface QueuedMessage {
  message: StoredMessage;
  attempts: number;
  /** Content of the message before it in its session, if any. */
  previous?: string;
}

const seqList = (seqs: readonly bigint[]) => JSON.stringify(seqs.map(String));

export function pendingVectorDeletes(db: Database): VectorDelete[] {
  const rows = db.query("SELECT id, session_id, before_seq FROM vector_deletes ORDER BY id").all() as {
    id: bigint;
    session_id: string;
    before_seq: bigint;
  }[];
  return rows.map((r) => ({ id: r.id, session: r.session_id, beforeSeq: r.before_seq }));
}

export function clearVectorDeletes(db: Database, upToId: bigint): void {
  db.prepare("DELETE FROM vector_deletes WHERE id <= ?").run(upToId);
}

/** Message ids whose vectors are to be deleted (rm-message). */
export function pendingVectorIdDeletes(db: Database): string[] {
  return (db.query("SELECT id FROM vector_id_deletes ORDER BY created_at").all() as { id: string }[]).map((r) => r.id);
}

export function clearVectorIdDeletes(db: Database, ids: readonly string[]): void {
  const del = db.query("DELETE FROM vector_id_deletes WHERE id = ?");
  for (const id of ids) del.run(id);
}

/** Drop queue entries whose message is gone or has left the recent tier. */
export function pruneQueue(db: Database): number {
  return db.prepare("DELETE FROM embed_queue WHERE seq NOT IN (SELECT seq FROM messages WHERE recent = 1)").run()
    .changes;
}

/**
 * Due entries (next_try_at <= now), oldest first, with the previous message's text in the same session.
 * CROSS JOIN keeps the queue as the outer loop: otherwise SQLite scans every recent message per batch.
 */
export function dueMessages(db: Database, now: bigint, limit: number): QueuedMessage[] {
  const cols = M_MESSAGE_COLUMNS;
  const rows = db
    .query(
      `SELECT ${cols}, q.attempts AS attempts,
         (SELECT p.content FROM messages p WHERE p.session_id = m.session_id AND p.seq < m.seq ORDER BY p.seq DESC LIMIT 1) AS previous
       FROM embed_queue q CROSS JOIN messages m ON m.seq = q.seq
       WHERE q.next_try_at <= ? AND m.recent = 1 ORDER BY q.seq LIMIT ?`,
    )
    .all(now, limit) as (Parameters<typeof toStored>[0] & { attempts: bigint; previous: string | null })[];
  return rows.map((r) => {
    const q: QueuedMessage = { message: toStored(r), attempts: Number(r.attempts) };
    if (r.previous !== null) q.previous = r.previous;
    return q;
  });
}

export function dueCount(db: Database, now: bigint): number {
  const r = db.query("SELECT count(*) AS n FROM embed_queue WHERE next_try_at <= ?").get(now) as { n: bigint };
  return Number(r.n);
}

/** The earliest time (ns) a queued entry deferred past `now` is due again; undefined when none is deferred. */
export function nextTryAt(db: Database, now: bigint): bigint | undefined {
  const r = db.query("SELECT min(next_try_at) AS at FROM embed_queue WHERE next_try_at > ?").get(now) as {
    at: bigint | number | null;
  };
  return r.at === null ? undefined : BigInt(r.at);
}

/**
 * The seqs still queued for the same message (a reset or compaction may have removed some meanwhile, and
 * a seq freed by deleted rows can be reused by a newer message).
 */
export function stillQueued(db: Database, items: readonly { seq: bigint; id: string }[]): Set<bigint> {
  if (items.length === 0) return new Set();
  const rows = db
    .query(
      "SELECT q.seq AS seq, m.id AS id FROM embed_queue q JOIN messages m ON m.seq = q.seq WHERE q.seq IN (SELECT value FROM json_each(?))",
    )
    .all(seqList(items.map((i) => i.seq))) as { seq: bigint; id: string }[];
  const want = new Map(items.map((i) => [i.seq, i.id]));
  return new Set(rows.filter((r) => want.get(r.seq) === r.id).map((r) => r.seq));
}

/** Of these ids, those of messages in the recent tier. */
export function recentIdsAmong(db: Database, ids: readonly string[]): Set<string> {
  return idsWhere(db, ids, "recent = 1");
}

/** Those of `ids` the archive still holds (in either tier). */
export function heldIdsAmong(db: Database, ids: readonly string[]): Set<string> {
  return idsWhere(db, ids, "1");
}

/** Remove the queue entries of these messages (by seq, and only while the seq still holds that id). */
export function dequeue(db: Database, items: readonly { seq: bigint; id: string }[]): void {
  if (items.length === 0) return;
  db.prepare(
    "DELETE FROM embed_queue WHERE seq IN (SELECT m.seq FROM messages m JOIN json_each(?) j ON m.id = j.value)",
  ).run(JSON.stringify(items.map((i) => i.id)));
}

/** Record a failed attempt: the entries wait `delayNs` before the next try. */
export function deferQueued(
  db: Database,
  seqs: readonly bigint[],
  error: string,
  now: bigint,
  delayNs: (attempts: number) => bigint,
): void {
  const get = db.prepare("SELECT attempts FROM embed_queue WHERE seq = ?");
  const set = db.prepare("UPDATE embed_queue SET attempts = ?, last_error = ?, next_try_at = ? WHERE seq = ?");
  for (const seq of seqs) {
    const row = get.get(seq) as { attempts: bigint } | null;
    if (!row) continue;
    const attempts = Number(row.attempts) + 1;
    set.run(attempts, error, now + delayNs(attempts), seq);
  }
}

/** Queued messages still in the recent tier (optionally of one session). */
export function queuedCount(db: Database, session?: string): number {
  return countOf(
    db,
    "SELECT count(*) AS n FROM embed_queue q CROSS JOIN messages m ON m.seq = q.seq WHERE m.recent = 1",
    "m.session_id",
    session,
  );
}

/** The count `sql` gives, narrowed to one session by `column` when `session` is given. */
function countOf(db: Database, sql: string, column: string, session: string | undefined): number {
  const narrowed = session !== undefined ? `${sql} AND ${column} = ?` : sql;
  const r = (session !== undefined ? db.query(narrowed).get(session) : db.query(narrowed).get()) as { n: bigint };
  return Number(r.n);
}

/** The latest error of a try that failed for another reason than the embedder refusing the message itself. */
export function lastQueueError(db: Database): string | undefined {
  const r = db
    .query(
      `SELECT last_error FROM embed_queue WHERE last_error IS NOT NULL AND last_error NOT LIKE '${REFUSED_MARK}%' ORDER BY next_try_at DESC LIMIT 1`,
    )
    .get() as { last_error: string } | null;
  return r?.last_error;
}

export { refusedError };

/** Queued recent messages (optionally of one session) whose last try the embedder refused, with its latest error. */
export function refusedQueued(db: Database, session?: string): { count: number; error?: string } {
  const where = `q.last_error LIKE '${REFUSED_MARK}%' AND m.recent = 1${session !== undefined ? " AND m.session_id = ?" : ""}`;
  const from = `FROM embed_queue q CROSS JOIN messages m ON m.seq = q.seq WHERE ${where}`;
  const args = session !== undefined ? [session] : [];
  const n = db.query(`SELECT count(*) AS n ${from}`).get(...args) as { n: bigint };
  if (Number(n.n) === 0) return { count: 0 };
  const last = db.query(`SELECT q.last_error AS e ${from} ORDER BY q.next_try_at DESC LIMIT 1`).get(...args) as {
    e: string;
  };
  return { count: Number(n.n), error: withoutRefusedMark(last.e) };
}

export function recentCount(db: Database, session?: string): number {
  return countOf(db, "SELECT count(*) AS n FROM messages WHERE recent = 1", "session_id", session);
}

/** Queue every recent message (reindex) and make every entry due now. */
export function makeQueueDue(db: Database): void {
  db.prepare("UPDATE embed_queue SET next_try_at = 0").run();
}

export function requeueRecent(db: Database): number {
  const n = db
    .prepare("INSERT OR IGNORE INTO embed_queue (seq) SELECT seq FROM messages WHERE recent = 1")
    .run().changes;
  db.prepare("UPDATE embed_queue SET next_try_at = 0, attempts = 0, last_error = NULL").run();
  return n;
}

export function getEmbedState(db: Database, key: string): string | undefined {
  const r = db.query("SELECT value FROM embed_state WHERE key = ?").get(key) as { value: string } | null;
  return r?.value;
}

export function setEmbedState(db: Database, key: string, value: string | undefined): void {
  if (value === undefined) db.prepare("DELETE FROM embed_state WHERE key = ?").run(key);
  else
    db.prepare(
      "INSERT INTO embed_state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    ).run(key, value);
}
