// The semantic tier in shared mode: the configured embedder, the message and error vectors in the shared
// store, and the drain of the archive's embedding queue, one drainer at a time across hosts (a job lease).
import { createEmbedder } from "../../embed/create-embedder.ts";
import type { Embedder } from "../../embed/embedder.ts";
import type { HomePaths } from "../../config/home.ts";
import type { Config } from "../../config/schema.ts";
import { embedQueued, retryDelay, type RefusedMessage } from "../../memory/embedding/drain.ts";
import { refusedBy, refusedError } from "../../storage/ports/refused-input.ts";
import { embedRecords } from "../../memory/error-memory/error-vectors.ts";
import type { ReindexOptions, ReindexReport } from "../../memory/embedding/reindex.ts";
import type { VectorMaintenance } from "../../memory/maintenance.ts";
import { describeError } from "../../shared/describe-error.ts";
import { namedError } from "../../shared/errors.ts";
import { leaseTurn, VECTOR_WRITE_JOB } from "../../storage/ports/lease-turn.ts";
import type { SharedArchivePort } from "../../storage/ports/shared-archive-port.ts";
import { vectorLocation } from "../../storage/ports/vector-location.ts";
import {
  openErrorVectors,
  openMessageVectors,
  type ErrorVectors,
  type MessageVectors,
  type MessageVectorTable,
} from "../../storage/ports/vector-port.ts";

const BATCH = 256;

/** Another process kept the shared vectors' write lease past the wait. */
export const VectorsBusyError = namedError<{ holder: string }>(
  "VectorsBusyError",
  "runtime",
  (d) => `the shared vectors are being written by ${d.holder}`,
);
/** Archive meta keys: the embedder a rebuild in progress is for, and the one the last complete rebuild used. */
const REINDEX_TARGET = "reindex_target";
const VECTORS_EMBEDDER = "vectors_embedder";

export interface SharedReindexOptions
  extends Pick<ReindexOptions, "signal" | "pendingOnly" | "onWait" | "onStart" | "onProgress" | "onIndexBuild"> {
  /** How long a rebuild waits for the drain lease another process holds (default 30 s; --pending: not at all). */
  waitMs?: number;
}
/** The drain lease: renewed while held; a drainer that dies frees it after this long. */
const DRAIN_LEASE_MS = 60_000;
/** The lease a full rebuild holds for its whole run, on every host: one rebuild at a time. */
const REINDEX_JOB = "reindex";

const once = <T>(open: () => Promise<T>) => {
  let p: Promise<T> | undefined;
  return {
    get: () =>
      (p ??= open().catch((err) => {
        p = undefined;
        throw err;
      })),
    opened: () => p,
  };
};

export class SharedVectors {
  readonly #embedder;
  readonly #messages;
  readonly #errors;

  constructor(
    paths: HomePaths,
    private readonly config: Config,
    private readonly archive: SharedArchivePort,
    private readonly holder: string,
    env: Readonly<Record<string, string | undefined>>,
  ) {
    const location = () => vectorLocation(config.vectors, paths.lance, env);
    this.#embedder = once(() => createEmbedder(config.embedder, { env: { ...env } }));
    this.#messages = once(() => Promise.resolve().then(() => openMessageVectors(location())));
    this.#errors = once(() => Promise.resolve().then(() => openErrorVectors(location())));
  }

  embedder(): Promise<Embedder> {
    return this.#embedder.get();
  }
  messageStore(): Promise<MessageVectors> {
    return this.#messages.get();
  }
  errorStore(): Promise<ErrorVectors> {
    return this.#errors.get();
  }

  /** The configured embedder's message table; created empty when `create`. */
  async table(create = false): Promise<MessageVectorTable | undefined> {
    const e = await this.embedder();
    return (await this.messageStore()).table(e.id, e.dim, { create });
  }

  /** Whether the configured table is an earlier memvoy's with its index built: its files keep removed rows. */
  async keepsRemovedRows(): Promise<boolean> {
    const t = await this.table();
    try {
      return (await t?.keepsRemovedRows()) === true;
    } finally {
      t?.close();
    }
  }

  /** The lease is per process: this process's own drains and rebuilds wait here for each other, in turn. */
  #inProcess: Promise<unknown> = Promise.resolve();

  /**
   * Take the drain lease once (another process may hold it: undefined); the returned function gives it back.
   * With `until` (a Date.now() time), this process's own holder is waited for only until then.
   */
  async #turn(until?: number): Promise<(() => Promise<void>) | undefined> {
    const mine = Promise.withResolvers<void>();
    const before = this.#inProcess;
    this.#inProcess = before.then(() => mine.promise);
    const free = before.then(
      () => true,
      () => true,
    );
    if (!(await (until === undefined ? free : Promise.race([free, Bun.sleep(until - Date.now()).then(() => false)])))) {
      mine.resolve(); // given up: the next in turn waits for the one before instead
      return undefined;
    }
    try {
      const give = await leaseTurn(this.archive, {
        job: VECTOR_WRITE_JOB,
        session: "*",
        holder: this.holder,
        ttlMs: DRAIN_LEASE_MS,
      })();
      if (!give) mine.resolve();
      return (
        give &&
        (async () => {
          try {
            await give();
          } finally {
            mine.resolve();
          }
        })
      );
    } catch (err) {
      mine.resolve();
      throw err;
    }
  }

  /**
   * Embed queued messages and apply scheduled vector deletions, when no other process holds the drain
   * lease (it is doing the same); at most `max` messages. Returns how many were embedded.
   */
  async drain(now: () => bigint, max = 5_000): Promise<number> {
    const turn = await this.#turn();
    if (!turn) return 0;
    try {
      await this.applyDeletes();
      return (await this.#embedQueue(now, max)).embedded;
    } finally {
      await turn();
    }
  }

  /** Embed what is due in the queue, batch by batch (the caller holds the lease); stops at a failed batch. */
  async #embedQueue(
    now: () => bigint,
    max: number,
    o: { signal?: AbortSignal; onProgress?: (done: number) => void } = {},
  ): Promise<{ embedded: number; failed: number; error?: string; refused: RefusedMessage[] }> {
    let done = 0;
    const refused: RefusedMessage[] = [];
    while (done < max && !o.signal?.aborted) {
      const due = await this.archive.dueEmbeddings(now(), Math.min(BATCH, max - done));
      if (due.length === 0) break;
      const r = await embedQueued(await this.embedder(), due);
      // A message refused on its own waits with the back-off; the next batch goes on.
      for (const x of r.refused) {
        await this.archive.deferEmbeddings(
          [x.q.message.seq],
          refusedError(x.error),
          now() + retryDelay(1 + x.q.attempts),
        );
        refused.push({ id: x.q.message.id, session: x.q.message.session, error: x.error });
      }
      if (r.done.length > 0) {
        const table = (await this.table(true))!;
        await table.upsert(
          r.done.map(({ q, vector }) => ({
            id: q.message.id,
            seq: q.message.seq,
            session: q.message.session,
            sendAt: q.message.sendAt,
            role: q.message.role,
            content: "",
            vector,
          })),
        );
        await this.archive.dequeueEmbeddings(r.done.map(({ q }) => ({ seq: q.message.seq, id: q.message.id })));
      }
      done += r.done.length;
      o.onProgress?.(done);
      if (r.failed.length > 0) {
        await this.archive.deferEmbeddings(
          r.failed.map((q) => q.message.seq),
          r.error ?? "embedding failed",
          now() + retryDelay(1 + Math.max(...r.failed.map((q) => q.attempts))),
        );
        return {
          embedded: done,
          failed: r.failed.length + refused.length,
          error: r.error ?? "embedding failed",
          refused,
        };
      }
    }
    return { embedded: done, failed: refused.length, refused };
  }

  /**
   * Rebuild every recent message's vector with the configured embedder on the shared store, holding the drain
   * lease throughout (no other host's drain writes meanwhile; waits up to `waitMs` for it). Resumable: the
   * rebuild's target is kept in the archive and its queue is the archive's. With `pendingOnly`, the queue only.
   */
  async reindex(now: () => bigint, o: SharedReindexOptions = {}): Promise<ReindexReport> {
    const embedder = await this.embedder();
    const report: ReindexReport = {
      busy: false,
      embedded: 0,
      deletesApplied: 0,
      failed: 0,
      remaining: 0,
      embedderId: embedder.id,
      resumed: false,
      dropped: [],
      waited: false,
      errorsEmbedded: 0,
    };
    const rebuilding = o.pendingOnly ? undefined : await this.#rebuildTurn(o);
    report.waited = rebuilding?.waited === true;
    try {
      return await this.#rebuild(now, embedder, report, o);
    } finally {
      await rebuilding?.give();
    }
  }

  /**
   * The rebuild lease, waited for as long as another rebuild (on any host) holds it: a second one then finds
   * the first's work done and embeds only what was queued since, or resumes the first if it was interrupted.
   */
  async #rebuildTurn(o: SharedReindexOptions): Promise<{ give: () => Promise<void>; waited: boolean }> {
    const take = leaseTurn(this.archive, {
      job: REINDEX_JOB,
      session: "*",
      holder: this.holder,
      ttlMs: DRAIN_LEASE_MS,
    });
    for (let waited = false; ; waited = true) {
      o.signal?.throwIfAborted();
      const give = await take();
      if (give) return { give, waited };
      if (!waited) o.onWait?.((await this.archive.leaseHolder(REINDEX_JOB, "*"))?.holder ?? "");
      await Bun.sleep(250);
    }
  }

  async #rebuild(
    now: () => bigint,
    embedder: Embedder,
    report: ReindexReport,
    o: SharedReindexOptions,
  ): Promise<ReindexReport> {
    const turn = await this.#waitTurn(o.pendingOnly ? 0 : (o.waitMs ?? 30_000), o.signal);
    if (!turn) return { ...report, busy: true, remaining: await this.archive.queuedCount() };
    try {
      const store = await this.messageStore();
      const target = await this.archive.getMeta(REINDEX_TARGET);
      report.resumed = target === embedder.id;
      // The rebuild waited for was complete for this same embedder: only what was queued since is left.
      const done =
        report.waited &&
        !report.resumed &&
        target === undefined &&
        (await this.archive.getMeta(VECTORS_EMBEDDER)) === embedder.id;
      if (!o.pendingOnly && !report.resumed && !done) {
        // Its vectors are dropped only once the embedder answers: a server down, or a refused key, keeps them.
        if (!embedder.local) await embedder.embed(["reindex"], o.signal, "document");
        // Rebuild from scratch for this embedder: its old vectors may come from an older builtin version.
        await store.drop(embedder.id);
        // Error memory's vectors too: their table may be damaged, gone, or another embedder's.
        await (await this.errorStore()).drop(embedder.id);
        await this.archive.clearErrorsEmbedded();
        await this.archive.requeueRecent();
        await this.archive.setMeta(REINDEX_TARGET, embedder.id);
      } else await this.archive.makeQueueDue();
      await this.applyDeletes();
      o.onStart?.(await this.archive.queuedCount(), report.resumed);
      const r = await this.#embedQueue(now, Number.MAX_SAFE_INTEGER, {
        signal: o.signal,
        onProgress: (done) => o.onProgress?.(done, 0),
      });
      report.embedded = r.embedded;
      report.failed = r.failed;
      if (r.refused.length > 0) report.refused = r.refused;
      if (r.error !== undefined) report.error = r.error;
      report.remaining = await this.archive.queuedCount();
      o.signal?.throwIfAborted();
      const rebuilding = (await this.archive.getMeta(REINDEX_TARGET)) === embedder.id;
      // Messages the embedder refuses on their own do not hold the rebuild open (the report names them).
      const complete = async () => report.remaining <= (await this.archive.refusedCount()).count && !report.error;
      if (rebuilding && (await complete())) {
        try {
          const errorsRefused: { id: string; error: string }[] = [];
          try {
            report.errorsEmbedded = await this.#embedErrors(embedder, now, o.signal, errorsRefused);
          } finally {
            if (errorsRefused.length > 0) report.errorsRefused = errorsRefused;
          }
          for (const id of await (await this.errorStore()).dropAllBut(embedder.id))
            if (!report.dropped.includes(id)) report.dropped.push(id);
        } catch (err) {
          o.signal?.throwIfAborted();
          report.error = `error memory: ${describeError(err)}`; // the rebuild stays open: the next reindex resumes it
        }
      }
      if (rebuilding && (await complete())) {
        // Complete: the vectors of other embedders go (those the store lists, and the previous rebuild's).
        const previous = await this.archive.getMeta(VECTORS_EMBEDDER);
        for (const t of await store.tables(previous ? [previous] : [])) {
          if (t.embedderId === embedder.id) continue;
          await store.drop(t.embedderId);
          if (!report.dropped.includes(t.embedderId)) report.dropped.push(t.embedderId);
        }
        await (await this.table(true))!.maintain({ onIndexBuild: o.onIndexBuild });
        await this.archive.setMeta(VECTORS_EMBEDDER, embedder.id);
        await this.archive.setMeta(REINDEX_TARGET, undefined);
      }
      return report;
    } finally {
      await turn();
    }
  }

  /**
   * Embed every live error record without a vector from `embedder` (a rebuild's end); returns how many. Records
   * it refuses on their own are marked so and pushed to `refused`.
   */
  async #embedErrors(
    embedder: Embedder,
    now: () => bigint,
    signal: AbortSignal | undefined,
    refused: { id: string; error: string }[],
  ): Promise<number> {
    const store = await this.errorStore();
    let done = 0;
    for (;;) {
      const rows = await this.archive.unembeddedErrors(embedder.id, now(), BATCH);
      if (rows.length === 0) return done;
      const r = await embedRecords(embedder, rows, signal);
      const items = rows.flatMap((row, i) => (r.vectors[i] ? [{ row, vector: r.vectors[i] }] : []));
      if (items.length > 0) {
        await store.upsert(
          embedder.id,
          embedder.dim,
          items.map(({ row, vector }) => ({ id: row.id, vector })),
          { replace: true },
        );
        await this.archive.markErrorsEmbedded(
          items.map((x) => x.row),
          embedder.id,
        );
      }
      await this.archive.markErrorsEmbedded(
        r.refused.map((x) => x.p),
        refusedBy(embedder.id),
      );
      refused.push(...r.refused.map((x) => ({ id: x.p.id, error: x.error })));
      if (r.failure) throw r.failure;
      done += items.length;
    }
  }

  /**
   * Run `fn` as the one writer of the shared vector tables (the drain lease, waited for up to `waitMs`): the
   * error table's writes too, or concurrent commits to it are lost on a store without conditional writes.
   * Throws VectorsBusyError when another process kept the lease.
   */
  async withWriteTurn<T>(fn: () => Promise<T>, waitMs: number, signal?: AbortSignal): Promise<T> {
    const turn = await this.#waitTurn(waitMs, signal, true);
    if (!turn) {
      const holder = (await this.archive.leaseHolder(VECTOR_WRITE_JOB, "*"))?.holder ?? "another process";
      throw new VectorsBusyError({ holder });
    }
    try {
      return await fn();
    } finally {
      await turn();
    }
  }

  /**
   * The drain lease, polled for up to `waitMs` (a drain elsewhere holds it for one batch at a time); `bounded`:
   * a drain of this process is waited for no longer either.
   */
  async #waitTurn(waitMs: number, signal?: AbortSignal, bounded = false) {
    const until = Date.now() + waitMs;
    for (;;) {
      const turn = await this.#turn(bounded ? until : undefined);
      if (turn || Date.now() >= until || signal?.aborted) return turn;
      await Bun.sleep(250);
    }
  }

  /**
   * The nightly upkeep of the shared vectors: the configured embedder's message table compacted, its ANN index
   * built or refreshed and its old versions dropped, then the error tables', all under the drain lease, so no
   * other host writes meanwhile (waits up to `waitMs` for a drain elsewhere to finish its batch).
   */
  async maintain(signal?: AbortSignal, waitMs = 30_000): Promise<VectorMaintenance> {
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    const turn = await this.#waitTurn(waitMs, signal);
    if (!turn)
      return { done: false, ms: ms(), note: signal?.aborted ? "stopped" : "another drain kept the table busy" };
    try {
      await this.applyDeletes();
      const table = await this.table();
      const r = table ? await table.maintain() : undefined;
      await (await this.errorStore()).maintain();
      if (!r) return { done: false, ms: ms(), note: "no vector table for the configured embedder yet" };
      return { done: true, rows: r.rows, indexed: r.indexed, ms: ms() };
    } catch (err) {
      return { done: false, ms: ms(), note: `vector upkeep failed: ${describeError(err)}` };
    } finally {
      await turn();
    }
  }

  /** Vector rows of removed or compacted messages leave the table (the archive lists them). */
  async applyDeletes(): Promise<void> {
    const pending = await this.archive.pendingVectorDeletes(10_000);
    if (pending.ids.length === 0 && pending.before.length === 0) return;
    const table = await this.table();
    if (table) {
      // Removed messages' rows leave the table's files too (scrub); a compaction's rows are of messages the
      // archive still holds (moved out of the recent tier), and need not: a sample of them tells which it is.
      if (pending.ids.length) await table.deleteIds(pending.ids, { scrub: true });
      for (const b of pending.before) {
        const sample = (await table.idsBefore(b.session, b.beforeSeq)).slice(0, 50);
        const held = sample.length ? await this.archive.messagesById(sample) : [];
        await table.deleteBefore(b.session, b.beforeSeq, { scrub: held.length < sample.length });
      }
    }
    await this.archive.clearVectorDeletes(pending);
  }

  async close(): Promise<void> {
    for (const p of [this.#messages.opened(), this.#errors.opened()]) (await p?.catch(() => undefined))?.close();
  }
}
