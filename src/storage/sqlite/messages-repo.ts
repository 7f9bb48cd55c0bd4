// The message archive in SQLite: insert (with FTS row and embedding-queue entry), read, archive, delete.
import type { Database } from "bun:sqlite";
import type { MessageRecord, Role, StoredMessage } from "../../shared/message.ts";
import { deleteFtsRows, messageFtsWriter } from "./fts-upgrade.ts";
import { messageTextWriter } from "./message-text-writer.ts";
import { archiveTrigramRows, archiveTrigramSeqs, optimizeTrigram } from "./substring-index.ts";
import { andFilter } from "./message-filter-sql.ts";
import type { MessageRange, MessageRow } from "../ports/message-rows.ts";
import { addTombstones, contentTombstone, idTombstone, keyTombstone } from "./tombstones-repo.ts";
import { forgetTitleOfRemoved } from "./session-meta-repo.ts";
import { deletingMessages } from "./agenvoy-triggers.ts";

type Row = MessageRow<bigint>;

export const MESSAGE_COLUMNS = "seq, id, session_id, role, content, send_at, sender, recent";
/** MESSAGE_COLUMNS of the table aliased `m`. */
export const M_MESSAGE_COLUMNS = MESSAGE_COLUMNS.split(", ")
  .map((c) => "m." + c)
  .join(", ");

export function toStored(r: Row): StoredMessage {
  const m: StoredMessage = {
    seq: r.seq,
    id: r.id,
    session: r.session_id,
    role: r.role as Role,
    content: r.content,
    sendAt: r.send_at,
    recent: r.recent === 1n,
  };
  if (r.sender !== null) m.sender = r.sender;
  return m;
}

/**
 * Insert records (in order) for one session; returns their seqs. Call inside a transaction.
 * No RETURNING on the row insert: it makes SQLite open a statement savepoint, and FTS5 flushes its pending
 * terms to a new segment at every savepoint, so each row would cost a segment write plus merge work.
 */
export function insertMessages(
  db: Database,
  session: string,
  records: readonly MessageRecord[],
  now: bigint,
  opts: { queueEmbedding?: boolean; idempotencyKeys?: ReadonlyMap<MessageRecord, string> } = {},
): bigint[] {
  const insert = db.query(
    "INSERT INTO messages (id, session_id, role, content, send_at, sender, idempotency_key) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  const fts = messageFtsWriter(db);
  const beside = messageTextWriter(db);
  const queue = db.query("INSERT INTO embed_queue (seq) VALUES (?)");
  const untimed = db.query("INSERT INTO untimed_messages (seq, session_id) VALUES (?, ?)");
  const seqs: bigint[] = [];
  let lastSendAt = 0n;
  for (const r of records) {
    const key = opts.idempotencyKeys?.get(r) ?? null;
    const seq = BigInt(insert.run(r.id, session, r.role, r.content, r.sendAt, r.sender ?? null, key).lastInsertRowid);
    fts(seq, r.content, session);
    beside(seq, r.content);
    if (opts.queueEmbedding !== false) queue.run(seq);
    if (r.untimed) untimed.run(seq, session);
    seqs.push(seq);
    if (r.sendAt > lastSendAt) lastSendAt = r.sendAt;
  }
  if (records.length > 0) {
    db.query(
      `INSERT INTO sessions (id, created_at, updated_at, last_send_at, message_count) VALUES (?1, ?2, ?2, ?3, ?4)
       ON CONFLICT(id) DO UPDATE SET updated_at = ?2, last_send_at = max(last_send_at, ?3), message_count = message_count + ?4`,
    ).run(session, now, lastSendAt, records.length);
  }
  return seqs;
}

/** Messages in the archive, or those at or before `seq`. */
export const messagesUpTo = (db: Database, seq?: bigint): number =>
  Number(
    (
      (seq === undefined
        ? db.query("SELECT count(*) AS n FROM messages").get()
        : db.query("SELECT count(*) AS n FROM messages WHERE seq <= ?").get(seq)) as { n: bigint }
    ).n,
  );

export function countSessionMessages(db: Database, session: string, since?: bigint, until?: bigint): number {
  const r = db
    .query("SELECT count(*) AS n FROM messages WHERE session_id = ? AND send_at >= ? AND send_at < ?")
    .get(session, since ?? -(2n ** 63n), until ?? 2n ** 63n - 1n) as { n: bigint };
  return Number(r.n);
}

export function sessionHasMessages(db: Database, session: string): boolean {
  return db.query("SELECT 1 FROM messages WHERE session_id = ? LIMIT 1").get(session) !== null;
}

/** Which rows of a session a listing reads. */
export type ListOptions = MessageRange;

export function listSessionMessages(db: Database, session: string, o: ListOptions = {}): StoredMessage[] {
  const where = ["session_id = ?"];
  const args: (string | bigint | number)[] = [session];
  if (o.recentOnly) where.push("recent = 1");
  if (o.archivedOnly) where.push("recent = 0");
  if (o.afterSeq !== undefined) {
    where.push("seq > ?");
    args.push(o.afterSeq);
  }
  if (o.beforeSeq !== undefined) {
    where.push("seq < ?");
    args.push(o.beforeSeq);
  }
  const filtered = andFilter("", args, o.filter);
  if (filtered) where.push(filtered.replace(/^ AND /, ""));
  const order = o.newestFirst ? "DESC" : "ASC";
  const limit = o.limit !== undefined ? ` LIMIT ${Math.max(0, Math.floor(o.limit))}` : "";
  const rows = db
    .query(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE ${where.join(" AND ")} ORDER BY seq ${order}${limit}`)
    .all(...args) as Row[];
  return rows.map(toStored);
}

/** The session's archived rows (no longer in history.json) sent at any of these times, in order. */
export function archivedAtTimes(db: Database, session: string, times: readonly bigint[]): StoredMessage[] {
  if (times.length === 0) return [];
  const rows = db
    .query(
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = ? AND recent = 0 AND send_at IN (SELECT value FROM json_each(?)) ORDER BY seq`,
    )
    .all(session, `[${[...new Set(times)].join(",")}]`) as Row[];
  return rows.map(toStored);
}

export function getMessagesBySeq(db: Database, seqs: readonly bigint[]): StoredMessage[] {
  if (seqs.length === 0) return [];
  const rows = db
    .query(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE seq IN (SELECT value FROM json_each(?)) ORDER BY seq`)
    .all(JSON.stringify(seqs.map(String))) as Row[];
  return rows.map(toStored);
}

export function getMessagesById(db: Database, ids: readonly string[]): StoredMessage[] {
  if (ids.length === 0) return [];
  const rows = db
    .query(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id IN (SELECT value FROM json_each(?)) ORDER BY seq`)
    .all(JSON.stringify(ids)) as Row[];
  return rows.map(toStored);
}

/** Stored messages of a session by idempotency key (keys with no message are absent). */
export function messagesByIdempotencyKey(
  db: Database,
  session: string,
  keys: readonly string[],
): Map<string, StoredMessage> {
  const out = new Map<string, StoredMessage>();
  if (keys.length === 0) return out;
  const rows = db
    .query(
      `SELECT ${MESSAGE_COLUMNS}, idempotency_key FROM messages WHERE session_id = ? AND idempotency_key IN (SELECT value FROM json_each(?))`,
    )
    .all(session, JSON.stringify(keys)) as (Row & { idempotency_key: string })[];
  for (const r of rows) out.set(r.idempotency_key, toStored(r));
  return out;
}

/** Existing ids among these (to adopt only records the archive lacks). */
export function knownIds(db: Database, ids: readonly string[]): Set<string> {
  return idsWhere(db, ids, "1");
}

/** Of these ids, those of messages that meet `condition` (fixed SQL over the messages table). */
export function idsWhere(db: Database, ids: readonly string[], condition: string): Set<string> {
  if (ids.length === 0) return new Set();
  const rows = db
    .query(`SELECT id FROM messages WHERE ${condition} AND id IN (SELECT value FROM json_each(?))`)
    .all(JSON.stringify(ids)) as { id: string }[];
  return new Set(rows.map((r) => r.id));
}

/** The session of each of these ids the archive holds. */
export function sessionsOfIds(db: Database, ids: readonly string[]): Map<string, string> {
  if (ids.length === 0) return new Map();
  const rows = db
    .query("SELECT id, session_id FROM messages WHERE id IN (SELECT value FROM json_each(?))")
    .all(JSON.stringify(ids)) as { id: string; session_id: string }[];
  return new Map(rows.map((r) => [r.id, r.session_id] as const));
}

/** How many rows a session's recent tier holds, and the ids of its first and last (through the tier's index). */
export function recentTierEnds(db: Database, session: string): { count: number; first?: string; last?: string } {
  const r = db
    .query(
      `SELECT (SELECT count(*) FROM messages WHERE session_id = ?1 AND recent = 1) AS n,
              (SELECT id FROM messages WHERE session_id = ?1 AND recent = 1 ORDER BY seq LIMIT 1) AS first,
              (SELECT id FROM messages WHERE session_id = ?1 AND recent = 1 ORDER BY seq DESC LIMIT 1) AS last`,
    )
    .get(session) as { n: bigint | number; first: string | null; last: string | null };
  return { count: Number(r.n), first: r.first ?? undefined, last: r.last ?? undefined };
}

/** Of a session's messages at or before `seq`: how many, how many are recent, and the first recent one's seq. */
export function sessionPrefix(
  db: Database,
  session: string,
  seq: bigint,
): { count: number; recent: number; firstRecent?: bigint } {
  const r = db
    .query(
      `SELECT (SELECT count(*) FROM messages WHERE session_id = ?1 AND seq <= ?2) AS n,
              (SELECT count(*) FROM messages WHERE session_id = ?1 AND recent = 1 AND seq <= ?2) AS r,
              (SELECT seq FROM messages WHERE session_id = ?1 AND recent = 1 AND seq <= ?2 ORDER BY seq LIMIT 1) AS f`,
    )
    .get(session, seq) as { n: bigint | number; r: bigint | number; f: bigint | null };
  return { count: Number(r.n), recent: Number(r.r), firstRecent: r.f ?? undefined };
}

/** The stored text's size in UTF-8 bytes of each of these messages (ids not stored are absent). */
export function contentBytes(db: Database, ids: readonly string[]): Map<string, number> {
  if (ids.length === 0) return new Map();
  const rows = db
    .query("SELECT id, length(CAST(content AS BLOB)) AS n FROM messages WHERE id IN (SELECT value FROM json_each(?))")
    .all(JSON.stringify(ids)) as { id: string; n: bigint | number }[];
  return new Map(rows.map((r) => [r.id, Number(r.n)] as const));
}

/** The seqs of a session's recent messages at or before `seq` (through the recent tier's index). */
export function recentSeqsUpTo(db: Database, session: string, seq: bigint): bigint[] {
  const rows = db
    .query("SELECT seq FROM messages WHERE session_id = ? AND recent = 1 AND seq <= ? ORDER BY seq")
    .all(session, seq) as { seq: bigint }[];
  return rows.map((r) => r.seq);
}

/** The archive seq of one message, by id. */
export function seqOfMessage(db: Database, id: string): bigint | undefined {
  return (db.query("SELECT seq FROM messages WHERE id = ?").get(id) as { seq: bigint } | null)?.seq;
}

/** Compaction: messages before `startSeq` leave the recent tier; their vectors and queue entries go. */

export function archiveBefore(db: Database, session: string, startSeq: bigint, startAt: bigint, now: bigint): void {
  archiveTrigramRows(db, session, startSeq);
  db.prepare("UPDATE messages SET recent = 0 WHERE session_id = ? AND recent = 1 AND seq < ?").run(session, startSeq);
  db.prepare(
    "INSERT INTO message_meta (session_id, start_at, start_seq) VALUES (?1, ?2, ?3) ON CONFLICT(session_id) DO UPDATE SET start_at = ?2, start_seq = ?3",
  ).run(session, startAt, startSeq);
  dropVectors(db, session, startSeq, now);
}

/**
 * A session's recent rows leaving the tier one by one, not from its start (removed from the middle of history.json
 * by the program that writes it too): their vectors and queue entries go. The session's cutoff stays; one is
 * recorded at its first recent row when it had none (the session has archived rows now, which search reads).
 */
export function archiveMessages(db: Database, session: string, seqs: readonly bigint[], now: bigint): void {
  if (seqs.length === 0) return;
  archiveTrigramSeqs(db, seqs);
  const list = JSON.stringify(seqs.map(String));
  db.prepare("DELETE FROM embed_queue WHERE seq IN (SELECT value FROM json_each(?))").run(list);
  db.prepare(
    "INSERT OR IGNORE INTO vector_id_deletes (id, created_at) SELECT id, ? FROM messages WHERE seq IN (SELECT value FROM json_each(?))",
  ).run(now, list);
  db.prepare("UPDATE messages SET recent = 0 WHERE seq IN (SELECT value FROM json_each(?))").run(list);
  db.prepare(
    `INSERT OR IGNORE INTO message_meta (session_id, start_at, start_seq)
     SELECT session_id, send_at, seq FROM messages WHERE session_id = ? AND recent = 1 ORDER BY seq LIMIT 1`,
  ).run(session);
}

/** Queue deletion of the session's vectors below `beforeSeq` and forget their pending embeddings. */
export function dropVectors(db: Database, session: string, beforeSeq: bigint, now: bigint): void {
  db.prepare("DELETE FROM embed_queue WHERE seq IN (SELECT seq FROM messages WHERE session_id = ? AND seq < ?)").run(
    session,
    beforeSeq,
  );
  db.prepare("INSERT INTO vector_deletes (session_id, before_seq, created_at) VALUES (?, ?, ?)").run(
    session,
    beforeSeq,
    now,
  );
}

export function maxSeq(db: Database): bigint {
  const r = db.query("SELECT coalesce(max(seq), 0) AS m FROM messages").get() as { m: bigint };
  return r.m;
}

type RemovedRow = {
  id: string;
  k: string | null;
  role: string;
  content: string;
  sendAt: bigint;
  sender: string | null;
};
const REMOVED_COLUMNS = "id, idempotency_key AS k, role, content, send_at AS sendAt, sender";

/** A removed message's tombstones: its id, its idempotency key, and its content (a copy written back without an id). */
const tombstonesOf = (session: string, r: RemovedRow) => [
  idTombstone(r.id),
  contentTombstone(session, r),
  ...(r.k !== null ? [keyTombstone(session, r.k)] : []),
];

/** Remove every archived message, FTS row, meta row and pending embedding of a session; tombstone them. */
export function deleteSessionMessages(db: Database, session: string, now: bigint): number {
  const bound = maxSeq(db) + 1n;
  dropVectors(db, session, bound, now);
  const rows = db.query(`SELECT ${REMOVED_COLUMNS} FROM messages WHERE session_id = ?`).iterate(session);
  for (const r of rows as Iterable<RemovedRow>) addTombstones(db, tombstonesOf(session, r), now);
  deleteFtsRows(db, "SELECT seq FROM messages WHERE session_id = ?", session);
  forgetTitleOfRemoved(db, session);
  const n = deletingMessages(db, () => db.prepare("DELETE FROM messages WHERE session_id = ?").run(session).changes);
  db.prepare("DELETE FROM untimed_messages WHERE session_id = ?").run(session);
  db.prepare("DELETE FROM message_meta WHERE session_id = ?").run(session);
  // Its last activity is the reset (a removed message's time is shown no more).
  db.prepare("UPDATE sessions SET message_count = 0, last_send_at = 0, updated_at = ? WHERE id = ?").run(now, session);
  return n;
}

export function getStartSeq(db: Database, session: string): { startAt: bigint; startSeq: bigint } | undefined {
  const r = db.query("SELECT start_at, start_seq FROM message_meta WHERE session_id = ?").get(session) as {
    start_at: bigint;
    start_seq: bigint;
  } | null;
  return r ? { startAt: r.start_at, startSeq: r.start_seq } : undefined;
}

/** Remove one archived message: its row, FTS row, queue entry and untimed mark; its vector is scheduled for deletion. */
export function deleteOneMessage(db: Database, m: { seq: bigint; id: string; session: string }, now: bigint): void {
  db.prepare("DELETE FROM embed_queue WHERE seq = ?").run(m.seq);
  const row = db
    .query(`SELECT ${REMOVED_COLUMNS} FROM messages WHERE seq = ? AND id = ?`)
    .get(m.seq, m.id) as RemovedRow | null;
  if (row) addTombstones(db, tombstonesOf(m.session, row), now);
  deleteFtsRows(db, "?", m.seq);
  forgetTitleOfRemoved(db, m.session, m.seq);
  const sent = db.query("SELECT send_at AS t FROM messages WHERE seq = ? AND id = ?").get(m.seq, m.id) as {
    t: bigint;
  } | null;
  const n = deletingMessages(
    db,
    () => db.prepare("DELETE FROM messages WHERE seq = ? AND id = ?").run(m.seq, m.id).changes,
  );
  db.prepare("DELETE FROM untimed_messages WHERE seq = ?").run(m.seq);
  db.prepare("INSERT OR IGNORE INTO vector_id_deletes (id, created_at) VALUES (?, ?)").run(m.id, now);
  if (n > 0) {
    db.prepare("UPDATE sessions SET message_count = max(message_count - 1, 0), updated_at = ? WHERE id = ?").run(
      now,
      m.session,
    );
    // The newest message removed: the session's last activity is the newest one left (none: the removal's time).
    if (sent)
      db.prepare(
        "UPDATE sessions SET last_send_at = coalesce((SELECT max(send_at) FROM messages WHERE session_id = ?1), 0) WHERE id = ?1 AND last_send_at <= ?2",
      ).run(m.session, sent.t);
  }
}

/**
 * Rewrite the full-text index without the rows deleted so far. The index is contentless: a deleted row's
 * terms stay in its segment (only marked deleted) until the segment is rewritten, so a deletion that must
 * leave no text merges the index into one segment (old blocks are then zeroed by secure_delete). Call
 * inside a transaction; the cost grows with the size of the index.
 */
export function purgeDeletedFromFts(db: Database): void {
  db.run("INSERT INTO messages_fts(messages_fts) VALUES ('optimize')");
  if (db.query("SELECT 1 FROM sqlite_master WHERE name = 'messages_fts_next'").get() !== null) {
    db.run("INSERT INTO messages_fts_next(messages_fts_next) VALUES ('optimize')"); // an index upgrade under way
  }
  optimizeTrigram(db);
}

/** Ids of a session's messages whose removal (rm-message) is under way. */
export function pendingRemovalIds(db: Database, session: string): Set<string> {
  const rows = db.query("SELECT message_id FROM pending_removals WHERE session_id = ?").all(session) as {
    message_id: string;
  }[];
  return new Set(rows.map((r) => r.message_id));
}
