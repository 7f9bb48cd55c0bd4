// Reading a session: the context window (last N of history.json) or every message from the archive.
import { assertSessionId } from "../shared/session-id.ts";
import type { StoredMessage } from "../shared/message.ts";
import { listSessionMessages } from "../storage/sqlite/messages-repo.ts";
import type { MemoryContext } from "./memory-context.ts";
import { ensureBackfilled } from "./sessions-list.ts";
import { UnknownSessionError, sessionExists } from "./session-admin.ts";

export interface HistoryOptions {
  /** Every message ever written (archive + recent) instead of the last N. */
  all?: boolean;
  /** Override limits.max_history_messages for the window. */
  last?: number;
}

export function readSessionHistory(ctx: MemoryContext, session: string, o: HistoryOptions = {}): StoredMessage[] {
  assertSessionId(session);
  if (!sessionExists(ctx, session)) throw new UnknownSessionError({ session, home: ctx.paths.home });
  ensureBackfilled(ctx, session);
  if (o.all) return listSessionMessages(ctx.db, session);
  const n = o.last ?? ctx.config.limits.max_history_messages;
  return listSessionMessages(ctx.db, session, { recentOnly: true, newestFirst: true, limit: n }).reverse();
}
