// summary_runs: per session, the last summary run (outcome, chunks, tokens) and the exact position reached;
// plus the archive reader Generate uses (messages after a seq, or after a time).
import type { Database } from "bun:sqlite";
import type { StoredMessage } from "../../shared/message.ts";
import { MESSAGE_COLUMNS, toStored } from "./messages-repo.ts";

export interface SummaryPosition {
  seq: bigint;
  id: string;
  /** The .summary_cursor text written with this position. */
  cursor: string;
}

export interface SummaryRunRow {
  session: string;
  startedAt: bigint;
  finishedAt?: bigint;
  outcome: string;
  error?: string;
  chunksDone: number;
  chunksTotal: number;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  position?: SummaryPosition;
  pending?: SummaryPosition & { sha: string };
}

interface Raw {
  session_id: string;
  started_at: bigint;
  finished_at: bigint | null;
  outcome: string;
  error: string | null;
  chunks_done: bigint;
  chunks_total: bigint;
  calls: bigint;
  input_tokens: bigint;
  output_tokens: bigint;
  position_seq: bigint | null;
  position_id: string | null;
  cursor_text: string | null;
  pending_seq: bigint | null;
  pending_id: string | null;
  pending_cursor: string | null;
  pending_sha: string | null;
}

export function getSummaryRun(db: Database, session: string): SummaryRunRow | undefined {
  const r = db.query("SELECT * FROM summary_runs WHERE session_id = ?").get(session) as Raw | null;
  if (!r) return undefined;
  const row: SummaryRunRow = {
    session: r.session_id,
    startedAt: r.started_at,
    outcome: r.outcome,
    chunksDone: Number(r.chunks_done),
    chunksTotal: Number(r.chunks_total),
    calls: Number(r.calls),
    inputTokens: Number(r.input_tokens),
    outputTokens: Number(r.output_tokens),
  };
  if (r.finished_at !== null) row.finishedAt = r.finished_at;
  if (r.error !== null) row.error = r.error;
  if (r.position_seq !== null && r.position_id !== null && r.cursor_text !== null) {
    row.position = { seq: r.position_seq, id: r.position_id, cursor: r.cursor_text };
  }
  if (r.pending_seq !== null && r.pending_id !== null && r.pending_cursor !== null && r.pending_sha !== null) {
    row.pending = { seq: r.pending_seq, id: r.pending_id, cursor: r.pending_cursor, sha: r.pending_sha };
  }
  return row;
}

/** Start a run: the row is created or reset to "running"; the position and any pending commit are kept. */
export function startSummaryRun(db: Database, session: string, at: bigint): void {
  db.prepare(
    `INSERT INTO summary_runs (session_id, started_at, outcome) VALUES (?1, ?2, 'running')
     ON CONFLICT(session_id) DO UPDATE SET started_at = ?2, finished_at = NULL, outcome = 'running', error = NULL,
       chunks_done = 0, chunks_total = 0, calls = 0, input_tokens = 0, output_tokens = 0`,
  ).run(session, at);
}

export interface RunCounters {
  chunksDone: number;
  chunksTotal: number;
  calls: number;
  inputTokens: number;
  outputTokens: number;
}

export function finishSummaryRun(
  db: Database,
  session: string,
  at: bigint,
  outcome: string,
  c: RunCounters,
  error?: string,
): void {
  db.prepare(
    `UPDATE summary_runs SET finished_at = ?, outcome = ?, error = ?, chunks_done = ?, chunks_total = ?, calls = ?,
       input_tokens = ?, output_tokens = ? WHERE session_id = ?`,
  ).run(at, outcome, error ?? null, c.chunksDone, c.chunksTotal, c.calls, c.inputTokens, c.outputTokens, session);
}

/** Give the run in flight a new start time: its saves, which require the time it recorded, are refused. */
export function restartSummaryRun(db: Database, session: string, at: bigint): void {
  db.prepare("UPDATE summary_runs SET started_at = ? WHERE session_id = ?").run(at, session);
}

/** Phase 1 of a commit: remember what is about to be renamed into place. */
export function setPendingPosition(db: Database, session: string, p: SummaryPosition, sha: string): void {
  db.prepare(
    "UPDATE summary_runs SET pending_seq = ?, pending_id = ?, pending_cursor = ?, pending_sha = ? WHERE session_id = ?",
  ).run(p.seq, p.id, p.cursor, sha, session);
}

/** Phase 2 (or recovery): the position becomes `p` (when given) and the pending commit is cleared. */
export function settlePosition(db: Database, session: string, p: SummaryPosition | undefined): void {
  if (p) {
    // Untimed messages up to the position have reached Generate: they follow the position from now on.
    db.prepare("DELETE FROM untimed_messages WHERE session_id = ? AND seq <= ?").run(session, p.seq);
    db.prepare(
      `UPDATE summary_runs SET position_seq = ?, position_id = ?, cursor_text = ?,
         pending_seq = NULL, pending_id = NULL, pending_cursor = NULL, pending_sha = NULL WHERE session_id = ?`,
    ).run(p.seq, p.id, p.cursor, session);
  } else {
    db.prepare(
      "UPDATE summary_runs SET pending_seq = NULL, pending_id = NULL, pending_cursor = NULL, pending_sha = NULL WHERE session_id = ?",
    ).run(session);
  }
}

/** Forget the position (the summary it belonged to is gone). */
export function clearPosition(db: Database, session: string): void {
  db.prepare(
    "UPDATE summary_runs SET position_seq = NULL, position_id = NULL, cursor_text = NULL WHERE session_id = ?",
  ).run(session);
}

export function deleteSummaryRun(db: Database, session: string): void {
  db.prepare("DELETE FROM summary_runs WHERE session_id = ?").run(session);
}

/** The session's message with this seq and id, if it still exists. */
export function findPositionMessage(db: Database, session: string, seq: bigint, id: string): StoredMessage | undefined {
  const r = db
    .query(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE seq = ? AND id = ? AND session_id = ?`)
    .get(seq, id, session);
  return r ? toStored(r as Parameters<typeof toStored>[0]) : undefined;
}

/**
 * Messages Generate has not summarized yet, in session order: after a seq, or (second-resolution cursor)
 * sent at or after `sinceNs` or with no time of their own (untimed, or send_at = 0).
 */
export function listUnsummarized(
  db: Database,
  session: string,
  from: { afterSeq: bigint } | { sinceNs: bigint } | "all",
): StoredMessage[] {
  let sql = `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = ?`;
  const args: (string | bigint)[] = [session];
  if (from !== "all" && "afterSeq" in from) {
    sql += " AND seq > ?";
    args.push(from.afterSeq);
  } else if (from !== "all") {
    sql += " AND (send_at >= ? OR send_at = 0 OR seq IN (SELECT seq FROM untimed_messages WHERE session_id = ?))";
    args.push(from.sinceNs, session);
  }
  const rows = db.query(sql + " ORDER BY seq").all(...args) as Parameters<typeof toStored>[0][];
  return rows.map(toStored);
}

/** True when some message (of any session) holds this seq. */
export function seqInUse(db: Database, seq: bigint): boolean {
  return db.query("SELECT 1 FROM messages WHERE seq = ?").get(seq) !== null;
}

/** The session's message right before `seq` (by position). */
export function messageBefore(db: Database, session: string, seq: bigint): StoredMessage | undefined {
  const r = db
    .query(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = ? AND seq < ? ORDER BY seq DESC LIMIT 1`)
    .get(session, seq);
  return r ? toStored(r as Parameters<typeof toStored>[0]) : undefined;
}

/** The newest message of a session (by position). */
export function lastSessionMessage(db: Database, session: string): StoredMessage | undefined {
  const r = db
    .query(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = ? ORDER BY seq DESC LIMIT 1`)
    .get(session);
  return r ? toStored(r as Parameters<typeof toStored>[0]) : undefined;
}

/** The newest send time of a session's messages (0 when none). */
export function maxSendAt(db: Database, session: string): bigint {
  const r = db.query("SELECT coalesce(max(send_at), 0) AS m FROM messages WHERE session_id = ?").get(session) as {
    m: bigint;
  };
  return r.m;
}

/** Seqs of a session's untimed messages not yet passed by the summary position. */
export function untimedSeqs(db: Database, session: string): Set<bigint> {
  const rows = db.query("SELECT seq FROM untimed_messages WHERE session_id = ?").all(session) as { seq: bigint }[];
  return new Set(rows.map((r) => r.seq));
}
