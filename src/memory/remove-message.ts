// rm-message: one message out of history.json, the archive, FTS and (through the vector write lock) LanceDB,
// tombstoned so it cannot come back. Crash-safe like add: the intent is recorded in SQLite first
// (pending_removals), then history.json is rewritten (atomic), then the archive rows go; an interrupted
// removal is finished by the next open. A summary that already covered the message stays unless dropSummary.
import { refuseUnchangeable } from "./deletion-folders.ts";
import { existsSync, rmSync } from "node:fs";
import type { StoredMessage } from "../shared/message.ts";
import { assertSessionId } from "../shared/session-id.ts";
import { NS_PER_SEC } from "../shared/time.ts";
import { CorruptHistoryError, forgetHistoryCache, readHistory } from "../storage/history/history-file.ts";
import { deleteOneMessage, getMessagesById, purgeDeletedFromFts } from "../storage/sqlite/messages-repo.ts";
import { scrubDatabase } from "../storage/sqlite/open-database.ts";
import { deleteSummaryRun, getSummaryRun, restartSummaryRun } from "../storage/sqlite/summary-runs-repo.ts";
import { addTombstones, idTombstone } from "../storage/sqlite/tombstones-repo.ts";
import { withWriteLock } from "../storage/sqlite/write-lock.ts";
import { UNDER_HOME_LOCK, rollForward } from "./crash-recovery.ts";
import { removeStaleTempFiles } from "../shared/stale-temp-files.ts";
import { reconcileHistory } from "./history-reconcile.ts";
import { withHomeLock } from "./home-lock.ts";
import type { MemoryContext } from "./memory-context.ts";
import { ensureBackfilled } from "./sessions-list.ts";
import { UnknownMessageError } from "./message-lookup.ts";
import { removeKeptCopies } from "./kept-copies.ts";
import { finishing, finishSessionDeletion } from "./session-admin.ts";
import { isSessionDeletion, pendingSessionDeletions } from "../storage/sqlite/pending-removals-repo.ts";

// Loaded when a removal needs it: every open runs finishPendingRemovals, and search never reads summaries.
const summaryStore = () => require("./summary/summary-store.ts") as typeof import("./summary/summary-store.ts");

export { UnknownMessageError };

export interface RemoveMessageResult {
  id: string;
  session: string;
  /** The message was still in history.json (the recent tier). */
  wasRecent: boolean;
  /** The rolling summary had already covered the message (its text may live on there). */
  summarized: boolean;
  /** summary.json and the cursor were removed too (dropSummary). */
  summaryRemoved: boolean;
  /** Copies kept by doctor --repair that held the removed text, removed too (home-relative); absent when none. */
  keptCopiesRemoved?: string[];
}

/** The session holding a message id, if any. */
export function messageSession(ctx: MemoryContext, messageId: string): string | undefined {
  return getMessagesById(ctx.db, [messageId])[0]?.session;
}

export function removeMessage(
  ctx: MemoryContext,
  sessionId: string,
  messageId: string,
  options: { dropSummary?: boolean } = {},
): RemoveMessageResult {
  assertSessionId(sessionId);
  ensureBackfilled(ctx, sessionId);
  return withHomeLock(
    ctx,
    () => {
      const m = getMessagesById(ctx.db, [messageId])[0];
      if (!m || m.session !== sessionId)
        throw new UnknownMessageError({ id: messageId, where: `session ${JSON.stringify(sessionId)}` });
      const summarized = coveredBySummary(ctx, m);
      // A history.json memvoy cannot take (corrupt, or another session's ids) is refused before anything changes.
      const file = ctx.paths.history(sessionId);
      reconcileHistory(ctx, sessionId, readHistory(file), file, { quick: true });
      refuseUnchangeable("rm-message", sessionId, [ctx.paths.session(sessionId)]);
      withWriteLock(ctx.db, () =>
        ctx.db
          .query("INSERT OR REPLACE INTO pending_removals (message_id, session_id, created_at) VALUES (?, ?, ?)")
          .run(m.id, m.session, ctx.now()),
      );
      // From here the removal is recorded: a failure (a full disk) is finished by the next open, never "nothing
      // was changed".
      return finishing("rm-message", sessionId, 1, () => {
        let summaryRemoved = false;
        if (options.dropSummary) {
          summaryRemoved = existsSync(ctx.paths.summary(sessionId));
          rmSync(ctx.paths.summary(sessionId), { force: true });
          rmSync(ctx.paths.cursor(sessionId), { force: true });
          withWriteLock(ctx.db, () => deleteSummaryRun(ctx.db, sessionId));
        } else if (!summarized && summaryStore().summaryRunHeld(ctx, sessionId)) {
          // A run in flight may have read the message: its saves are refused, and the next run goes without it.
          withWriteLock(ctx.db, () => restartSummaryRun(ctx.db, sessionId, ctx.now()));
        }
        finishRemoval(ctx, m.session, m.id);
        const result = { id: m.id, session: m.session, wasRecent: m.recent, summarized, summaryRemoved };
        return removeKeptCopies(ctx, m.session, { summary: summaryRemoved }, result);
      });
    },
    sessionId,
  );
}

/** Finish removals a crash interrupted (called when a home is opened). Returns how many were finished. */
export function finishPendingRemovals(ctx: MemoryContext): number {
  const pending = () =>
    ctx.db.query("SELECT message_id, session_id FROM pending_removals").all() as {
      message_id: string;
      session_id: string;
    }[];
  if (pending().length === 0) return 0;
  return withHomeLock(ctx, () => {
    const rows = pending();
    for (const r of rows) if (!isSessionDeletion(r.message_id)) finishRemoval(ctx, r.session_id, r.message_id);
    for (const d of pendingSessionDeletions(ctx.db)) {
      try {
        finishSessionDeletion(ctx, d); // a reset or rm
      } catch {
        // Its session's files cannot be changed now (a permission, a file in the way): it stays recorded and the
        // next open tries again; the home stays usable meanwhile.
      }
    }
    return rows.length;
  }, [...new Set(pending().map((r) => r.session_id))]);
}

/**
 * Idempotent: history.json as the archive has it without the message (nor any message removed before, an old
 * file put back), then its archive rows gone and tombstoned, the FTS index rewritten without it, the WAL
 * checkpointed and truncated (old frames hold the text), and only then the intent cleared.
 */
function finishRemoval(ctx: MemoryContext, session: string, id: string): void {
  const file = ctx.paths.history(session);
  try {
    if (existsSync(file) && rollForward(ctx, session).rewritten) forgetHistoryCache(file);
  } catch (err) {
    // Found corrupt since the removal began: left to doctor --repair (which leaves the removed message out), as
    // every open finishes a pending removal and none could run.
    if (!(err instanceof CorruptHistoryError)) throw err;
  }
  removeStaleTempFiles(ctx.paths.session(session), UNDER_HOME_LOCK); // a dead writer's copy of the text
  withWriteLock(ctx.db, () => {
    const m = getMessagesById(ctx.db, [id])[0];
    if (m && m.session === session) deleteOneMessage(ctx.db, m, ctx.now());
    addTombstones(ctx.db, [idTombstone(id)], ctx.now());
  });
  withWriteLock(ctx.db, () => purgeDeletedFromFts(ctx.db));
  scrubDatabase(ctx.db);
  withWriteLock(ctx.db, () => ctx.db.query("DELETE FROM pending_removals WHERE message_id = ?").run(id));
}

/** Whether the summary already went past the message: by the exact position, else by the cursor's second. */
function coveredBySummary(ctx: MemoryContext, m: StoredMessage): boolean {
  if (!existsSync(ctx.paths.summary(m.session))) return false;
  const cursor = summaryStore().readCursor(ctx, m.session);
  const p = getSummaryRun(ctx.db, m.session)?.position;
  if (p && cursor.state === "ok" && p.cursor === cursor.text) return m.seq <= p.seq;
  return cursor.state === "ok" && m.sendAt < cursor.ns + NS_PER_SEC;
}
