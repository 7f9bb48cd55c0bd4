// Removals made on other hosts reach this host's caches: a session whose history.json holds a message the
// archive tombstoned (rm-message, reset or rm on any host), or whose summary files the archive no longer has, is
// rewritten from the archive when this host next reads it (`history`) or lists the sessions. Cheap while nothing is
// removed: the archive counts its removals, and this host keeps the count it last checked every cache against
// (.store/removals-seen).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ensureDir, writeFileAtomic } from "../../shared/atomic-write.ts";
import { sessionDirs } from "../../memory/session-dirs.ts";
import { readText } from "../../storage/history/file-probe.ts";
import { readHistory } from "../../storage/history/history-file.ts";
import { removedSessionKey } from "../../storage/ports/shared-archive-port.ts";
import { idTombstoneHash } from "../../storage/ports/tombstone-hash.ts";
import type { SharedContext } from "./shared-context.ts";
import { archiveTarget } from "./shared-stats.ts";

/** Hashes asked of the archive at once. */
const CHUNK = 10_000;

/** The message ids in this host's history.json of the session (none when it cannot be read). */
function cachedIds(ctx: SharedContext, session: string): string[] {
  try {
    return readHistory(ctx.paths.history(session), { shared: true }).records.map((r) => r.id);
  } catch {
    return []; // an unreadable cache differs from the archive (doctor); the next write rewrites it
  }
}

/** The ids in this host's history.json of the session that the archive tombstoned (removed on some host). */
export async function removedInCache(ctx: SharedContext, session: string): Promise<string[]> {
  const ids = cachedIds(ctx, session);
  if (ids.length === 0) return [];
  const hashes = new Map(ids.map((id) => [idTombstoneHash(id), id]));
  const gone = await ctx.archive.tombstoned([...hashes.keys()]);
  return [...gone].map((h) => hashes.get(h)!);
}

/** Of these sessions, those whose history.json here holds a tombstoned message: a few reads, not one a session. */
async function holdingRemoved(ctx: SharedContext, sessions: readonly string[]): Promise<Set<string>> {
  const sessionOf = new Map<string, string>();
  for (const session of sessions) for (const id of cachedIds(ctx, session)) sessionOf.set(idTombstoneHash(id), session);
  const hashes = [...sessionOf.keys()];
  const out = new Set<string>();
  for (let at = 0; at < hashes.length; at += CHUNK)
    for (const h of await ctx.archive.tombstoned(hashes.slice(at, at + CHUNK))) out.add(sessionOf.get(h)!);
  return out;
}

/**
 * Of these sessions, those whose folder here keeps summary files of a session or a summary the archive no longer has
 * (rm, or reset --all, of a session whose messages were already gone: no tombstone names them). A folder of a session
 * the archive never had (a home's own, not yet copied by migrate-archive) is left alone.
 */
async function holdingDropped(ctx: SharedContext, sessions: readonly string[]): Promise<Set<string>> {
  const out = new Set<string>();
  const here = sessions.filter((s) => existsSync(ctx.paths.summary(s)) || existsSync(ctx.paths.cursor(s)));
  if (here.length === 0) return out;
  const summarized = await summaryStates(ctx, here);
  for (const session of here) {
    const has = summarized.get(session);
    if (has === undefined ? await removedHere(ctx, session) : !has) out.add(session);
  }
  return out;
}

/** The session was removed from the archive (rm), and this host's folder of it holds no message (see dropRemoved). */
async function removedHere(ctx: SharedContext, session: string): Promise<boolean> {
  return cachedIds(ctx, session).length === 0 && (await ctx.archive.getMeta(removedSessionKey(session))) !== undefined;
}

/** Whether the archive holds a summary of each session (none: no such session); of one session, its own rows. */
async function summaryStates(ctx: SharedContext, sessions: readonly string[]): Promise<Map<string, boolean>> {
  const [one] = sessions;
  if (sessions.length !== 1 || one === undefined)
    return new Map((await ctx.archive.listSessionInfo()).map((s) => [s.id, s.hasSummary]));
  if (!(await ctx.archive.getSession(one))) return new Map();
  return new Map([[one, (await ctx.archive.getSummaryState(one)) !== undefined]]);
}

/**
 * Rewrite (`rewrite`: under the session's lock) this host's caches that hold a removed message, or a removed session's
 * or summary's files: `only` that session's, or every session folder's, whose check is then remembered. Nothing is
 * read while the archive's removal count is the one remembered.
 */
export async function dropRemoved(
  ctx: SharedContext,
  rewrite: (session: string) => Promise<void>,
  only?: string,
): Promise<void> {
  if (ctx.noLocalHome) return; // no cache to hold a removed message
  const count = `${archiveTarget(ctx.config)} ${await ctx.archive.removalCount()}`;
  const seen = join(ctx.paths.store, "removals-seen");
  if (readText(seen)?.trim() === count) return;
  const sessions = only === undefined ? sessionDirs(ctx) : [only];
  const stale = new Set([...(await holdingRemoved(ctx, sessions)), ...(await holdingDropped(ctx, sessions))]);
  for (const session of stale) await rewrite(session);
  if (only !== undefined) return;
  ensureDir(ctx.paths.store);
  writeFileAtomic(seen, `${count}\n`);
}
