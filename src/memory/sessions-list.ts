// The list of sessions (id, message count, last activity, summary present), adopting folders the archive
// has not seen yet (backfill on first encounter).
import { existsSync } from "node:fs";
import { refuseSessionSymlinks } from "../storage/history/no-symlink.ts";
import { listSessionRows } from "../storage/sqlite/sessions-repo.ts";
import { sessionHasMessages } from "../storage/sqlite/messages-repo.ts";
import type { MemoryContext } from "./memory-context.ts";
import { sessionDirs } from "./session-admin.ts";
import { backfillSession } from "./write-path.ts";

export interface SessionInfo {
  id: string;
  messages: number;
  /** ns of the newest message (its sendAt), or of the last write when it has none; 0 when unknown. */
  lastActivity: bigint;
  hasSummary: boolean;
}

/** Backfill every session folder whose history.json the archive has not seen. Returns how many were adopted. */
export function discoverSessions(ctx: MemoryContext): number {
  const known = new Set(listSessionRows(ctx.db).map((r) => r.id));
  let adopted = 0;
  for (const id of sessionDirs(ctx)) {
    if (known.has(id) || !existsSync(ctx.paths.history(id))) continue;
    try {
      refuseSessionSymlinks(ctx.paths.session(id));
      adopted += backfillSession(ctx, id);
    } catch {
      // A corrupt history.json or a symbolic link is reported by `doctor`; listing must still work.
    }
  }
  return adopted;
}

/** Backfill one session on first encounter (its history.json exists, the archive has none of it). */
export function ensureBackfilled(ctx: MemoryContext, session: string): void {
  if (!sessionHasMessages(ctx.db, session) && existsSync(ctx.paths.history(session))) backfillSession(ctx, session);
}

export function listSessions(ctx: MemoryContext): SessionInfo[] {
  discoverSessions(ctx);
  const rows = new Map(listSessionRows(ctx.db).map((r) => [r.id, r]));
  const ids = new Set([...rows.keys(), ...sessionDirs(ctx)]);
  return [...ids].map((id) => {
    const r = rows.get(id);
    return {
      id,
      messages: r?.messageCount ?? 0,
      lastActivity: r ? (r.lastSendAt > 0n ? r.lastSendAt : r.updatedAt) : 0n,
      hasSummary: existsSync(ctx.paths.summary(id)),
    };
  });
}
