// reset (history + archive + vectors; the summary survives unless --all) and rm (everything of a session).
import { refuseUnchangeable } from "./deletion-folders.ts";
import { existsSync, lstatSync, rmSync } from "node:fs";
import { describeError } from "../shared/describe-error.ts";
import { namedError } from "../shared/errors.ts";
import { faultPoint } from "../shared/fault-point.ts";
import { assertSessionId } from "../shared/session-id.ts";
import { refuseSessionSymlinks } from "../storage/history/no-symlink.ts";
import { CorruptHistoryError, forgetHistoryCache, readHistory } from "../storage/history/history-file.ts";
import { deleteSessionMessages, purgeDeletedFromFts } from "../storage/sqlite/messages-repo.ts";
import { deleteSessionRow, getSessionRow } from "../storage/sqlite/sessions-repo.ts";
import { forgetHistoryStamp } from "../storage/sqlite/history-stamps-repo.ts";
import { withWriteLock } from "../storage/sqlite/write-lock.ts";
import { scrubDatabase } from "../storage/sqlite/open-database.ts";
import {
  clearSessionDeletion,
  recordSessionDeletion,
  type PendingSessionDeletion,
} from "../storage/sqlite/pending-removals-repo.ts";
import { deleteSummaryRun } from "../storage/sqlite/summary-runs-repo.ts";
import { unlinkSessionUsage } from "../storage/sqlite/usage-repo.ts";
import { UNDER_HOME_LOCK, rollForward } from "./crash-recovery.ts";
import { removeStaleTempFiles } from "../shared/stale-temp-files.ts";
import { withHomeLock } from "./home-lock.ts";
import { rememberStyle, styleToRemember } from "./history-style.ts";
import { removeKeptCopies } from "./kept-copies.ts";
import type { MemoryContext } from "./memory-context.ts";

export { sessionDirs, unknownSessionDirs } from "./session-dirs.ts";

export const UnknownSessionError = namedError<{ session: string; home: string }>(
  "UnknownSessionError",
  "input",
  (d) => `no such session ${JSON.stringify(d.session)} in ${d.home}`,
);
export type UnknownSessionError = InstanceType<typeof UnknownSessionError>;

/** A folder (or a link, which the commands reading it refuse) at sessions/<id>, or the archive's row: a stray file is none. */
export function sessionExists(ctx: MemoryContext, session: string): boolean {
  const st = lstatSync(ctx.paths.session(session), { throwIfNoEntry: false });
  return (st !== undefined && !st.isFile()) || getSessionRow(ctx.db, session) !== undefined;
}

function requireSession(ctx: MemoryContext, session: string): void {
  assertSessionId(session);
  refuseSessionSymlinks(ctx.paths.session(session));
  if (!sessionExists(ctx, session)) throw new UnknownSessionError({ session, home: ctx.paths.home });
}

export interface ResetResult {
  session: string;
  messagesRemoved: number;
  summaryRemoved: boolean;
  /** Copies kept by doctor --repair that held the removed text, removed too (home-relative); absent when none. */
  keptCopiesRemoved?: string[];
}

/** Clear history.json, the archive rows, the meta and the vectors. summary.json and the cursor survive unless `all`. */
export function resetSession(ctx: MemoryContext, session: string, all = false): ResetResult {
  requireSession(ctx, session);
  const kind = all ? "reset-all" : "reset";
  return withHomeLock(
    ctx,
    () => {
      // A corrupt file is refused (CorruptHistoryError), never deleted unseen. Its form outlives it: the next file
      // memvoy writes is in it (Agenvoy reads only its own).
      const style = styleToRemember(readHistory(ctx.paths.history(session)));
      refuseUnchangeable(kind === "reset-all" ? "reset --all" : "reset", session, [ctx.paths.session(session)]);
      const removed = withWriteLock(ctx.db, () => {
        const now = ctx.now();
        recordSessionDeletion(ctx.db, session, kind, now);
        forgetHistoryStamp(ctx.db, session);
        rememberStyle(ctx, session, style, now);
        return deleteSessionMessages(ctx.db, session, now);
      });
      faultPoint("after-deletion-commit");
      return finishing("reset", session, removed, () => {
        const history = ctx.paths.history(session);
        rmSync(history, { force: true });
        forgetHistoryCache(history);
        removeStaleTempFiles(ctx.paths.session(session), UNDER_HOME_LOCK); // a dead writer's copy of the text
        let summaryRemoved = false;
        if (all) {
          summaryRemoved = (
            require("./summary/summary-store.ts") as typeof import("./summary/summary-store.ts")
          ).removeSummaryFiles(ctx, session);
          withWriteLock(ctx.db, () => forgetSummaryRows(ctx, session));
        }
        purgeText(ctx);
        const result = removeKeptCopies(
          ctx,
          session,
          { summary: all },
          { session, messagesRemoved: removed, summaryRemoved },
        );
        withWriteLock(ctx.db, () => clearSessionDeletion(ctx.db, session, kind));
        return result;
      });
    },
    session,
  );
}

/** Remove the session entirely: its folder, archive rows, meta, vectors and bookkeeping. Error memory stays. */
export function removeSession(ctx: MemoryContext, session: string): ResetResult {
  requireSession(ctx, session);
  return withHomeLock(
    ctx,
    () => {
      refuseUnchangeable("rm", session, [ctx.paths.sessions, ctx.paths.session(session)]);
      const hadSummary = existsSync(ctx.paths.summary(session));
      const removed = withWriteLock(ctx.db, () => {
        const now = ctx.now();
        recordSessionDeletion(ctx.db, session, "rm", now);
        const n = deleteSessionMessages(ctx.db, session, now);
        deleteSessionRow(ctx.db, session);
        forgetHistoryStamp(ctx.db, session);
        forgetSummaryRows(ctx, session, true);
        return n;
      });
      faultPoint("after-deletion-commit");
      return finishing("rm", session, removed, () => {
        rmSync(ctx.paths.session(session), { recursive: true, force: true });
        forgetHistoryCache(ctx.paths.history(session));
        purgeText(ctx);
        const result = removeKeptCopies(
          ctx,
          session,
          { summary: true },
          { session, messagesRemoved: removed, summaryRemoved: hadSummary },
        );
        withWriteLock(ctx.db, () => clearSessionDeletion(ctx.db, session, "rm"));
        return result;
      });
    },
    session,
  );
}

/** A reset or rm whose archive commit went through but whose clean-up failed (a full disk): the next open finishes it. */
export const DeletionUnfinishedError = namedError<{ command: string; session: string; removed: number; why: string }>(
  "DeletionUnfinishedError",
  "runtime",
  (d) =>
    `${d.command} ${d.session}: ${d.removed} message(s) removed, but removing every copy of their text failed (${d.why}); the next memvoy command on this home finishes it`,
);

/** The part of a deletion after its archive commit: a failure there must not read as "nothing was changed". */
export function finishing<T>(command: string, session: string, removed: number, rest: () => T): T {
  try {
    return rest();
  } catch (err) {
    const why = describeError(err)
      .replace(/^no space left on the device; nothing was changed \((.*)\)$/, "no space left on the device: $1")
      .replace(/; nothing was changed/g, "");
    // No cause: describeError would take its full disk for this error's and add "nothing was changed".
    throw new DeletionUnfinishedError({ command, session, removed, why });
  }
}

/**
 * Finish a reset or rm a crash interrupted after its archive rows were deleted (called under the home's lock when
 * a home is opened): history.json without the removed records (a message added since is kept), no dead writer's
 * temp file, the summary of a `reset --all` and the folder of an `rm` removed unless written since, then the
 * full-text index and the WAL purged. Idempotent.
 */
export function finishSessionDeletion(ctx: MemoryContext, d: PendingSessionDeletion): void {
  const dir = ctx.paths.session(d.session);
  let linked = false;
  try {
    refuseSessionSymlinks(dir);
  } catch {
    linked = true; // never followed; the command that names this session refuses it
  }
  if (!linked) {
    const gone = d.kind === "rm" && getSessionRow(ctx.db, d.session) === undefined;
    if (gone) rmSync(dir, { recursive: true, force: true });
    else {
      try {
        if (existsSync(ctx.paths.history(d.session))) rollForward(ctx, d.session);
      } catch (err) {
        if (!(err instanceof CorruptHistoryError)) throw err; // left to doctor --repair, which drops removed records
      }
      removeStaleTempFiles(dir, UNDER_HOME_LOCK);
      if (d.kind === "reset-all" && writtenBefore(ctx.paths.summary(d.session), d.createdAt)) {
        (require("./summary/summary-store.ts") as typeof import("./summary/summary-store.ts")).removeSummaryFiles(
          ctx,
          d.session,
        );
        withWriteLock(ctx.db, () => forgetSummaryRows(ctx, d.session));
      }
    }
    forgetHistoryCache(ctx.paths.history(d.session));
  }
  purgeText(ctx);
  removeKeptCopies(ctx, d.session, { summary: d.kind !== "reset" }, {});
  withWriteLock(ctx.db, () => clearSessionDeletion(ctx.db, d.session, d.kind));
}

function writtenBefore(path: string, ns: bigint): boolean {
  const st = lstatSync(path, { bigint: true, throwIfNoEntry: false });
  return st !== undefined && st.mtimeNs < ns;
}

/** No removed text left in the FTS index's segments, nor in old WAL frames. */
function purgeText(ctx: MemoryContext): void {
  withWriteLock(ctx.db, () => purgeDeletedFromFts(ctx.db));
  scrubDatabase(ctx.db);
}

/**
 * The summary's bookkeeping (last run, exact position) goes with the summary. Token usage rows are an
 * account of calls that were made: reset --all keeps them, rm keeps them without the session's name, so that
 * today's tokens and the daily budget still count them and a new session of that name starts with none.
 */
function forgetSummaryRows(ctx: MemoryContext, session: string, usageToo = false): void {
  deleteSummaryRun(ctx.db, session);
  if (usageToo) unlinkSessionUsage(ctx.db, session);
}
