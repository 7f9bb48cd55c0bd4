// The home's writer lock (.store/write.lock): held around every change to a history.json and its archive rows.
// While it is held the lock file names the holder's pid and the session it writes; a clean release empties it.
// So a lock file that is not empty when the lock is taken means its last holder died mid-write: the session
// it names is rolled forward from SQLite and stale temp files are removed, before anything else happens. A
// session whose stale temp file could not be removed, or whose roll-forward failed, stays named (a release leaves
// it), so it is tried again.
import { ftruncateSync, fstatSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ensureDirIn } from "../shared/atomic-write.ts";
import { lockFree, lockHeldElsewhere, withFileLock } from "../shared/file-lock.ts";
import { isSessionId } from "../shared/session-id.ts";
import { recoverSessions } from "./crash-recovery.ts";
import { withDbChecked } from "../storage/sqlite/db-in-place.ts";
import type { MemoryContext } from "./memory-context.ts";

const lockPath = (ctx: MemoryContext) => join(ctx.paths.store, "write.lock");

/** Resolves once no other process holds the home's writer lock (see lockFree): a server awaits it before a write. */
export function homeLockFree(ctx: MemoryContext): Promise<void> {
  return lockFree(lockPath(ctx));
}

/** Whether another process holds the home's writer lock now. */
export function homeLockHeld(ctx: MemoryContext): boolean {
  return lockHeldElsewhere(lockPath(ctx));
}

export function withHomeLock<T>(ctx: MemoryContext, fn: () => T, session?: string | readonly string[]): T {
  // A home deleted or replaced under this process is refused before anything is written (the archive in place
  // means its folder is there too); the writes under the lock need not check it again.
  return withDbChecked(ctx.db, (known) => {
    if (!known) ensureDirIn(ctx.paths.store);
    return underHomeLock(ctx, fn, session);
  });
}

function underHomeLock<T>(ctx: MemoryContext, fn: () => T, session?: string | readonly string[]): T {
  const path = lockPath(ctx);
  let kept: string[] = [];
  return withFileLock(path, fn, undefined, {
    acquired(fd) {
      const empty = fstatSync(fd).size === 0; // a clean release emptied it (the usual case): nothing to truncate
      const left = empty ? [] : markedSessions(readFileSync(path, "utf8"));
      const mine = session === undefined ? [] : typeof session === "string" ? [session] : [...session];
      mark(fd, [...new Set([...left, ...mine])], empty);
      if (left.length === 0) return;
      // A session whose dead writer's temp file could not be removed, or whose roll-forward failed, stays marked:
      // the next holder tries again.
      kept = recoverSessions(ctx, left)
        .filter((r) => r.keptTempFiles.length > 0 || r.failed !== undefined)
        .map((r) => r.session);
      mark(fd, [...new Set([...kept, ...mine])], false);
    },
    releasing(fd) {
      if (kept.length > 0) mark(fd, kept, false);
      else ftruncateSync(fd, 0);
    },
  });
}

/** Replace the lock file's content (opened for appending) with this process and the sessions it writes. */
function mark(fd: number, sessions: string[], empty: boolean): void {
  if (!empty) ftruncateSync(fd, 0);
  writeSync(fd, `${process.pid}\n${sessions.map((s) => `${s}\n`).join("")}`);
}

function markedSessions(text: string): string[] {
  return text
    .split("\n")
    .slice(1)
    .filter((s) => s !== "" && isSessionId(s));
}
