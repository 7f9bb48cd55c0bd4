// The per-session files in shared mode: history.json, summary.json and .summary_cursor keep the spec's
// shapes but are caches of the archive (the cursor in this host's local time: shared-cursor.ts). Under the
// session's lock a host rewrites each one (atomically) whose text differs from the archive's, and removes the
// folder of a session the archive no longer has.
import { existsSync, rmSync } from "node:fs";
import type { HomePaths } from "../../config/home.ts";
import { ensureDir, writeFileAtomic } from "../../shared/atomic-write.ts";
import type { MessageRecord, StoredMessage } from "../../shared/message.ts";
import { readText } from "../../storage/history/file-probe.ts";
import { forgetHistoryCache, serializeHistory } from "../../storage/history/history-file.ts";
import { refuseSessionSymlinks } from "../../storage/history/no-symlink.ts";
import type { SummaryText } from "../../storage/ports/archive-port.ts";
import { localCursor } from "./shared-cursor.ts";
import type { SharedContext } from "./shared-context.ts";
import { cursorOfText, type CursorFile } from "../../storage/history/cursor-file.ts";
import { readCursor, readSummary, summaryOfText } from "../../memory/summary/summary-store.ts";
import type { SummaryFile } from "../../memory/summary/summary-types.ts";

export interface SessionCacheState {
  /** The session has a row in the archive. */
  exists: boolean;
  /** Its recent tier, oldest first (history.json). */
  recent: readonly StoredMessage[];
  summary?: SummaryText;
}

const record = ({ id, role, content, sendAt, sender }: StoredMessage): MessageRecord =>
  sender === undefined ? { id, role, content, sendAt } : { id, role, content, sendAt, sender };

/** Bring the session's files in line with the archive; returns whether any file changed. */
export function refreshSessionCache(paths: HomePaths, session: string, state: SessionCacheState): boolean {
  const dir = paths.session(session);
  refuseSessionSymlinks(dir);
  const history = paths.history(session);
  if (!state.exists && state.summary === undefined) {
    if (!existsSync(dir)) return false;
    rmSync(dir, { recursive: true, force: true });
    forgetHistoryCache(history);
    return true;
  }
  if (!existsSync(dir)) ensureDir(dir);
  const changed = cacheFiles(paths, session, state).map(([path, text]) => syncFile(path, text));
  if (changed[0]) forgetHistoryCache(history);
  return changed.some(Boolean);
}

/** Bring summary.json and .summary_cursor in line with the archive's summary state (under the session's lock). */
export function refreshSummaryFiles(paths: HomePaths, session: string, summary: SummaryText | undefined): boolean {
  refuseSessionSymlinks(paths.session(session));
  if (summary) ensureDir(paths.session(session));
  const a = syncFile(paths.summary(session), summary?.summary);
  const b = syncFile(paths.cursor(session), summary && localCursor(summary.cursor));
  return a || b;
}

/** Each cache file of the session and the text the archive gives it (undefined: no such file). */
function cacheFiles(paths: HomePaths, session: string, state: SessionCacheState): [string, string | undefined][] {
  const recent = state.recent.length > 0 ? serializeHistory(state.recent.map(record)) : undefined;
  return [
    [paths.history(session), recent],
    [paths.summary(session), state.summary?.summary],
    [paths.cursor(session), state.summary && localCursor(state.summary.cursor)],
  ];
}

/** What refreshSessionCache would change, without changing it: the stale files, or the folder itself. */
export function staleCacheFiles(paths: HomePaths, session: string, state: SessionCacheState): string[] {
  const dir = paths.session(session);
  refuseSessionSymlinks(dir);
  if (!state.exists && state.summary === undefined) return existsSync(dir) ? [dir] : [];
  return cacheFiles(paths, session, state).flatMap(([path, text]) => (readText(path) === text ? [] : [path]));
}

/**
 * The session's summary.json and .summary_cursor as this host's caches hold them; with no local home (a read of a
 * home that does not exist), as the archive gives them, which is what the caches would hold.
 */
export async function cachedSummary(
  ctx: Pick<SharedContext, "paths" | "archive" | "noLocalHome">,
  session: string,
): Promise<{ file: SummaryFile; cursor: CursorFile }> {
  if (!ctx.noLocalHome) return { file: readSummary(ctx, session), cursor: readCursor(ctx, session) };
  const state = await ctx.archive.getSummaryState(session);
  if (!state) return { file: { state: "missing" }, cursor: { state: "missing" } };
  return { file: summaryOfText(state.summary), cursor: cursorOfText(localCursor(state.cursor)) };
}

function syncFile(path: string, text: string | undefined): boolean {
  const current = readText(path);
  if (current === text) return false;
  if (text === undefined) rmSync(path, { force: true });
  else writeFileAtomic(path, text);
  return true;
}
