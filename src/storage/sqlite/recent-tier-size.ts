// Whether the recent tier across sessions holds at most a given number of rows, without reading them.
import type { Database } from "bun:sqlite";

/**
 * With nothing archived (compaction, the only way out of the tier, always writes message_meta) the tier is
 * the whole table, whose size max(seq) bounds; else its partial index is counted, up to the bound.
 */
export function recentTierAtMost(db: Database, rows: number): boolean {
  const archived = db.query("SELECT 1 FROM message_meta LIMIT 1").get() !== null;
  const r = archived
    ? db
        .query("SELECT count(*) AS n FROM (SELECT 1 FROM messages INDEXED BY messages_recent WHERE recent = 1 LIMIT ?)")
        .get(rows + 1)
    : db.query("SELECT coalesce(max(seq), 0) AS n FROM messages").get();
  return Number((r as { n: bigint }).n) <= rows;
}
