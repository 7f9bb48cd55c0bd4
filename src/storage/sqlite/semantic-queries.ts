// SQL for semantic and hybrid search: participants, session neighbours, and bm25 ranking of recent rows.
import type { Database } from "bun:sqlite";
import type { StoredMessage } from "../../shared/message.ts";
import { MESSAGE_COLUMNS, toStored } from "./messages-repo.ts";

type Row = Parameters<typeof toStored>[0];
const COLS = MESSAGE_COLUMNS.split(", ").map((c) => "m." + c).join(", ");

/**
 * Distinct senders (of one session, or of all), walked through the sender index one name at a time, so
 * the cost grows with the number of names, not of messages.
 */
export function knownSenders(db: Database, session?: string, limit = 500): string[] {
  const next = db.query("SELECT min(sender) AS s FROM messages WHERE sender IS NOT NULL AND sender > ?");
  const inSession = db.query("SELECT 1 FROM messages WHERE sender IS NOT NULL AND sender = ? AND session_id = ? LIMIT 1");
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

/** Up to `before` recent messages before `seq` and `after` after it, in the same session, in order. */
export function recentNeighbours(db: Database, session: string, seq: bigint, before: number, after: number): StoredMessage[] {
  const prev = db
    .query(`SELECT ${COLS} FROM messages m WHERE m.session_id = ? AND m.recent = 1 AND m.seq < ? ORDER BY m.seq DESC LIMIT ?`)
    .all(session, seq, before) as Row[];
  const next = db
    .query(`SELECT ${COLS} FROM messages m WHERE m.session_id = ? AND m.recent = 1 AND m.seq > ? ORDER BY m.seq ASC LIMIT ?`)
    .all(session, seq, after) as Row[];
  return prev.reverse().concat(next).map(toStored);
}

export interface RecentFilter {
  session?: string;
  since?: bigint;
}

/** Recent rows matching an FTS5 expression, best bm25 first (rank: lower is better). */
export function rankRecent(db: Database, match: string, f: RecentFilter, limit: number): { message: StoredMessage; rank: number }[] {
  const args: (string | bigint | number)[] = [match];
  let sql = `SELECT ${COLS}, bm25(messages_fts) AS rank FROM messages_fts JOIN messages m ON m.seq = messages_fts.rowid WHERE messages_fts MATCH ? AND m.recent = 1`;
  if (f.session !== undefined) (sql += " AND m.session_id = ?"), args.push(f.session);
  if (f.since !== undefined) (sql += " AND m.send_at >= ?"), args.push(f.since);
  sql += " ORDER BY rank LIMIT ?";
  args.push(limit);
  const rows = db.query(sql).all(...args) as (Row & { rank: number })[];
  return rows.map((r) => ({ message: toStored(r), rank: r.rank }));
}
