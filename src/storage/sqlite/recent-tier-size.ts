// Whether rows have left the recent tier, and whether the tier across sessions holds at most a given number of
// rows, without reading them.
import type { Database } from "bun:sqlite";
import { scoped } from "./write-stamp.ts";

/** Whether any row in scope has left history.json (compaction is the only way, and it always writes meta). */
export function hasArchived(db: Database, session: string | undefined): boolean {
  return session === undefined
    ? scoped(db, "hasArchived", () => db.query("SELECT 1 FROM message_meta LIMIT 1").get() !== null)
    : db.query("SELECT 1 FROM message_meta WHERE session_id = ?").get(session) !== null;
}

/**
 * With nothing archived the tier is the whole table, whose size max(seq) bounds; else its partial index is
 * counted, up to the bound.
 */
export function recentTierAtMost(db: Database, rows: number): boolean {
  const r = hasArchived(db, undefined)
    ? db
        .query("SELECT count(*) AS n FROM (SELECT 1 FROM messages INDEXED BY messages_recent WHERE recent = 1 LIMIT ?)")
        .get(rows + 1)
    : db.query("SELECT coalesce(max(seq), 0) AS n FROM messages").get();
  return Number((r as { n: bigint }).n) <= rows;
}
