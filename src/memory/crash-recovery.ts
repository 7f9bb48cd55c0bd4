// Recovery after a writer died holding the lock: SQLite is the journal. A session's history.json is rolled
// forward to the archive's recent rows (so a message committed to SQLite but never renamed into history.json
// is in both, and a compaction cutoff SQLite recorded is applied to the file), and temp files whose owner
// process is dead (or a zombie) are removed.
import { removeStaleTempFiles, staleTempFiles, type StaleTempOptions } from "../shared/stale-temp-files.ts";
import {
  CorruptHistoryError,
  forgetHistoryCache,
  historyStamp,
  readHistory,
  stageHistory,
} from "../storage/history/history-file.ts";
import { refuseSessionSymlinks } from "../storage/history/no-symlink.ts";
import { forgetHistoryStamp, saveHistoryStamp } from "../storage/sqlite/history-stamps-repo.ts";
import { withWriteLock } from "../storage/sqlite/write-lock.ts";
import { leaveWindow, reconcileHistory, type ReconcileOptions } from "./history-reconcile.ts";
import { rememberStyle, styleToRemember, withSessionStyle } from "./history-style.ts";
import type { MemoryContext } from "./memory-context.ts";

/** Under the home's writer lock, only its holder writes a history.json: another process's temp file of it is stale. */
export const UNDER_HOME_LOCK: StaleTempOptions = { heldFile: "history.json" };

export interface RecoveryReport {
  session: string;
  /** Messages the archive held that history.json lacked, now written to it. */
  restored: number;
  /** Whether history.json was rewritten (restored messages, or a compaction cutoff applied). */
  rewritten: boolean;
  removedTempFiles: string[];
  /** Stale temp files still there (their removal failed): the session stays marked for the next holder. */
  keptTempFiles: string[];
  /**
   * Why the roll-forward failed (a file in place of the session folder, a folder in place of history.json, an
   * I/O error): the session stays marked for the next holder, and the write that took the lock goes on.
   */
  failed?: unknown;
}

export function recoverSessions(ctx: MemoryContext, sessions: readonly string[]): RecoveryReport[] {
  const out: RecoveryReport[] = [];
  for (const session of sessions) {
    try {
      refuseSessionSymlinks(ctx.paths.session(session));
    } catch {
      continue; // never followed; the command that names this session refuses it
    }
    const dir = ctx.paths.session(session);
    const removedTempFiles = removeStaleTempFiles(dir, UNDER_HOME_LOCK);
    const keptTempFiles = staleTempFiles(dir, UNDER_HOME_LOCK); // could not be removed
    try {
      out.push({ session, ...rollForward(ctx, session, { restoreAll: true }), removedTempFiles, keptTempFiles });
    } catch (err) {
      // A corrupt history.json is never overwritten: doctor --repair deals with it. Any other failure belongs to
      // that session alone, whose own commands report it: it must not stop a write to another session.
      const report = { session, restored: 0, rewritten: false, removedTempFiles, keptTempFiles };
      out.push(err instanceof CorruptHistoryError ? report : { ...report, failed: err });
    }
  }
  return out;
}

/**
 * Make history.json hold exactly the archive's recent rows, in order, followed by any record the archive has
 * never seen (adopted by the next write); a record removed once is left out, and rows the file's other writer
 * dropped leave the recent tier (history-reconcile.ts). Writes nothing when the two already agree. `quick` and
 * `restoreAll` as in reconcileHistory.
 */
export function rollForward(
  ctx: MemoryContext,
  session: string,
  o: Pick<ReconcileOptions, "quick" | "restoreAll"> = {},
): { restored: number; rewritten: boolean } {
  const file = ctx.paths.history(session);
  for (let attempt = 1; ; attempt++) {
    const doc = withSessionStyle(ctx, session, readHistory(file));
    const c = reconcileHistory(ctx, session, doc, file, o);
    if (!c.changed) return { restored: 0, rewritten: false };
    if (c.dropped > 0) withWriteLock(ctx.db, () => leaveWindow(ctx, session, c, ctx.now()));
    if (doc.stamp === undefined && c.records.length === 0) {
      // Deleted by its other writer (Agenvoy's reset), and nothing to keep: it stays deleted.
      withWriteLock(ctx.db, () => forgetHistoryStamp(ctx.db, session));
      return { restored: 0, rewritten: false };
    }
    const staged = stageHistory(file, c.records, doc.style);
    // Another program (Agenvoy) rewrote the file while this one was staged: read it again rather than drop what
    // it wrote; the last attempt writes whatever happens.
    if (attempt < REREADS && historyStamp(file) !== doc.stamp) {
      staged.discard();
      continue;
    }
    const stamp = staged.stamp(); // the temp file's: taken before the rename
    staged.commit();
    if (c.unseen.length > 0) forgetHistoryCache(file); // not checked yet: the next write (or read) adopts them
    withWriteLock(ctx.db, () => {
      if (c.unseen.length === 0) saveHistoryStamp(ctx.db, session, stamp);
      rememberStyle(ctx, session, styleToRemember(doc, true));
    });
    return { restored: c.restored, rewritten: true };
  }
}

/** How many times rollForward reads a file another program keeps rewriting before it writes its own. */
const REREADS = 5;
