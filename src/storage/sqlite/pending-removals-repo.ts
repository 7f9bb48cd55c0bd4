// What opening a home checks before it loads the removal code: an rm-message recorded as under way
// (pending_removals), or a reset / rm whose archive rows are gone but whose text may still be in history.json,
// the full-text index or the WAL. A session deletion is a row of its own there, its message_id `:KIND:SESSION`
// (a colon is in no message id), so a crash after its commit is finished by the next open as an rm-message is.
import type { Database } from "bun:sqlite";

export function hasPendingRemovals(db: Database): boolean {
  return db.query("SELECT 1 FROM pending_removals LIMIT 1").get() !== null;
}

/** reset (the summary kept), reset --all (the summary removed too) or rm (the whole session). */
export type SessionDeletionKind = "reset" | "reset-all" | "rm";

export interface PendingSessionDeletion {
  session: string;
  kind: SessionDeletionKind;
  /** When the deletion was committed (ns). */
  createdAt: bigint;
}

const KINDS: readonly string[] = ["reset", "reset-all", "rm"];
const sentinel = (kind: SessionDeletionKind, session: string) => `:${kind}:${session}`;

/** Record a session deletion as under way (in the transaction that deletes its rows). */
export function recordSessionDeletion(db: Database, session: string, kind: SessionDeletionKind, now: bigint): void {
  db.query("INSERT OR REPLACE INTO pending_removals (message_id, session_id, created_at) VALUES (?, ?, ?)").run(
    sentinel(kind, session),
    session,
    now,
  );
}

/** The deletion is finished: its text is gone from every file. */
export function clearSessionDeletion(db: Database, session: string, kind: SessionDeletionKind): void {
  db.query("DELETE FROM pending_removals WHERE message_id = ?").run(sentinel(kind, session));
}

/** Whether a pending_removals row is a session deletion rather than one message's removal. */
export const isSessionDeletion = (messageId: string) => messageId.startsWith(":");

export function pendingSessionDeletions(db: Database): PendingSessionDeletion[] {
  const rows = db
    .query("SELECT message_id, session_id, created_at FROM pending_removals WHERE message_id LIKE ':%'")
    .all() as { message_id: string; session_id: string; created_at: bigint | number }[];
  return rows.flatMap((r) => {
    const kind = r.message_id.slice(1, r.message_id.indexOf(":", 1));
    return KINDS.includes(kind)
      ? [{ session: r.session_id, kind: kind as SessionDeletionKind, createdAt: BigInt(r.created_at) }]
      : [];
  });
}
