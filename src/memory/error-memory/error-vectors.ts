// The embedder and the LanceDB error-vector store of a MemoryContext (opened on first use), and the
// catch-up that embeds records stored while the embedder was unreachable or since the embedder changed.
import { createEmbedder } from "../../embed/create-embedder.ts";
import type { Embedder } from "../../embed/embedder.ts";
import { openErrorVectors, type ErrorVectors } from "../../storage/ports/vector-port.ts";
import { mayHoldVectors, vectorStoreLocation } from "../vector-location.ts";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { embedderTableName, ERROR_TABLES } from "../../storage/lance/embedder-tables.ts";
import {
  clearEmbedded,
  clearEmbeddedBy,
  countEmbeddedBy,
  countUnembedded,
  listUnembedded,
  markEmbedded,
  refusedBy,
} from "../../storage/sqlite/error-memory-repo.ts";
import { embedsText, inputRefused } from "../embedding/drain.ts";
import { describeError } from "../../shared/describe-error.ts";
import { withWriteLock } from "../../storage/sqlite/write-lock.ts";
import type { MemoryContext } from "../memory-context.ts";

const embedders = new WeakMap<MemoryContext, Promise<Embedder>>();
const stores = new WeakMap<MemoryContext, Promise<ErrorVectors>>();

/** The configured embedder; a failure to create it is not remembered (the next call tries again). */
export function errorEmbedder(ctx: MemoryContext): Promise<Embedder> {
  let p = embedders.get(ctx);
  if (!p) {
    p = createEmbedder(ctx.config.embedder, { env: ctx.env ?? process.env });
    embedders.set(ctx, p);
    p.catch(() => embedders.delete(ctx));
  }
  return p;
}

export function errorVectorStore(ctx: MemoryContext): Promise<ErrorVectors> {
  let p = stores.get(ctx);
  if (!p) {
    p = Promise.resolve().then(() => openErrorVectors(vectorStoreLocation(ctx)));
    stores.set(ctx, p);
    p.catch(() => stores.delete(ctx));
  }
  return p;
}

export async function closeErrorVectors(ctx: MemoryContext): Promise<void> {
  const p = stores.get(ctx);
  stores.delete(ctx);
  embedders.delete(ctx);
  if (p) (await p.catch(() => undefined))?.close();
}

const BATCH = 256;

/**
 * Embed live records that lack a vector from the current embedder, at most `max` of them, oldest first.
 * Returns how many were embedded. Embedding errors propagate; what was done before them is kept. A record the
 * embedder refuses on its own is marked so (not sent again until its text changes or a rebuild) and given to
 * `onRefused`.
 */
export async function embedPendingErrors(
  ctx: MemoryContext,
  embedder: Embedder,
  max: number,
  signal?: AbortSignal,
  onRefused?: (id: string, error: string) => void,
): Promise<number> {
  let done = 0;
  while (done < max) {
    const pending = listUnembedded(ctx.db, embedder.id, ctx.now(), Math.min(BATCH, max - done));
    if (pending.length === 0) break;
    const { vectors, refused, failure } = await embedRecords(embedder, pending, signal);
    const items = pending.flatMap((p, i) => (vectors[i] ? [{ p, vector: vectors[i] }] : []));
    if (items.length > 0) {
      const store = await errorVectorStore(ctx);
      await store.upsert(
        embedder.id,
        embedder.dim,
        items.map(({ p, vector }) => ({ id: p.id, vector })),
        { replace: true },
      );
    }
    withWriteLock(ctx.db, () => {
      markEmbedded(
        ctx.db,
        items.map((x) => x.p),
        embedder.id,
      );
      markEmbedded(
        ctx.db,
        refused.map((r) => r.p),
        refusedBy(embedder.id),
      );
    });
    for (const r of refused) onRefused?.(r.p.id, r.error);
    if (failure) throw failure;
    done += items.length;
    if (pending.length < BATCH) break;
  }
  return done;
}

/**
 * The records' vectors (by position); when the server refuses the batch as bad input, one record at a time, so that
 * one it refuses does not hold the others back. `failure`: the server failing (or refusing everything) part way.
 */
export async function embedRecords<T extends { error: string }>(
  embedder: Embedder,
  pending: readonly T[],
  signal?: AbortSignal,
): Promise<{
  vectors: (Float32Array | undefined)[];
  refused: { p: T; error: string }[];
  failure?: unknown;
}> {
  const texts = pending.map((p) => p.error);
  try {
    return { vectors: await embedder.embed(texts, signal, "document"), refused: [] };
  } catch (err) {
    signal?.throwIfAborted();
    if (!inputRefused(err)) throw err;
  }
  const vectors: (Float32Array | undefined)[] = [];
  const refused: { p: T; error: string }[] = [];
  let takesText = false;
  for (const [i, p] of pending.entries()) {
    try {
      vectors[i] = (await embedder.embed([p.error], signal, "document"))[0];
    } catch (err) {
      signal?.throwIfAborted();
      const none = vectors.every((v) => v === undefined);
      if (
        !inputRefused(err) ||
        (none && refused.length >= 2 && !takesText && !(takesText = await embedsText(embedder, signal)))
      )
        return { vectors, refused: none ? [] : refused, failure: err };
      refused.push({ p, error: describeError(err) });
    }
  }
  return { vectors, refused };
}

/**
 * Records the archive says `embedderId` embedded, while its table in the home's vector store is gone (the store
 * deleted, or a backup restored without it), wait for a vector again: the catch-up of the next searches embeds them.
 */
export function forgetLostErrorVectors(ctx: MemoryContext, embedderId: string): void {
  if (ctx.config.vectors.uri) return; // an object store is not listed here
  if (existsSync(join(ctx.paths.lance, `${embedderTableName(ERROR_TABLES, embedderId)}.lance`))) return;
  if (countEmbeddedBy(ctx.db, embedderId, ctx.now()) === 0) return;
  withWriteLock(ctx.db, () => clearEmbeddedBy(ctx.db, embedderId));
}

/** A rebuild's start: `embedderId`'s error table dropped (it may be damaged) and every record waiting for a vector. */
export async function restartErrorVectors(ctx: MemoryContext, embedderId: string): Promise<void> {
  if (mayHoldVectors(ctx)) await (await errorVectorStore(ctx)).drop(embedderId);
  withWriteLock(ctx.db, () => clearEmbedded(ctx.db));
}

export interface ErrorVectorsRebuilt {
  /** Records embedded now. */
  embedded: number;
  /** Tables dropped: other embedders' (by embedder id) and damaged ones (by table name). */
  dropped: string[];
}

/** A rebuild's end: every live record without a vector embedded, then other embedders' and damaged tables dropped. */
export async function completeErrorVectors(
  ctx: MemoryContext,
  embedder: Embedder,
  signal?: AbortSignal,
  onRefused?: (id: string, error: string) => void,
): Promise<ErrorVectorsRebuilt> {
  const embedded = await embedPendingErrors(ctx, embedder, Number.MAX_SAFE_INTEGER, signal, onRefused);
  if (!mayHoldVectors(ctx) || countUnembedded(ctx.db, embedder.id, ctx.now()) > 0) return { embedded, dropped: [] };
  const store = await errorVectorStore(ctx);
  const dropped = await store.dropAllBut(embedder.id);
  for (const d of await store.damagedTables()) {
    await store.dropTable(d.table);
    dropped.push(d.table);
  }
  return { embedded, dropped };
}
