// Saving progress: summary.json and .summary_cursor move together. The position about to be written is
// recorded first (pending, with the new summary's sha256); both files are renamed into place; then the
// position is settled. A crash in between is repaired by the next run: if summary.json is the pending one,
// the cursor is rolled forward, otherwise the pending position is dropped.
import { statSync, utimesSync } from "node:fs";
import { errorMessage } from "../../shared/errors.ts";
import { writeFileAtomic, type StagedFile } from "../../shared/atomic-write.ts";
import { getSummaryRun, setPendingPosition, settlePosition, type SummaryPosition } from "../../storage/sqlite/summary-runs-repo.ts";
import { withWriteLock } from "../../storage/sqlite/write-lock.ts";
import type { MemoryContext } from "../memory-context.ts";
import { readSummaryFile, stageCursor, stageSummary } from "./summary-file.ts";
import type { Summary } from "./summary-types.ts";

/**
 * Save a summary and its cursor. Throws when nothing was saved. Once both files are in place the save has
 * happened: if recording the settled position then fails (a full disk), the pending record lets the next run
 * finish it, and the failure comes back as a note instead of an error.
 */
export function commitProgress(ctx: MemoryContext, session: string, summary: Summary, position: SummaryPosition): string | undefined {
  const { staged: summaryFile, sha } = stageSummary(ctx.paths.summary(session), summary);
  let cursorFile: StagedFile | undefined;
  try {
    cursorFile = stageCursor(ctx.paths.cursor(session), position.cursor);
    withWriteLock(ctx.db, () => setPendingPosition(ctx.db, session, position, sha));
  } catch (err) {
    summaryFile.discard();
    cursorFile?.discard();
    throw err;
  }
  try {
    summaryFile.commit();
  } catch (err) {
    cursorFile.discard();
    throw err;
  }
  cursorFile.commit();
  try {
    withWriteLock(ctx.db, () => settlePosition(ctx.db, session, position));
  } catch (err) {
    return `summary.json and the cursor were saved, but history.db could not record it (${errorMessage(err).replace(/; nothing was changed$/, "")}); the next run completes it`;
  }
  return undefined;
}

/** Only the cursor moves (bootstrap): the summary is left as it is. */
export function commitCursor(ctx: MemoryContext, session: string, position: SummaryPosition): void {
  writeFileAtomic(ctx.paths.cursor(session), position.cursor);
  withWriteLock(ctx.db, () => settlePosition(ctx.db, session, position));
}

/** Finish or drop a commit a crash interrupted. Returns what was done, for the run's notes. */
export function recoverPending(ctx: MemoryContext, session: string): string | undefined {
  const pending = getSummaryRun(ctx.db, session)?.pending;
  if (!pending) return undefined;
  const file = readSummaryFile(ctx.paths.summary(session));
  if (file.state === "ok" && file.sha === pending.sha) {
    writeFileAtomic(ctx.paths.cursor(session), pending.cursor);
    withWriteLock(ctx.db, () => settlePosition(ctx.db, session, pending));
    return `completed an interrupted save: the cursor moved to ${pending.cursor}`;
  }
  withWriteLock(ctx.db, () => settlePosition(ctx.db, session, undefined));
  return "dropped an interrupted save that had not reached summary.json";
}

/**
 * Close the mtime gate as of `sinceMs`: summary.json's mtime becomes the run's start, so a history.json
 * written during the run still counts as newer and the session stays due.
 */
export function closeGate(ctx: MemoryContext, session: string, sinceMs: number): void {
  const path = ctx.paths.summary(session);
  try {
    statSync(path);
  } catch {
    return;
  }
  const t = new Date(sinceMs - 1);
  utimesSync(path, t, t);
}
