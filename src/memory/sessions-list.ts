// The list of sessions (id, message count, last activity, summary present), adopting folders the archive
// has not seen yet (backfill on first encounter) and, before a read of one session, what another program changed
// in its history.json. sessions/ is scanned again only when its mtime moves, and a new process skips even its
// first scan when an earlier one left a mark of the same sessions/ and archive.
import { existsSync, lstatSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { CorruptHistoryError, historyStamp } from "../storage/history/history-file.ts";
import { refuseSessionSymlinks } from "../storage/history/no-symlink.ts";
import { historyStampOf, historyStamps } from "../storage/sqlite/history-stamps-repo.ts";
import { isNoRoom } from "../shared/describe-error.ts";
import { isSessionId } from "../shared/session-id.ts";
import { listSessionRows, namesWithoutSession, sessionRowCount } from "../storage/sqlite/sessions-repo.ts";
import { sessionHasMessages } from "../storage/sqlite/messages-repo.ts";
import { listSessionMeta, type SessionMeta } from "../storage/sqlite/session-meta-repo.ts";
import type { MemoryContext } from "./memory-context.ts";
import { sessionDirs, unknownSessionDirs } from "./session-dirs.ts";
import { readScanMark, saveScanMark, scanMark } from "./sessions-scan-mark.ts";

// The write path is loaded when a folder is backfilled: a search or listing of a known home needs none of it.
const writePath = () => require("./write-path.ts") as typeof import("./write-path.ts");

export interface SessionInfo {
  id: string;
  messages: number;
  /** ns of the newest message (its sendAt), or of the last write when it has none; 0 when unknown. */
  lastActivity: bigint;
  hasSummary: boolean;
  /** Set for imported sessions: the importer, the tool's title, the cwd or repository, a sub-agent's parent. */
  source?: string;
  title?: string;
  project?: string;
  parent?: string;
}

interface DiscoveryState {
  /** sessions/'s inode and mtime at the last full scan; undefined forces the next scan. */
  stamp?: string;
  /** Folders the archive lacks (no history.json yet, an empty or unreadable one): looked at on every call. */
  pending: Set<string>;
  /** The saved mark (sessions-scan-mark.ts) is known to be this state's: nothing to save. */
  marked?: boolean;
}

const discovery = new WeakMap<MemoryContext, DiscoveryState>();

// A folder created in the same tick as the scan may leave the mtime unchanged on a coarse clock.
const RACY_MS = 2000;

function sessionsStamp(ctx: MemoryContext): { stamp: string; racy: boolean } {
  try {
    const st = statSync(ctx.paths.sessions, { bigint: true });
    return { stamp: `${st.ino}:${st.mtimeNs}`, racy: Date.now() - Number(st.mtimeMs) < RACY_MS };
  } catch {
    return { stamp: "missing", racy: false };
  }
}

/**
 * Backfill every session folder whose history.json the archive has not seen. The folder list is read at the
 * first call on a context and then only when sessions/'s mtime has changed. Returns how many were adopted.
 *
 * A scan that leaves no folder pending, of a sessions/ whose mtime was already old (not racy), saves a mark of
 * sessions/'s stamp and the session row count. The first call of a later process that finds the same mark
 * starts as if it had made that scan itself: no folder was added or removed since (the mtime), and no session
 * row removed (the count; a removal is what could leave a folder without its row).
 */
export function discoverSessions(ctx: MemoryContext): number {
  const { stamp, state } = scanned(ctx);
  let adopted = 0;
  for (const id of state.pending) {
    if (!existsSync(ctx.paths.history(id))) continue;
    try {
      refuseSessionSymlinks(ctx.paths.session(id));
      adopted += writePath().backfillSession(ctx, id);
      if (sessionHasMessages(ctx.db, id)) state.pending.delete(id);
    } catch {
      // A corrupt history.json or a symbolic link is reported by `doctor`; listing must still work.
    }
  }
  if (!state.marked && state.stamp === stamp && state.pending.size === 0 && stamp !== "missing") {
    saveScanMark(ctx.paths, scanMark(stamp, sessionRowCount(ctx.db)));
    state.marked = true;
  }
  return adopted;
}

/** The discovery state with its pending folders up to date (sessions/ read again when its mtime moved). */
function scanned(ctx: MemoryContext): { stamp: string; state: DiscoveryState } {
  const { stamp, racy } = sessionsStamp(ctx);
  let state = discovery.get(ctx);
  if (!state) {
    discovery.set(ctx, (state = { pending: new Set() }));
    const mark = racy || stamp === "missing" ? undefined : readScanMark(ctx.paths);
    if (mark !== undefined && mark === scanMark(stamp, sessionRowCount(ctx.db))) {
      state.stamp = stamp;
      state.marked = true;
    }
  }
  if (stamp !== state.stamp) {
    state.marked = false;
    state.pending = new Set(unknownSessionDirs(ctx, (names) => namesWithoutSession(ctx.db, names)));
    state.stamp = racy ? undefined : stamp;
  }
  return { stamp, state };
}

/**
 * Whether listing the sessions (`listing`), searching all of them, or reading one given would first adopt a
 * history.json the archive has not seen (written by another program, changed by one since memvoy wrote it, or
 * emptied by a reset): the adoption takes the home's writer lock.
 */
export function adoptionPending(ctx: MemoryContext, session?: string, listing = false): boolean {
  if (session !== undefined) return isSessionId(session) && historyChanged(ctx, session);
  for (const id of scanned(ctx).state.pending) if (existsSync(ctx.paths.history(id))) return true;
  // Listing also adopts what was appended to known sessions (a stat each: not on every search of all sessions).
  return listing && changedKnownSessions(ctx).length > 0;
}

/**
 * The sessions whose history.json another program changed (or deleted) since memvoy last wrote or checked it: one
 * stat each against the stamps kept in the archive. A session without a stamp (written before stamps were kept) is
 * left to its first read, which records one.
 */
function changedKnownSessions(ctx: MemoryContext): string[] {
  const changed: string[] = [];
  for (const [id, kept] of historyStamps(ctx.db)) {
    const file = ctx.paths.history(id);
    const stamp = historyStamp(file);
    if (stamp === undefined ? deletedFromFolder(file) : stamp !== kept) changed.push(id);
  }
  return changed;
}

/**
 * Whether the session's history.json is not the file memvoy last wrote or found to agree with the archive
 * (one stat against the stamp kept in the archive: an unchanged file is never parsed). A missing stamp (a
 * session new to the archive, or one written before stamps were kept) counts as changed: its first read records it.
 * A file memvoy wrote that is gone was deleted by its other writer (Agenvoy's reset): the window follows it.
 */
function historyChanged(ctx: MemoryContext, session: string): boolean {
  const file = ctx.paths.history(session);
  const stamp = historyStamp(file);
  if (stamp !== undefined) return stamp !== historyStampOf(ctx.db, session);
  return historyStampOf(ctx.db, session) !== undefined && deletedFromFolder(file);
}

/**
 * Whether nothing is at `file` while its session folder is there (a folder or a file in its way is the command's
 * to report; a folder removed whole, or a home moved away, leaves the window as it was).
 */
function deletedFromFolder(file: string): boolean {
  try {
    return lstatSync(file, { throwIfNoEntry: false }) === undefined && lstatSync(dirname(file)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Before a read of one session: adopt what its history.json holds that the archive lacks (a session met for the
 * first time, or records another program such as Agenvoy added to the file since), as the next write would.
 */
export function ensureBackfilled(ctx: MemoryContext, session: string): void {
  if (!historyChanged(ctx, session)) return;
  try {
    writePath().backfillSession(ctx, session);
  } catch (err) {
    // A file memvoy cannot take (half written by its other writer, or corrupt), or a disk with no room for the
    // adoption's writes, leaves a known session's reads on the archive, as they were; `doctor` reports the file and
    // the next read tries again.
    if (!(err instanceof CorruptHistoryError || isNoRoom(err)) || !sessionHasMessages(ctx.db, session)) throw err;
  }
}

export function listSessions(ctx: MemoryContext): SessionInfo[] {
  discoverSessions(ctx);
  // Records another program (Agenvoy) appended to a known session count in its row, as a read of it would adopt them.
  for (const id of changedKnownSessions(ctx)) ensureBackfilled(ctx, id);
  const rows = new Map(listSessionRows(ctx.db).map((r) => [r.id, r]));
  const metas = listSessionMeta(ctx.db);
  const ids = new Set([...rows.keys(), ...sessionDirs(ctx)]);
  return [...ids].map((id) => {
    const r = rows.get(id);
    const meta: SessionMeta = metas.get(id) ?? {};
    return {
      id,
      messages: r?.messageCount ?? 0,
      lastActivity: r ? (r.lastSendAt > 0n ? r.lastSendAt : r.updatedAt) : 0n,
      hasSummary: existsSync(ctx.paths.summary(id)),
      ...meta,
    };
  });
}
