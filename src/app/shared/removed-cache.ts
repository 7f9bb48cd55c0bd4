// Removals made on other hosts reach this host's caches: a session whose history.json holds a message the
// archive tombstoned (rm-message, reset or rm on any host) is rewritten from the archive when this host next
// reads it (`history`) or lists the sessions. Cheap while nothing is removed: the archive counts its tombstone
// writes, and this host keeps the count it last checked every cache against (.store/removals-seen).
import { join } from "node:path";
import { ensureDir, writeFileAtomic } from "../../shared/atomic-write.ts";
import { sessionDirs } from "../../memory/session-dirs.ts";
import { readText } from "../../storage/history/file-probe.ts";
import { readHistory } from "../../storage/history/history-file.ts";
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
 * Rewrite (`rewrite`: under the session's lock) this host's caches that hold a removed message: `only` that
 * session's, or every session folder's, whose check is then remembered. Nothing is read while the archive's
 * removal count is the one remembered.
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
  for (const session of await holdingRemoved(ctx, only === undefined ? sessionDirs(ctx) : [only]))
    await rewrite(session);
  if (only !== undefined) return;
  ensureDir(ctx.paths.store);
  writeFileAtomic(seen, `${count}\n`);
}
