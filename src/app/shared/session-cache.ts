// The per-session files in shared mode: history.json, summary.json and .summary_cursor keep the spec's
// shapes but are caches of the archive. Under the session's lock a host rewrites each one (atomically)
// whose text differs from the archive's, and removes the folder of a session the archive no longer has.
import { existsSync, rmSync } from "node:fs";
import type { HomePaths } from "../../config/home.ts";
import { ensureDir, writeFileAtomic } from "../../shared/atomic-write.ts";
import type { MessageRecord, StoredMessage } from "../../shared/message.ts";
import { readText } from "../../storage/history/file-probe.ts";
import { forgetHistoryCache, serializeHistory } from "../../storage/history/history-file.ts";
import { refuseSessionSymlinks } from "../../storage/history/no-symlink.ts";
import type { SummaryState, SummaryText } from "../../storage/ports/archive-port.ts";

export interface SessionCacheState {
  /** The session has a row in the archive. */
  exists: boolean;
  /** Its recent tier, oldest first (history.json). */
  recent: readonly StoredMessage[];
  summary?: SummaryState;
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
  const recent = state.recent.length > 0 ? serializeHistory(state.recent.map(record)) : undefined;
  const changed = syncFile(history, recent);
  if (changed) forgetHistoryCache(history);
  return refreshSummaryFiles(paths, session, state.summary) || changed;
}

/** Bring summary.json and .summary_cursor in line with the archive's summary state (under the session's lock). */
export function refreshSummaryFiles(paths: HomePaths, session: string, summary: SummaryText | undefined): boolean {
  refuseSessionSymlinks(paths.session(session));
  if (summary) ensureDir(paths.session(session));
  const a = syncFile(paths.summary(session), summary?.summary);
  const b = syncFile(paths.cursor(session), summary?.cursor);
  return a || b;
}

function syncFile(path: string, text: string | undefined): boolean {
  const current = readText(path);
  if (current === text) return false;
  if (text === undefined) rmSync(path, { force: true });
  else writeFileAtomic(path, text);
  return true;
}
