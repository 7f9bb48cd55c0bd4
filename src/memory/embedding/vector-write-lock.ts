// The vector write lock: one writer to a home's vector tables at a time. The home's .store/embed.lock takes
// turns between the processes of one host; with a shared vector store, the shared archive installs its lease
// here (setVectorWriteLease) so that writers on different hosts take turns too. LanceDB's own guard against
// concurrent commits on object storage (conditional PUT) is then a second line, not the only one.
import { join } from "node:path";
import { tryLockFile } from "../../shared/file-lock.ts";
import type { MemoryContext } from "../memory-context.ts";

/** Try once to take the cross-host lease; its release, or undefined while another host holds it. */
export type VectorWriteLease = () => Promise<(() => Promise<void>) | undefined>;

const leases = new WeakMap<MemoryContext, VectorWriteLease>();

/** Called by a shared archive when it opens: vector writes of `ctx` then also hold its lease. */
export function setVectorWriteLease(ctx: MemoryContext, lease: VectorWriteLease | undefined): void {
  if (lease) leases.set(ctx, lease);
  else leases.delete(ctx);
}

/** Take the lock without waiting; its release, or undefined when another writer holds it. */
export async function tryVectorWriteLock(ctx: MemoryContext): Promise<(() => void) | undefined> {
  const release = tryLockFile(join(ctx.paths.store, "embed.lock"));
  const lease = leases.get(ctx);
  if (!release || !lease) return release;
  let releaseLease: (() => Promise<void>) | undefined;
  try {
    releaseLease = await lease();
  } catch (err) {
    release();
    throw err;
  }
  if (!releaseLease) {
    release();
    return undefined;
  }
  const leaseDone = releaseLease;
  return () => {
    // A lease that cannot be given back (archive unreachable) expires on its own.
    leaseDone().catch(() => {});
    release();
  };
}

/**
 * Take the lock, waiting for the writer that holds it (polling every `pollMs`); undefined when `waitMs` passed
 * or `signal` was aborted first.
 */
export async function waitVectorWriteLock(
  ctx: MemoryContext,
  o: { signal?: AbortSignal; waitMs?: number; pollMs?: number } = {},
): Promise<(() => void) | undefined> {
  const deadline = performance.now() + (o.waitMs ?? Number.POSITIVE_INFINITY);
  for (;;) {
    const release = await tryVectorWriteLock(ctx);
    if (release || performance.now() > deadline || o.signal?.aborted) return release;
    await Bun.sleep(o.pollMs ?? 50);
  }
}

/**
 * A deletion (rm, reset, rm-message) waiting for the vector write lock holds .store/embed.wait meanwhile; a drain that
 * lingers for more writes lets go when it sees that, else a steady stream of writes would keep the lock from the
 * deletion for as long as it lasts. flock: a waiter that dies stops waiting with it.
 */
export function holdDeletionWait(ctx: MemoryContext): (() => void) | undefined {
  return tryLockFile(join(ctx.paths.store, "embed.wait"));
}

/** Whether a deletion waits for the vector write lock (see holdDeletionWait). */
export function deletionWaiting(ctx: MemoryContext): boolean {
  const free = tryLockFile(join(ctx.paths.store, "embed.wait"));
  free?.();
  return free === undefined;
}
