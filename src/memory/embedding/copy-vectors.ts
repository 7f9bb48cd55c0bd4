// Copy every vector (message and error tables, every embedder) from one store to another, such as a home's
// .store/lance to a shared S3 store: rows already in the target are skipped (a killed copy resumes), and
// every source id is checked to be in the target afterwards. The caller holds the target's vector write lock.
import { existsSync } from "node:fs";
import { namedError } from "../../shared/errors.ts";
import { faultPoint } from "../../shared/fault-point.ts";
import {
  openErrorVectors,
  openMessageVectors,
  type ErrorVectors,
  type MessageVectors,
  type VectorRow,
} from "../../storage/ports/vector-port.ts";
import type { VectorLocation } from "../../storage/ports/vector-location.ts";

export interface VectorCopyProgress {
  kind: "messages" | "errors";
  embedderId: string;
  /** Rows of this table read so far (copied or found in the target). */
  done: number;
  /** Of `done`, the rows found in the target (not copied by this run). */
  skipped: number;
  total: number;
}

export interface VectorCopyTable {
  kind: "messages" | "errors";
  embedderId: string;
  /** Rows in the source table. */
  source: number;
  /** Rows written to the target by this run. */
  copied: number;
  /** Rows the target held already (an earlier, interrupted run; or the same ids). */
  present: number;
}

/** After a copy, some source ids are not in the target (a concurrent deletion there, or a failed write). */
export const VectorCopyMismatchError = namedError<{
  kind: string;
  embedderId: string;
  missing: number;
  source: number;
}>(
  "VectorCopyMismatchError",
  "runtime",
  (d) =>
    `the copy of the ${d.kind} vectors of ${d.embedderId} is incomplete: ${d.missing} of ${d.source} rows are not in the target; run it again`,
);

/**
 * Vector bytes per write to the target. Each write is one commit and one data file (a few requests on object
 * storage): large writes leave few fragments, so the copy needs no compaction (a rewrite of everything).
 */
const WRITE_BYTES = 64 * 1024 * 1024;

type Stores = { messages: MessageVectors; errors: ErrorVectors };

async function open(location: VectorLocation): Promise<Stores> {
  const messages = await openMessageVectors(location);
  try {
    return { messages, errors: await openErrorVectors(location) };
  } catch (err) {
    messages.close();
    throw err;
  }
}

function close(s: Stores): void {
  s.messages.close();
  s.errors.close();
}

/** A table's progress so far: rows read, those of them the target held already, rows in all. */
const progressOf = (r: VectorCopyTable) => ({ done: r.copied + r.present, skipped: r.present, total: r.source });

async function copyMessageTable(
  from: MessageVectors,
  to: MessageVectors,
  embedderId: string,
  onProgress: (p: VectorCopyProgress) => void,
  signal?: AbortSignal,
): Promise<VectorCopyTable> {
  const src = (await from.table(embedderId, 0))!;
  const report: VectorCopyTable = { kind: "messages", embedderId, source: await src.count(), copied: 0, present: 0 };
  const existing = await to.table(embedderId, 0);
  // An empty or absent target (a first run) needs no lookup of present ids.
  const present = new Set(existing && (await existing.count()) > 0 ? (await existing.keys()).map((k) => k.id) : []);
  existing?.close();
  const sourceIds = new Set<string>();
  let dst: Awaited<ReturnType<MessageVectors["table"]>>;
  let pending: VectorRow[] = [];
  const flush = async () => {
    if (pending.length === 0) return;
    dst ??= await to.table(embedderId, pending[0]!.vector.length, { create: true });
    // New ids only (those present were filtered out): an append, one commit per WRITE_BYTES of vectors.
    await dst!.append(pending);
    report.copied += pending.length;
    pending = [];
    faultPoint("after-vector-batch");
    onProgress({ kind: "messages", embedderId, ...progressOf(report) });
  };
  try {
    for await (const batch of src.batches()) {
      signal?.throwIfAborted();
      for (const r of batch) {
        if (sourceIds.has(r.id)) continue;
        sourceIds.add(r.id);
        if (present.has(r.id)) report.present++;
        else pending.push(r);
      }
      if (pending.length > 0 && pending.length * pending[0]!.vector.length * 4 >= WRITE_BYTES) await flush();
    }
    await flush();
    onProgress({ kind: "messages", embedderId, ...progressOf(report) });
    if (report.copied > 0) await dst!.ensureIndex();
    const check = await to.table(embedderId, 0);
    const inTarget = new Set(check ? (await check.keys()).map((k) => k.id) : []);
    check?.close();
    verify(report, sourceIds, inTarget);
  } finally {
    src.close();
    dst?.close();
  }
  return report;
}

async function copyErrorTable(
  from: ErrorVectors,
  to: ErrorVectors,
  embedderId: string,
  onProgress: (p: VectorCopyProgress) => void,
  signal?: AbortSignal,
): Promise<VectorCopyTable> {
  const sourceIdList = await from.ids(embedderId);
  const report: VectorCopyTable = { kind: "errors", embedderId, source: sourceIdList.length, copied: 0, present: 0 };
  const present = new Set(await to.ids(embedderId));
  for await (const batch of from.batches(embedderId)) {
    signal?.throwIfAborted();
    const fresh = batch.filter((r) => !present.has(r.id));
    report.present += batch.length - fresh.length;
    if (fresh.length > 0) {
      await to.upsert(embedderId, fresh[0]!.vector.length, fresh, { replace: false });
      report.copied += fresh.length;
    }
    onProgress({ kind: "errors", embedderId, ...progressOf(report) });
  }
  verify(report, new Set(sourceIdList), new Set(await to.ids(embedderId)));
  return report;
}

function verify(report: VectorCopyTable, sourceIds: Set<string>, inTarget: Set<string>): void {
  let missing = 0;
  for (const id of sourceIds) if (!inTarget.has(id)) missing++;
  if (missing > 0)
    throw new VectorCopyMismatchError({
      kind: report.kind,
      embedderId: report.embedderId,
      missing,
      source: sourceIds.size,
    });
}

/**
 * Copy every message and error vector of `from` into `to`, table by table. Resumable: what the target holds
 * already is skipped. Verified: each source id is in the target at the end (VectorCopyMismatchError otherwise);
 * the target may hold more (other homes sharing it).
 */
export async function copyVectors(
  from: VectorLocation,
  to: VectorLocation,
  onProgress: (p: VectorCopyProgress) => void = () => {},
  signal?: AbortSignal,
): Promise<VectorCopyTable[]> {
  if (from.kind === "local" && !existsSync(from.dir)) return []; // the home never stored a vector
  const src = await open(from);
  let dst: Stores | undefined;
  try {
    dst = await open(to);
    const out: VectorCopyTable[] = [];
    for (const { embedderId } of await src.messages.tables())
      out.push(await copyMessageTable(src.messages, dst.messages, embedderId, onProgress, signal));
    for (const { embedderId } of await src.errors.tables())
      out.push(await copyErrorTable(src.errors, dst.errors, embedderId, onProgress, signal));
    if (out.some((t) => t.kind === "errors" && t.copied > 0)) await dst.errors.maintain();
    return out;
  } finally {
    close(src);
    if (dst) close(dst);
  }
}
