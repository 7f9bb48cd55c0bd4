// Error memory administration: list, show, remove by id prefix, and the TTL sweep the daemon runs hourly.
import { describeAfterSome } from "../../shared/describe-error.ts";
import {
  clearVectorDeletes,
  countLive,
  countUnembedded,
  deleteErrorRows,
  listExpired,
  listLive,
  pendingVectorDeletes,
  purgeDeletedErrorTerms,
} from "../../storage/sqlite/error-memory-repo.ts";
import { checkpointTruncate } from "../../storage/sqlite/open-database.ts";
import { withWriteLock } from "../../storage/sqlite/write-lock.ts";
import type { MemoryContext } from "../memory-context.ts";
import { mayHoldVectors } from "../vector-location.ts";
import { resolveErrorId } from "./error-ids.ts";
import { checkListInput } from "./error-input.ts";
import { recordEmbedder, toErrorRecord, type ErrorRecord } from "./error-record.ts";
import { embedPendingErrors, errorEmbedder, errorVectorStore, forgetLostErrorVectors } from "./error-vectors.ts";

export const DEFAULT_LIST_LIMIT = 50;

export interface ErrorList {
  records: ErrorRecord[];
  /** Live records matching the filter (records holds at most the limit). */
  total: number;
}

export function listErrors(ctx: MemoryContext, raw: unknown = {}): ErrorList {
  const o = checkListInput(raw);
  const now = ctx.now();
  const filter = { tool: o.tool, outcome: o.outcome };
  const embedderId = recordEmbedder(ctx);
  return {
    records: listLive(ctx.db, filter, now, o.limit ?? DEFAULT_LIST_LIMIT).map((r) => toErrorRecord(r, embedderId)),
    total: countLive(ctx.db, filter, now),
  };
}

/** The record with this id or unique id prefix. Reading it is no hit: its TTL is unchanged. */
export function getError(ctx: MemoryContext, idPrefix: string): ErrorRecord {
  return toErrorRecord(resolveErrorId(ctx.db, idPrefix, ctx.now()), recordEmbedder(ctx));
}

export interface RemoveErrorResult {
  removed: ErrorRecord;
  notes: string[];
}

export async function removeError(ctx: MemoryContext, idPrefix: string): Promise<RemoveErrorResult> {
  const now = ctx.now();
  const removed = withWriteLock(ctx.db, () => {
    const row = resolveErrorId(ctx.db, idPrefix, now);
    deleteErrorRows(ctx.db, [row], now);
    return row;
  });
  withWriteLock(ctx.db, () => purgeDeletedErrorTerms(ctx.db));
  // Old WAL frames hold the record's text until a checkpoint; a long-lived process (the daemon's worker) may
  // never close its connection, which is when SQLite would otherwise checkpoint.
  checkpointTruncate(ctx.db);
  const { notes } = await applyVectorDeletes(ctx);
  return { removed: toErrorRecord(removed, recordEmbedder(ctx)), notes };
}

export interface SweepResult {
  /** Expired records deleted. */
  removed: number;
  /** Vectors deleted from the vector store (of records removed now or earlier). */
  vectorsRemoved: number;
  notes: string[];
  /** Shared mode: another process held the sweep lease, so nothing was done (named in `notes`). */
  busy?: true;
}

/** Delete every record expired at `now` (expires_at <= now), then their vectors, then compact the vector tables. */
export async function sweepExpired(ctx: MemoryContext, now: bigint): Promise<SweepResult> {
  let removed = 0;
  for (;;) {
    const n = withWriteLock(ctx.db, () => {
      const expired = listExpired(ctx.db, now, 1000);
      deleteErrorRows(ctx.db, expired, now);
      return expired.length;
    });
    removed += n;
    if (n < 1000) break;
  }
  if (removed > 0) withWriteLock(ctx.db, () => purgeDeletedErrorTerms(ctx.db));
  const { removed: vectorsRemoved, notes } = await applyVectorDeletes(ctx);
  if (mayHoldVectors(ctx)) {
    try {
      const store = await errorVectorStore(ctx);
      // Vectors of another embedder can never be compared with the current one's: drop them.
      const current = await errorEmbedder(ctx);
      await store.dropAllBut(current.id);
      await store.maintain();
    } catch (err) {
      notes.push(`vector upkeep skipped: ${describeAfterSome(err)}`);
    }
  }
  return { removed, vectorsRemoved, notes };
}

/** Embed records stored while the embedder was unreachable (or since it changed); the daemon calls this. */
export async function embedPending(ctx: MemoryContext, max = 10_000): Promise<{ embedded: number; pending: number }> {
  const embedder = await errorEmbedder(ctx);
  forgetLostErrorVectors(ctx, embedder.id);
  const embedded = await embedPendingErrors(ctx, embedder, max);
  return { embedded, pending: countUnembedded(ctx.db, embedder.id, ctx.now()) };
}

/** Apply queued vector deletions; a failure leaves them queued for the next rm or sweep. */
async function applyVectorDeletes(ctx: MemoryContext): Promise<{ removed: number; notes: string[] }> {
  const ids = pendingVectorDeletes(ctx.db, 100_000);
  if (ids.length === 0) return { removed: 0, notes: [] };
  try {
    // No vector store yet means no vector was ever written.
    if (mayHoldVectors(ctx)) {
      // A shared store's listing may miss a table: find the configured embedder's by name as well.
      const probe = ctx.config.vectors.uri
        ? await errorEmbedder(ctx).then(
            (e) => [e.id],
            () => [],
          )
        : [];
      await (await errorVectorStore(ctx)).deleteIds(ids, probe);
    }
    withWriteLock(ctx.db, () => clearVectorDeletes(ctx.db, ids));
    return { removed: ids.length, notes: [] };
  } catch (err) {
    return { removed: 0, notes: [`vectors of removed records stay until the next sweep: ${describeAfterSome(err)}`] };
  }
}
