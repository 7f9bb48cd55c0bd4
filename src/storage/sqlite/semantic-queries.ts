// SQL for semantic and hybrid search: participants, session neighbours, and bm25 ranking of recent rows.
import type { MessageFilter } from "../../shared/time-filter.ts";
import { andFilter } from "./message-filter-sql.ts";
import type { Database } from "bun:sqlite";
import { andWhere } from "./sql-where.ts";
import type { StoredMessage } from "../../shared/message.ts";
import { MESSAGE_COLUMNS, toStored } from "./messages-repo.ts";

type Row = Parameters<typeof toStored>[0];
const COLS = MESSAGE_COLUMNS.split(", ")
  .map((c) => "m." + c)
  .join(", ");

/**
 * Distinct senders (of one session, or of all), walked through the sender index one name at a time, so
 * the cost grows with the number of names, not of messages.
 */
export function knownSenders(db: Database, session?: string, limit = 500): string[] {
  const next = db.query("SELECT min(sender) AS s FROM messages WHERE sender IS NOT NULL AND sender > ?");
  const inSession = db.query(
    "SELECT 1 FROM messages WHERE sender IS NOT NULL AND sender = ? AND session_id = ? LIMIT 1",
  );
  const out: string[] = [];
  let after = "";
  for (let i = 0; i < limit * 4 && out.length < limit; i++) {
    const row = next.get(after) as { s: string | null } | null;
    if (!row?.s) break;
    after = row.s;
    if (session === undefined || inSession.get(after, session)) out.push(after);
  }
  return out;
}

/**
 * For each hit, up to `before` recent messages before its seq and `after` after it, in the same session, in
 * order: one statement for every hit (the hits travel as JSON).
 */
export function recentNeighboursOf(
  db: Database,
  hits: readonly { session: string; seq: bigint }[],
  before: number,
  after: number,
): StoredMessage[][] {
  const out = hits.map((): StoredMessage[] => []);
  if (hits.length === 0) return out;
  const rows = db
    .query(
      `WITH h(k, sess, at) AS (
         SELECT key, json_extract(value, '$[0]'), CAST(json_extract(value, '$[1]') AS INTEGER) FROM json_each(?1))
       SELECT h.k AS hit, ${COLS} FROM h JOIN messages m ON m.seq IN (
         SELECT seq FROM (SELECT seq FROM messages WHERE session_id = h.sess AND recent = 1 AND seq < h.at
                          ORDER BY seq DESC LIMIT ?2)
         UNION ALL
         SELECT seq FROM (SELECT seq FROM messages WHERE session_id = h.sess AND recent = 1 AND seq > h.at
                          ORDER BY seq ASC LIMIT ?3))
       ORDER BY h.k, m.seq`,
    )
    .all(JSON.stringify(hits.map((h) => [h.session, String(h.seq)])), before, after) as (Row & {
    hit: number | bigint;
  })[];
  for (const r of rows) out[Number(r.hit)]!.push(toStored(r));
  return out;
}

export interface RecentFilter extends MessageFilter {
  session?: string;
}

/** Only the newest this many matches are ranked (bm25 over every match of a common term is slow). */
export const RECENT_RANK_WINDOW = 2_000;

/** Recent rows matching an FTS5 expression, best bm25 first (rank: lower is better). */
export function rankRecent(
  db: Database,
  match: string,
  f: RecentFilter,
  limit: number,
): { message: StoredMessage; rank: number }[] {
  // FTS5 seeks by rowid range: bound it to the session's recent seqs so other sessions' matches are skipped.
  let lo = 0n;
  let hi = 9_223_372_036_854_775_807n;
  if (f.session !== undefined) {
    const r = db
      .query("SELECT min(seq) AS lo, max(seq) AS hi FROM messages WHERE session_id = ? AND recent = 1")
      .get(f.session) as {
      lo: bigint | null;
      hi: bigint | null;
    };
    if (r.lo === null || r.hi === null) return [];
    lo = r.lo;
    hi = r.hi;
  }
  const boundary = db
    .query(
      "SELECT rowid AS r FROM messages_fts WHERE messages_fts MATCH ? AND rowid BETWEEN ? AND ? ORDER BY rowid DESC LIMIT 1 OFFSET ?",
    )
    .get(match, lo, hi, RECENT_RANK_WINDOW) as { r: bigint } | null;
  if (boundary) lo = boundary.r + 1n;
  const args: (string | bigint | number)[] = [match, lo, hi];
  let sql =
    // CROSS JOIN keeps FTS5 outside: driven by messages, SQLite would run the whole MATCH once per row.
    `SELECT ${COLS}, bm25(messages_fts) AS rank FROM messages_fts CROSS JOIN messages m ON m.seq = messages_fts.rowid ` +
    "WHERE messages_fts MATCH ? AND messages_fts.rowid BETWEEN ? AND ? AND m.recent = 1";
  sql = andWhere(sql, args, "m.session_id = ?", f.session);
  sql = andFilter(sql, args, f, "m.");
  sql += " ORDER BY rank LIMIT ?";
  args.push(limit);
  const rows = db.query(sql).all(...args) as (Row & { rank: number })[];
  return rows.map((r) => ({ message: toStored(r), rank: r.rank }));
}
