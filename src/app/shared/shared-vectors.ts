// The semantic tier in shared mode: the configured embedder, the message and error vectors in the shared
// store, and the drain of the archive's embedding queue, one drainer at a time across hosts (a job lease).
import { createEmbedder } from "../../embed/create-embedder.ts";
import type { Embedder } from "../../embed/embedder.ts";
import type { HomePaths } from "../../config/home.ts";
import type { Config } from "../../config/schema.ts";
import { embedQueued, retryDelay } from "../../memory/embedding/drain.ts";
import { leaseTurn } from "../../storage/ports/lease-turn.ts";
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
/** The drain lease: renewed while held; a drainer that dies frees it after this long. */
const DRAIN_LEASE_MS = 60_000;

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

  /**
   * Embed queued messages and apply scheduled vector deletions, when no other process holds the drain
   * lease (it is doing the same); at most `max` messages. Returns how many were embedded.
   */
  async drain(now: () => bigint, max = 5_000): Promise<number> {
    const turn = await leaseTurn(this.archive, {
      job: "vector-write",
      session: "*",
      holder: this.holder,
      ttlMs: DRAIN_LEASE_MS,
    })();
    if (!turn) return 0;
    try {
      await this.applyDeletes();
      let done = 0;
      while (done < max) {
        const due = await this.archive.dueEmbeddings(now(), Math.min(BATCH, max - done));
        if (due.length === 0) break;
        const r = await embedQueued(await this.embedder(), due);
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
        if (r.failed.length > 0) {
          await this.archive.deferEmbeddings(
            r.failed.map((q) => q.message.seq),
            r.error ?? "embedding failed",
            now() + retryDelay(1 + Math.max(...r.failed.map((q) => q.attempts))),
          );
          break;
        }
        done += due.length;
      }
      return done;
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
      if (pending.ids.length) await table.deleteIds(pending.ids);
      for (const b of pending.before) await table.deleteBefore(b.session, b.beforeSeq);
    }
    await this.archive.clearVectorDeletes(pending);
  }

  async close(): Promise<void> {
    for (const p of [this.#messages.opened(), this.#errors.opened()]) (await p?.catch(() => undefined))?.close();
  }
}
