// Token usage read back: the total since a time (the daily budget), and rows by UTC day, model and session.
import type { Database } from "bun:sqlite";
import { usageDayOf, type UsageByDay, type UsageDayRow } from "../ports/usage-rows.ts";

export function tokensSince(db: Database, since: bigint): number {
  const r = db
    .query("SELECT coalesce(sum(input_tokens + output_tokens), 0) AS n FROM llm_usage WHERE at >= ?")
    .get(since) as { n: bigint | number };
  return Number(r.n);
}

export type { UsageByDay };

export function usageByDay(db: Database, since: bigint): UsageByDay[] {
  const rows = db
    .query(
      `SELECT date(at / 1000000000, 'unixepoch') AS day, model, session_id, count(*) AS calls, sum(input_tokens) AS input, sum(output_tokens) AS output
       FROM llm_usage WHERE at >= ? GROUP BY day, model, session_id ORDER BY day DESC, model, session_id`,
    )
    .all(since) as UsageDayRow[];
  return rows.map(usageDayOf);
}
