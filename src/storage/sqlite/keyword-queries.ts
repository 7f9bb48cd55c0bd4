// SQL for keyword search: FTS5 over archived rows (bm25 within a newest-matches window), substring scan over recent rows.
import type { Database } from "bun:sqlite";
import { andWhere, type SqlArg } from "./sql-where.ts";
import type { StoredMessage } from "../../shared/message.ts";
import type { MessageFilter } from "../../shared/time-filter.ts";
import { MESSAGE_COLUMNS, toStored } from "./messages-repo.ts";
import { andFilter } from "./message-filter-sql.ts";

export interface KeywordFilter extends MessageFilter {
  session?: string;
}

export interface RankedMessage {
  message: StoredMessage;
  /** bm25 (lower is better) for archive rows; unused for recent rows. */
  rank: number;
}

/**
 * Only the newest this-many matches (of the session, when one is given) are ranked: bm25 costs about a
 * microsecond per matching row, so a common term would otherwise cost a scan of every row holding it.
 */
export const RANK_WINDOW = 2_000;

const COLS = MESSAGE_COLUMNS.split(", ").map((c) => "m." + c).join(", ");
type Row = Parameters<typeof toStored>[0];

/** Whether any row in scope has left history.json (compaction is the only way, and it always writes meta). */
function hasArchived(db: Database, session: string | undefined): boolean {
  return session === undefined
    ? db.query("SELECT 1 FROM message_meta LIMIT 1").get() !== null
    : db.query("SELECT 1 FROM message_meta WHERE session_id = ?").get(session) !== null;
}

/** One windowed match: its seq, its bm25, and whether it is still in history.json (recent). */
export type WindowMatch = [seq: bigint, rank: number, recent: bigint | number];

// Whether a match is recent, read from the small covering index instead of the table row.
const RECENT_FLAG = "EXISTS (SELECT 1 FROM messages r INDEXED BY messages_recent_text WHERE r.seq = messages_fts.rowid AND r.recent = 1)";

/**
 * The newest RANK_WINDOW matches with their bm25 and recent flag, in one FTS pass (rowid order is FTS5's
 * native order, so the LIMIT stops the scan). For one session the pass is bounded by the session's seq
 * span and filtered against its seqs before bm25 is computed.
 */
function windowMatches(db: Database, match: string, session: string | undefined, size: number, ranked: boolean): WindowMatch[] {
  // Without bm25 the scan stops after `size` matches; bm25 first reads every row list of the query's terms.
  const rank = ranked ? "bm25(messages_fts)" : "0";
  if (session === undefined) {
    return db
      .query(`SELECT rowid, ${rank}, ${RECENT_FLAG} FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rowid DESC LIMIT ?`)
      .values(match, size) as WindowMatch[];
  }
  const span = db
    .query(
      "SELECT (SELECT seq FROM messages WHERE session_id = ?1 ORDER BY seq ASC LIMIT 1) AS lo, (SELECT seq FROM messages WHERE session_id = ?1 ORDER BY seq DESC LIMIT 1) AS hi",
    )
    .get(session) as { lo: bigint | null; hi: bigint | null };
  if (span.lo === null || span.hi === null) return [];
  return db
    .query(
      `SELECT rowid, ${rank}, ${RECENT_FLAG} FROM messages_fts WHERE messages_fts MATCH ?1 AND rowid >= ?2 AND rowid <= ?3 ` +
        "AND +rowid IN (SELECT seq FROM messages WHERE session_id = ?4) ORDER BY rowid DESC LIMIT ?5",
    )
    .values(match, span.lo, span.hi, session, size) as WindowMatch[];
}

const CHUNK = 32;

export type Tier = "archive" | "recent";

/** Rows of the tier among `seqs` (at most CHUNK) passing the filter. */
function tierRows(db: Database, seqs: readonly bigint[], f: KeywordFilter, tier: Tier): Row[] {
  const args: SqlArg[] = seqs.slice();
  while (args.length < CHUNK) args.push(0); // seq 0 never exists
  let sql = `SELECT ${COLS} FROM messages m WHERE m.seq IN (${"?,".repeat(CHUNK - 1)}?) AND m.recent = ${tier === "recent" ? 1 : 0}`;
  sql = andFilter(sql, args, f, "m.");
  return db.query(sql).all(...args) as Row[];
}

/**
 * FTS matches in one tier: the archive (rows no longer in history.json) or the recent rows; bm25-ranked,
 * or with `newest` the newest matches first and no bm25 (fast for a common word: results while typing).
 * `windows` may carry the FTS passes of earlier calls of the same search (same expression and session).
 */
export function searchFts(
  db: Database,
  match: string,
  f: KeywordFilter,
  limit: number,
  tier: Tier = "archive",
  windows?: Map<string, WindowMatch[]>,
  newest = false,
): RankedMessage[] {
  if (tier === "archive" && !hasArchived(db, f.session)) return [];
  const key = `${f.session ?? ""}\0${match}\0${newest}`;
  let window = windows?.get(key);
  if (!window) {
    window = windowMatches(db, match, f.session, newest ? Math.max(limit * 8, 200) : RANK_WINDOW, !newest);
    windows?.set(key, window);
  }
  const flag = tier === "recent" ? 1 : 0;
  const inTier = window.filter((w) => Number(w[2]) === flag);
  const ranked = newest ? inTier : inTier.sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1)); // ties: oldest first
  // Best rank first; fetch rows chunk by chunk until `limit` pass the filter (usually the first chunk).
  const out: RankedMessage[] = [];
  for (let i = 0; i < ranked.length && out.length < limit; i += CHUNK) {
    const chunk = ranked.slice(i, i + CHUNK);
    const rows = new Map(tierRows(db, chunk.map((c) => c[0]), f, tier).map((r) => [r.seq, r]));
    for (const [seq, rank] of chunk) {
      const r = rows.get(seq);
      if (r && out.length < limit) out.push({ message: toStored(r), rank });
    }
  }
  return out;
}

/** LIKE pattern for a literal substring ("\" escapes). LIKE folds ASCII case only, exactly as lower() does. */
function likePattern(needle: string): string {
  return "%" + needle.replace(/[\\%_]/g, (c) => "\\" + c) + "%";
}

/**
 * Recent rows whose text contains every needle (case-insensitive for ASCII in SQL; the caller re-checks
 * with full Unicode case folding). Newest first. Across sessions the covering index messages_recent_text
 * is scanned newest-first without touching the table; in one session, its recent rows are read.
 */
export function scanRecent(db: Database, needles: readonly string[], f: KeywordFilter, limit: number): StoredMessage[] {
  const args: (string | bigint | number)[] = [];
  let where = "recent = 1";
  where = andWhere(where, args, "session_id = ?", f.session);
  where = andFilter(where, args, f);
  for (const n of needles) {
    // LIKE patterns are capped at 50,000 bytes; instr(lower()) has no cap and means the same.
    if (n.length <= 10_000) {
      where += " AND content LIKE ? ESCAPE '\\'";
      args.push(likePattern(n));
    } else {
      where += " AND instr(lower(content), ?) > 0";
      args.push(n);
    }
  }
  args.push(limit);
  const sql =
    f.session !== undefined
      ? `SELECT ${COLS} FROM messages m WHERE ${where} ORDER BY m.seq DESC LIMIT ?`
      : `SELECT ${COLS} FROM messages m WHERE m.seq IN (SELECT seq FROM messages INDEXED BY messages_recent_text WHERE ${where} ORDER BY seq DESC LIMIT ?) ORDER BY m.seq DESC`;
  return (db.query(sql).all(...args) as Row[]).map(toStored);
}
