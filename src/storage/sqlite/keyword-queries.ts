// SQL for keyword search: FTS5 over archived rows (bm25), substring scan over recent rows.
import type { Database } from "bun:sqlite";
import type { StoredMessage } from "../../shared/message.ts";
import { MESSAGE_COLUMNS, toStored } from "./messages-repo.ts";

export interface KeywordFilter {
  session?: string;
  since?: bigint;
}

export interface RankedMessage {
  message: StoredMessage;
  /** bm25 (lower is better) for archive rows; unused for recent rows. */
  rank: number;
}

/** Matches past this many are ranked only among the newest ones (bm25 over every row of a common term is slow). */
export const RANK_WINDOW = 20_000;

function filters(f: KeywordFilter, args: (string | bigint | number)[]): string {
  let sql = "";
  if (f.session !== undefined) (sql += " AND m.session_id = ?"), args.push(f.session);
  if (f.since !== undefined) (sql += " AND m.send_at >= ?"), args.push(f.since);
  return sql;
}

export function searchArchive(db: Database, match: string, f: KeywordFilter, limit: number): RankedMessage[] {
  // Newest-first boundary after RANK_WINDOW matches: cheap (rowid order), and it keeps bm25 work bounded.
  const boundary = db
    .query("SELECT rowid AS r FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?")
    .get(match, RANK_WINDOW) as { r: bigint } | null;
  const args: (string | bigint | number)[] = [match];
  let sql =
    `SELECT ${MESSAGE_COLUMNS.split(", ").map((c) => "m." + c).join(", ")}, bm25(messages_fts) AS rank ` +
    "FROM messages_fts JOIN messages m ON m.seq = messages_fts.rowid WHERE messages_fts MATCH ? AND m.recent = 0";
  if (boundary && f.session === undefined) (sql += " AND messages_fts.rowid > ?"), args.push(boundary.r);
  sql += filters(f, args) + " ORDER BY rank LIMIT ?";
  args.push(limit);
  const rows = db.query(sql).all(...args) as (Parameters<typeof toStored>[0] & { rank: number })[];
  return rows.map((r) => ({ message: toStored(r), rank: r.rank }));
}

/**
 * Recent rows whose text contains every needle (case-insensitive for ASCII in SQL; the caller re-checks
 * with full Unicode case folding). Newest first.
 */
export function scanRecent(db: Database, needles: readonly string[], f: KeywordFilter, limit: number): StoredMessage[] {
  const args: (string | bigint | number)[] = [];
  let sql = `SELECT ${MESSAGE_COLUMNS.split(", ").map((c) => "m." + c).join(", ")} FROM messages m WHERE m.recent = 1`;
  sql += filters(f, args);
  for (const n of needles) {
    sql += " AND instr(lower(m.content), ?) > 0";
    args.push(n);
  }
  sql += " ORDER BY m.seq DESC LIMIT ?";
  args.push(limit);
  return (db.query(sql).all(...args) as Parameters<typeof toStored>[0][]).map(toStored);
}
