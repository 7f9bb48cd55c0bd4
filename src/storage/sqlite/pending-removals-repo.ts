// Whether an rm-message is recorded as under way (pending_removals): what opening a home checks before it
// loads the removal code to finish one.
import type { Database } from "bun:sqlite";

export function hasPendingRemovals(db: Database): boolean {
  return db.query("SELECT 1 FROM pending_removals LIMIT 1").get() !== null;
}
