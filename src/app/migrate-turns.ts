// migrate-archive's turns on the target: one run per home at a time (the archive's lock, which the server
// drops with a killed run's connection), and the vector copy under the lease every writer of the shared
// vector tables holds, so that it never commits to a table while a daemon's drain or another copy does.
import { hostname } from "node:os";
import { describeError } from "../shared/describe-error.ts";
import { MemvoyError, namedError } from "../shared/errors.ts";
import { SessionLockTimeoutError } from "../storage/ports/archive-errors.ts";
import type { ArchivePort } from "../storage/ports/archive-port.ts";
import { leaseTurn, VECTOR_WRITE_JOB } from "../storage/ports/lease-turn.ts";

export const MigrateBusyError = namedError<{ home: string }>(
  "MigrateBusyError",
  "input",
  (d) =>
    `another memvoy migrate-archive of ${d.home} is running into this archive: let it finish (it copies everything), or stop it and run this again`,
);

export const VectorWriteBusyError = namedError<{ holder: string; waitedMs: number }>(
  "VectorWriteBusyError",
  "runtime",
  (d) =>
    `the shared vectors stayed busy for ${Math.round(d.waitedMs / 1000)} s (written by ${d.holder}): the messages are copied; run memvoy migrate-archive again to copy the vectors`,
);

const vectorsNotCopied = (d: { cause: string }) =>
  `the messages are copied, the vectors are not: ${d.cause}; run memvoy migrate-archive again once the vector store answers (it copies only what is missing)`;
/** The vector copy failed on the store's side (down, unreachable); the archive's part is done. */
export const VectorCopyFailedError = namedError<{ cause: string }>(
  "VectorCopyFailedError",
  "runtime",
  vectorsNotCopied,
);
/** The vector store refused the copy's configuration (keys, bucket): exit 2, as the store's own error. */
export const VectorCopyRefusedError = namedError<{ cause: string }>(
  "VectorCopyRefusedError",
  "input",
  vectorsNotCopied,
);

/** How long the vector copy waits for another writer (a drain holds the lease for one batch at a time). */
const VECTOR_WAIT_MS = 30_000;
const VECTOR_LEASE_MS = 60_000;

/** Run `fn` as the only migrate-archive of this home (`key`) into `target`; MigrateBusyError at once otherwise. */
export async function aloneOnTarget<T>(target: ArchivePort, key: string, home: string, fn: () => Promise<T>) {
  try {
    return await target.withSessionLock(key, fn, { timeoutMs: 1 });
  } catch (err) {
    if (err instanceof SessionLockTimeoutError && err.data.session === key) throw new MigrateBusyError({ home });
    throw err;
  }
}

/**
 * Run `fn` holding the vector-write lease (renewed meanwhile), waited for up to 30 s. Called inside
 * aloneOnTarget: a lease an earlier run of this home still holds is a killed run's, and is taken back.
 */
export async function withVectorLease<T>(target: ArchivePort, key: string, fn: () => Promise<T>, signal?: AbortSignal) {
  const ours = `${key} `; // every run of this home: its key, then host, pid and a token
  const held = await target.leaseHolder(VECTOR_WRITE_JOB, "*");
  if (held?.holder.startsWith(ours)) await target.releaseLease(held);
  const take = leaseTurn(target, {
    job: VECTOR_WRITE_JOB,
    session: "*",
    holder: `${ours}${hostname()}:${process.pid}#${crypto.randomUUID().slice(0, 8)}`,
    ttlMs: VECTOR_LEASE_MS,
  });
  const started = Date.now();
  for (;;) {
    const give = await take();
    if (give) {
      try {
        return await fn();
      } finally {
        await give().catch(() => {}); // a lease that cannot be given back expires on its own
      }
    }
    signal?.throwIfAborted();
    if (Date.now() - started >= VECTOR_WAIT_MS) {
      const holder = (await target.leaseHolder(VECTOR_WRITE_JOB, "*"))?.holder ?? "another process";
      throw new VectorWriteBusyError({ holder, waitedMs: Date.now() - started });
    }
    await Bun.sleep(250);
  }
}

/** A vector copy's failure, saying that the messages are copied and how to finish (the store's exit code kept). */
export function vectorCopyError(err: unknown): Error {
  const cause = describeError(err);
  return err instanceof MemvoyError && err.exitCode === 2
    ? new VectorCopyRefusedError({ cause }, { cause: err })
    : new VectorCopyFailedError({ cause }, { cause: err });
}
