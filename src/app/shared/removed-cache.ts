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

/** The ids in this host's history.json of the session that the archive tombstoned (removed on some host). */
export async function removedInCache(ctx: SharedContext, session: string): Promise<string[]> {
  let ids: string[];
  try {
    ids = readHistory(ctx.paths.history(session), { shared: true }).records.map((r) => r.id);
  } catch {
    return []; // an unreadable cache differs from the archive (doctor); the next write rewrites it
  }
  if (ids.length === 0) return [];
  const hashes = new Map(ids.map((id) => [idTombstoneHash(id), id]));
  const gone = await ctx.archive.tombstoned([...hashes.keys()]);
  return [...gone].map((h) => hashes.get(h)!);
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
  const count = `${archiveTarget(ctx.config)} ${await ctx.archive.removalCount()}`;
  const seen = join(ctx.paths.store, "removals-seen");
  if (readText(seen)?.trim() === count) return;
  for (const session of only === undefined ? sessionDirs(ctx) : [only])
    if ((await removedInCache(ctx, session)).length > 0) await rewrite(session);
  if (only !== undefined) return;
  ensureDir(ctx.paths.store);
  writeFileAtomic(seen, `${count}\n`);
}
