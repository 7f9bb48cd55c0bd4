// LLM token usage rows: one per call (time, session, purpose, model, input and output tokens).
import type { Database } from "bun:sqlite";

export interface UsageRow {
  at: bigint;
  session?: string;
  purpose: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  /**
   * When the call was sent: the row names its session only if that session's row is from then or before (a
   * session removed while the call went on, or removed and made again, is not charged with it; the row stays).
   */
  sentAt?: bigint;
}

export interface UsageTotal {
  purpose: string;
  model: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
}

export function insertUsage(db: Database, u: UsageRow): void {
  db.prepare(
    `INSERT INTO llm_usage (at, session_id, purpose, model, input_tokens, output_tokens)
     VALUES (?1, CASE WHEN ?7 IS NULL OR EXISTS (SELECT 1 FROM sessions WHERE id = ?2 AND created_at <= ?7) THEN ?2 END,
       ?3, ?4, ?5, ?6)`,
  ).run(u.at, u.session ?? null, u.purpose, u.model, u.inputTokens, u.outputTokens, u.sentAt ?? null);
}

/** Totals per purpose and model for one session, optionally since a time (inclusive). */
export function sessionUsageTotals(db: Database, session: string, since?: bigint): UsageTotal[] {
  const rows = db
    .query(
      `SELECT purpose, model, count(*) AS calls, sum(input_tokens) AS input, sum(output_tokens) AS output
       FROM llm_usage WHERE session_id = ?1 AND at >= ?2 GROUP BY purpose, model ORDER BY purpose, model`,
    )
    .all(session, since ?? 0n) as { purpose: string; model: string; calls: bigint; input: bigint; output: bigint }[];
  return rows.map((r) => ({
    purpose: r.purpose,
    model: r.model,
    calls: Number(r.calls),
    inputTokens: Number(r.input),
    outputTokens: Number(r.output),
  }));
}

/** The session's usage rows stay (the calls were made and paid for: the daily budget counts them), no longer naming it. */
export function unlinkSessionUsage(db: Database, session: string): number {
  return db.prepare("UPDATE llm_usage SET session_id = NULL WHERE session_id = ?").run(session).changes;
}
