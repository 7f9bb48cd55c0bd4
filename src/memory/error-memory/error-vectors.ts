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
} from "../../storage/sqlite/error-memory-repo.ts";
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
 * Returns how many were embedded. Embedding errors propagate; what was done before them is kept.
 */
export async function embedPendingErrors(
  ctx: MemoryContext,
  embedder: Embedder,
  max: number,
  signal?: AbortSignal,
): Promise<number> {
  let done = 0;
  while (done < max) {
    const pending = listUnembedded(ctx.db, embedder.id, ctx.now(), Math.min(BATCH, max - done));
    if (pending.length === 0) break;
    const vectors = await embedder.embed(
      pending.map((p) => p.error),
      signal,
      "document",
    );
    const store = await errorVectorStore(ctx);
    await store.upsert(
      embedder.id,
      embedder.dim,
      pending.map((p, i) => ({ id: p.id, vector: vectors[i]! })),
      { replace: true },
    );
    withWriteLock(ctx.db, () => markEmbedded(ctx.db, pending, embedder.id));
    done += pending.length;
    if (pending.length < BATCH) break;
  }
  return done;
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
): Promise<ErrorVectorsRebuilt> {
  const embedded = await embedPendingErrors(ctx, embedder, Number.MAX_SAFE_INTEGER, signal);
  if (!mayHoldVectors(ctx) || countUnembedded(ctx.db, embedder.id, ctx.now()) > 0) return { embedded, dropped: [] };
  const store = await errorVectorStore(ctx);
  const dropped = await store.dropAllBut(embedder.id);
  for (const d of await store.damagedTables()) {
    await store.dropTable(d.table);
    dropped.push(d.table);
  }
  return { embedded, dropped };
}
