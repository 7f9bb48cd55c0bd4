// Counts for `memvoy stats`: messages and text bytes per tier, token usage totals.
import type { Database } from "bun:sqlite";
import { usageSumOf, type UsageSum, type UsageSumRow } from "../ports/usage-rows.ts";

export interface TierCount {
  messages: number;
  /** UTF-8 bytes of the message text. */
  bytes: number;
}

/** Messages and text bytes still in history.json (recent) and only in the archive (archived). */
export function tierCounts(db: Database): { recent: TierCount; archived: TierCount } {
  const rows = db
    .query(
      "SELECT recent, count(*) AS n, coalesce(sum(length(CAST(content AS BLOB))), 0) AS b FROM messages GROUP BY recent",
    )
    .all() as { recent: bigint | number; n: bigint | number; b: bigint | number }[];
  const out = { recent: { messages: 0, bytes: 0 }, archived: { messages: 0, bytes: 0 } };
  for (const r of rows)
    out[Number(r.recent) === 1 ? "recent" : "archived"] = { messages: Number(r.n), bytes: Number(r.b) };
  return out;
}

export type { UsageSum };

/** LLM tokens spent, per purpose and model, over the whole home. */
export function usageSums(db: Database): UsageSum[] {
  const rows = db
    .query(
      "SELECT purpose, model, count(*) AS calls, sum(input_tokens) AS i, sum(output_tokens) AS o FROM llm_usage GROUP BY purpose, model ORDER BY purpose, model",
    )
    .all() as UsageSumRow[];
  return rows.map(usageSumOf);
}
