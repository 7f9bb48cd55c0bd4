// A job lease as a "take a turn" function: try once to take it; while held it is renewed in the background,
// and the returned function gives it back. A holder that dies stops renewing, so its lease expires.
import type { ArchivePort } from "./archive-port.ts";

/** The lease every writer of the shared vector tables holds (drains, rebuilds, upkeep, migrate-archive's copy). */
export const VECTOR_WRITE_JOB = "vector-write";

export interface LeaseTurnOptions {
  job: string;
  session: string;
  /** Who holds it (host and process), as other holders see it. */
  holder: string;
  /** Lease length; renewed every third of it while held (default 30 s). */
  ttlMs?: number;
  /** Called once if a renewal finds the lease taken by another holder (it had expired): stop the work. */
  onLost?: () => void;
}

export function leaseTurn(archive: ArchivePort, o: LeaseTurnOptions): () => Promise<(() => Promise<void>) | undefined> {
  const ttl = o.ttlMs ?? 30_000;
  return async () => {
    let lease = await archive.acquireLease(o.job, o.session, o.holder, ttl);
    if (!lease) return undefined;
    const timer = setInterval(
      () => {
        if (!lease) return;
        archive.renewLease(lease, ttl).then(
          (renewed) => {
            if (!lease) return;
            if (renewed) lease = renewed;
            else {
              lease = undefined;
              o.onLost?.();
            }
          },
          () => {}, // unreachable for now: the lease runs out on its own if this keeps failing
        );
      },
      Math.max(10, Math.floor(ttl / 3)),
    );
    timer.unref?.();
    return async () => {
      clearInterval(timer);
      const held = lease;
      lease = undefined;
      if (held) await archive.releaseLease(held);
    };
  };
}
