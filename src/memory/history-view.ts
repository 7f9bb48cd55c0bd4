// Reading a session: the context window (last N of history.json) or every message from the archive.
import { namedError } from "../shared/errors.ts";
import { assertSessionId } from "../shared/session-id.ts";
import type { StoredMessage } from "../shared/message.ts";
import { isEmptyFilter, type MessageFilter, type TimeBound } from "../shared/time-filter.ts";
import { historyPages } from "./history-pages.ts";
import { refuseSessionSymlinks } from "../storage/history/no-symlink.ts";
import {
  contentBytes,
  getMessagesById,
  listSessionMessages,
  recentSeqsUpTo,
  sessionPrefix,
} from "../storage/sqlite/messages-repo.ts";
import { readScope } from "../storage/sqlite/write-stamp.ts";
import type { MemoryContext } from "./memory-context.ts";
import { ensureBackfilled } from "./sessions-list.ts";
import { UnknownSessionError, sessionExists } from "./session-admin.ts";

export interface HistoryOptions {
  /** Every message ever written (archive + recent) instead of the last N. */
  all?: boolean;
  /** Override limits.max_history_messages for the window; with a filter, the newest N that pass it. */
  last?: number;
  /**
   * Only messages in these bounds (RFC 3339, a local date or time, a relative form like 3d, or UTC ns), of
   * this role or sender. Any of them reads every message ever written, not only the window.
   */
  since?: TimeBound;
  until?: TimeBound;
  role?: string;
  sender?: string;
  /** The resolved form of since/until/role/sender (MemoryApi.history resolves them). */
  filter?: MessageFilter;
}

export const MAX_LAST = 1_000_000;

/** `last` is no whole number from 1 to MAX_LAST. */
export const InvalidLastError = namedError<{ last: unknown }>(
  "InvalidLastError",
  "input",
  (d) => `invalid last ${String(d.last)}: use a whole number from 1 to ${MAX_LAST}`,
);
export type InvalidLastError = InstanceType<typeof InvalidLastError>;

/** Check the options and the session (it exists, no link), and backfill it, before anything is read. */
function checkHistoryRead(ctx: MemoryContext, session: string, o: HistoryOptions): void {
  assertSessionId(session);
  if (o.last !== undefined && (!Number.isSafeInteger(o.last) || o.last < 1 || o.last > MAX_LAST)) {
    throw new InvalidLastError({ last: o.last });
  }
  refuseSessionSymlinks(ctx.paths.session(session));
  if (!sessionExists(ctx, session)) throw new UnknownSessionError({ session, home: ctx.paths.home });
  ensureBackfilled(ctx, session);
}

export function readSessionHistory(ctx: MemoryContext, session: string, o: HistoryOptions = {}): StoredMessage[] {
  checkHistoryRead(ctx, session, o);
  if (o.filter && !isEmptyFilter(o.filter)) {
    if (o.all || o.last === undefined) return listSessionMessages(ctx.db, session, { filter: o.filter });
    return listSessionMessages(ctx.db, session, { filter: o.filter, newestFirst: true, limit: o.last }).reverse();
  }
  if (o.all) return listSessionMessages(ctx.db, session);
  // The window is the recent tier's last N; --last N is the session's last N, archived ones too when it has fewer.
  if (o.last !== undefined) return listSessionMessages(ctx.db, session, { newestFirst: true, limit: o.last }).reverse();
  const n = ctx.config.limits.max_history_messages;
  return listSessionMessages(ctx.db, session, { recentOnly: true, newestFirst: true, limit: n }).reverse();
}

/** readSessionHistory's messages in pages (checked before this returns): a large session is never held whole. */
export function sessionHistoryPages(
  ctx: MemoryContext,
  session: string,
  o: HistoryOptions = {},
): AsyncGenerator<StoredMessage[]> {
  checkHistoryRead(ctx, session, o);
  const { all, last, filter } = o;
  const window = ctx.config.limits.max_history_messages;
  return historyPages((range) => listSessionMessages(ctx.db, session, range), { all, last, filter, window });
}

/**
 * What a reader holds of a session: its messages up to `seq` (none: 0n), `count` of them, `recent` of them still in
 * history.json, the first of those at `firstRecent`.
 */
export interface SeenHistory {
  seq: bigint;
  count: number;
  recent: number;
  firstRecent?: bigint;
  /** The last messages it holds and their text's size in UTF-8 bytes: an import may have grown them since. */
  tail?: readonly { id: string; bytes: number }[];
}

/**
 * How to bring a reader's copy of a session up to date: the messages `added` after the ones it holds, with the
 * seqs of those still in history.json when compaction (or a repair) moved the tiers' boundary among them; or
 * `whole`, every message, when one it holds is gone (removed, a reset, a replaced history.json).
 */
export type HistoryCatchUp =
  | { added: StoredMessage[]; recentSeqs?: bigint[]; grown?: StoredMessage[]; whole?: undefined }
  | { whole: StoredMessage[] };

/** readSessionHistory({all: true}) for a reader that holds part of it: only what is new is read (seqs are never reused). */
export function readHistoryAfter(ctx: MemoryContext, session: string, seen: SeenHistory): HistoryCatchUp {
  checkHistoryRead(ctx, session, {});
  return readScope(ctx.db, () => {
    const now = sessionPrefix(ctx.db, session, seen.seq);
    if (now.count !== seen.count) return { whole: listSessionMessages(ctx.db, session) };
    const added = listSessionMessages(ctx.db, session, { afterSeq: seen.seq });
    const grown = grownMessages(ctx, seen.tail);
    const moved = now.recent !== seen.recent || now.firstRecent !== seen.firstRecent;
    return {
      added,
      ...(moved ? { recentSeqs: recentSeqsUpTo(ctx.db, session, seen.seq) } : {}),
      ...(grown.length ? { grown } : {}),
    };
  });
}

/** Of the messages a reader holds last, those whose stored text is no longer the size it holds (an import grew it). */
function grownMessages(ctx: MemoryContext, tail: SeenHistory["tail"]): StoredMessage[] {
  if (!tail?.length) return [];
  const sizes = contentBytes(
    ctx.db,
    tail.map((t) => t.id),
  );
  const ids = tail.filter((t) => sizes.has(t.id) && sizes.get(t.id) !== t.bytes).map((t) => t.id);
  return getMessagesById(ctx.db, ids);
}
