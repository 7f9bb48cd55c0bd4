// Error memory in shared mode: records in the archive, their vectors in the shared store. The input checks,
// redaction, signature, merge rule and ranking are the embedded mode's; a record's merge is serialised
// across hosts by an archive lock on its tool. The word-vector signal of the embedded lookup is not used.
import { describeAfterSome, describeError } from "../../shared/describe-error.ts";
import { redactSecrets, secretValues } from "../../shared/redact.ts";
import {
  DEFAULT_LIST_LIMIT,
  type ErrorList,
  type RemoveErrorResult,
  type SweepResult,
} from "../../memory/error-memory/error-admin.ts";
import { errorIdPrefix, oneErrorRow, randomErrorId, ERROR_ID_LENGTH } from "../../memory/error-memory/error-ids.ts";
import { checkListInput, checkSearchInput } from "../../memory/error-memory/error-input.ts";
import { errorQueryTerms } from "../../memory/error-memory/error-query.ts";
import { recordEmbedder, toErrorRecord, type ErrorRecord } from "../../memory/error-memory/error-record.ts";
import { rankErrors } from "../../memory/error-memory/rank-errors.ts";
import { meanCosine } from "../../memory/error-memory/error-candidates.ts";
import { embedRecords } from "../../memory/error-memory/error-vectors.ts";
import { refusedBy } from "../../storage/ports/refused-input.ts";
import {
  errorFieldsOf,
  errorTtlNs,
  mergedFields,
  RULES_KEY,
  type RecordErrorResult,
} from "../../memory/error-memory/record-error.ts";
import { errorSignature, SIGNATURE_RULES } from "../../memory/error-memory/signature.ts";
import type { ErrorSearchResult } from "../../memory/error-memory/search-errors.ts";
import { textQueryOf } from "../../search/text-query.ts";
import type { ErrorRow } from "../../storage/ports/archive-port.ts";
import { leaseTurn } from "../../storage/ports/lease-turn.ts";
import { turnHolder, type SharedContext } from "./shared-context.ts";
import { VectorsBusyError } from "./shared-vectors.ts";

/** The lock name a tool's records are merged under (not a session id: those never start with a dot). */
const toolLock = (tool: string) => `.errors:${tool.toLowerCase()}`;
const EMBED_TIMEOUT_MS = 5000;
/** How long a write to the shared error vectors waits for another writer (a drain's batch) to finish. */
const WRITE_WAIT_MS = 5000;

const ignoreBusy = (err: unknown) => {
  if (!(err instanceof VectorsBusyError)) throw err;
};
/** The sweep's job lease: one host sweeps at a time (its vector deletions are writes to the shared table). */
const SWEEP_JOB = "error-sweep";

export class SharedErrors {
  constructor(private readonly ctx: SharedContext) {}

  async record(raw: unknown): Promise<RecordErrorResult> {
    const { fields, kinds } = errorFieldsOf(raw, secretValues(this.ctx.env));
    const { archive } = this.ctx;
    // Records signed by an older memvoy's rules are signed again first, else this error would miss its record.
    if ((await archive.getMeta(RULES_KEY)) !== SIGNATURE_RULES) {
      await archive.resignErrors(errorSignature);
      await archive.setMeta(RULES_KEY, SIGNATURE_RULES);
    }
    const { row, merged } = await this.ctx.withSessionLock(toolLock(fields.tool), async () => {
      const now = this.ctx.now();
      const expiresAt = now + errorTtlNs(this.ctx);
      const existing = await archive.errorBySignature(fields.tool, fields.signature);
      if (existing && existing.expiresAt > now) {
        const changed = existing.error !== fields.error;
        return {
          row: await archive.mergeError(existing.seq, mergedFields(existing, fields), now, expiresAt, changed),
          merged: true,
        };
      }
      if (existing) await archive.deleteErrors([existing], now);
      return { row: await archive.insertError(await this.#freeId(), fields, now, expiresAt), merged: false };
    });
    // A record whose text did not change keeps its vector; otherwise it is embedded now, best effort.
    const embedded =
      row.embeddedBy ??
      (await this.#embed([row], AbortSignal.timeout(EMBED_TIMEOUT_MS)).then(
        (r) => (r.refused[0] !== undefined ? new Error(r.refused[0]) : r.embedderId),
        (err: unknown) => err as Error,
      ));
    const failed = embedded instanceof Error;
    return {
      record: toErrorRecord({ ...row, embeddedBy: failed ? null : embedded }, recordEmbedder(this.ctx)),
      merged,
      redacted: kinds,
      notes: failed
        ? [`recorded without a vector for now (it is embedded at a later search): ${describeError(embedded)}`]
        : [],
    };
  }

  async #freeId(): Promise<string> {
    for (;;) {
      const id = randomErrorId();
      if ((await this.ctx.archive.errorsByIdPrefix(id, 0n, 1)).length === 0) return id;
    }
  }

  /** Embed records' error texts into the shared store; returns the embedder's id. */
  /** The embedder's id, and the errors of the records it refused on their own (those keep no vector). */
  async #embed(
    rows: readonly ErrorRow[],
    signal?: AbortSignal,
    waitMs = WRITE_WAIT_MS,
  ): Promise<{ embedderId: string; refused: string[] }> {
    const embedder = await this.ctx.vectors.embedder();
    // A record the embedder refuses on its own holds back no other, and is not sent again (refusedBy).
    const { vectors, refused, failure } = await embedRecords(embedder, rows, signal);
    const store = await this.ctx.vectors.errorStore();
    const done = rows.flatMap((r, i) => (vectors[i] ? [{ r, vector: vectors[i] }] : []));
    await this.ctx.vectors.withWriteTurn(async () => {
      if (done.length > 0) {
        const items = done.map(({ r, vector }) => ({ id: r.id, vector }));
        await store.upsert(embedder.id, embedder.dim, items, { replace: true });
        await this.ctx.archive.markErrorsEmbedded(
          done.map((x) => x.r),
          embedder.id,
        );
      }
      await this.ctx.archive.markErrorsEmbedded(
        refused.map((x) => x.p),
        refusedBy(embedder.id),
      );
    }, waitMs);
    if (failure) throw failure;
    return { embedderId: embedder.id, refused: refused.map((x) => x.error) };
  }

  async search(raw: unknown): Promise<ErrorSearchResult> {
    const o = checkSearchInput(raw);
    const query = redactSecrets(o.query, secretValues(this.ctx.env)).text;
    const { archive } = this.ctx;
    const start = this.ctx.now();
    const tool = o.otherTools ? undefined : o.tool;
    const pool = Math.max(50, (o.offset + o.limit) * 10);
    const q = textQueryOf(errorQueryTerms(query), "any");
    const keyword = q ? await archive.searchErrorText(q, start, tool, pool) : [];
    const notes: string[] = [];
    let semantic: { seq: bigint; score: number }[] = [];
    let background = 0;
    let notEmbedded = 0;
    try {
      ({ semantic, background, notEmbedded } = await this.#semantic(query, start, tool, pool));
      if (notEmbedded > 0)
        notes.push(`${notEmbedded} error record(s) are not embedded yet; they are found by keyword only`);
    } catch (err) {
      notes.push(`semantic lookup unavailable, keyword results only: ${describeError(err)}`);
    }
    const seqs = [...new Set([...keyword, ...semantic].map((c) => c.seq))];
    const live = await archive.liveErrorsBySeqs(seqs, start);
    const kw = new Map(keyword.map((c) => [c.seq, c.score]));
    const sem = new Map(semantic.map((c) => [c.seq, c.score]));
    const items = live.map((r) => ({
      seq: r.seq,
      tool: r.tool,
      outcome: r.outcome,
      ...(kw.has(r.seq) ? { keyword: kw.get(r.seq)! } : {}),
      ...(sem.has(r.seq) ? { semantic: sem.get(r.seq)! } : {}),
    }));
    // Only the page returned is a hit: the records ranked before it were not shown.
    const ranked = rankErrors(items, background, o.tool).slice(o.offset, o.offset + o.limit);
    if (ranked.length === 0) return { hits: [], notEmbedded, notes };
    const now = this.ctx.now();
    if (o.hit !== false)
      await archive.touchErrors(
        ranked.map((r) => r.seq),
        now,
        now + errorTtlNs(this.ctx),
      );
    const fresh = new Map(
      (
        await archive.liveErrorsBySeqs(
          ranked.map((r) => r.seq),
          now,
        )
      ).map((r) => [r.seq, r]),
    );
    const hits = ranked.flatMap((r) => {
      const row = fresh.get(r.seq);
      return row
        ? [{ record: toErrorRecord(row, recordEmbedder(this.ctx)), score: r.score, matchedBy: r.matchedBy }]
        : [];
    });
    return { hits, notEmbedded, notes };
  }

  /** A hit on each of these records (full ids) that is live: its TTL restarts. The records stamped, in order. */
  async hit(ids: readonly string[]): Promise<ErrorRecord[]> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    const { archive } = this.ctx;
    const now = this.ctx.now();
    const seqs = (await archive.liveErrorsByIds(unique, now)).map((r) => r.seq);
    if (seqs.length === 0) return [];
    await archive.touchErrors(seqs, now, now + errorTtlNs(this.ctx));
    const byId = new Map((await archive.liveErrorsBySeqs(seqs, now)).map((r) => [r.id, r]));
    return unique.flatMap((id) => {
      const row = byId.get(id);
      return row ? [toErrorRecord(row, recordEmbedder(this.ctx))] : [];
    });
  }

  /** Cosine candidates from the shared error vectors, after embedding records that lack a vector. */
  async #semantic(query: string, now: bigint, tool: string | undefined, pool: number) {
    const { archive } = this.ctx;
    const embedder = await this.ctx.vectors.embedder();
    const pending = await archive.unembeddedErrors(embedder.id, now, 256);
    // While the shared vectors are being written, they wait for a later lookup (counted below): no waiting here.
    if (pending.length > 0) await this.#embed(pending, undefined, 0).catch(ignoreBusy);
    const notEmbedded = (await archive.unembeddedErrors(embedder.id, now, 10_000)).length;
    const [vector] = await embedder.embed([query], AbortSignal.timeout(10_000), "query");
    const store = await this.ctx.vectors.errorStore();
    const hits = await store.search(embedder.id, vector!, pool);
    const sample = await store.sample(embedder.id, 256);
    const live = new Map(
      (
        await archive.liveErrorsByIds(
          hits.map((h) => h.id),
          now,
        )
      ).map((r) => [r.id, r]),
    );
    const semantic = hits.flatMap((h) => {
      const row = live.get(h.id);
      if (!row || row.embeddedBy !== embedder.id) return [];
      if (tool !== undefined && row.tool.toLowerCase() !== tool.toLowerCase()) return [];
      return [{ seq: row.seq, score: h.score }];
    });
    return { semantic, background: meanCosine(vector!, sample), notEmbedded };
  }

  async list(raw: unknown = {}): Promise<ErrorList> {
    const o = checkListInput(raw);
    const { rows, total } = await this.ctx.archive.liveErrors(
      { tool: o.tool, outcome: o.outcome },
      this.ctx.now(),
      o.limit ?? DEFAULT_LIST_LIMIT,
    );
    return { records: rows.map((r) => toErrorRecord(r, recordEmbedder(this.ctx))), total };
  }

  async #resolve(idPrefix: string, now: bigint): Promise<ErrorRow> {
    const p = errorIdPrefix(idPrefix);
    return oneErrorRow(p, p.length > ERROR_ID_LENGTH ? [] : await this.ctx.archive.errorsByIdPrefix(p, now, 6));
  }

  async get(idPrefix: string): Promise<ErrorRecord> {
    return toErrorRecord(await this.#resolve(idPrefix, this.ctx.now()), recordEmbedder(this.ctx));
  }

  async remove(idPrefix: string): Promise<RemoveErrorResult> {
    const now = this.ctx.now();
    const row = await this.#resolve(idPrefix, now);
    await this.ctx.archive.deleteErrors([row], now);
    return { removed: toErrorRecord(row, recordEmbedder(this.ctx)), notes: (await this.#applyVectorDeletes()).notes };
  }

  /** Delete every expired record, then the vectors of removed records, holding the sweep lease (else nothing). */
  async sweep(): Promise<SweepResult> {
    const { archive, config } = this.ctx;
    const holder = turnHolder(this.ctx);
    const give = await leaseTurn(archive, { job: SWEEP_JOB, session: "*", holder, ttlMs: config.archive.lease_ms })();
    if (!give) {
      const other = await archive.leaseHolder(SWEEP_JOB, "*").catch(() => undefined);
      const by = other ? ` (${other.holder})` : "";
      const note = `another process is sweeping error memory${by}: nothing done`;
      return { removed: 0, vectorsRemoved: 0, notes: [note], busy: true };
    }
    try {
      return await this.#sweepHeld();
    } finally {
      await give();
    }
  }

  async #sweepHeld(): Promise<SweepResult> {
    const now = this.ctx.now();
    let removed = 0;
    for (;;) {
      const expired = await this.ctx.archive.expiredErrors(now, 1000);
      await this.ctx.archive.deleteErrors(expired, now);
      removed += expired.length;
      if (expired.length < 1000) break;
    }
    const { notes, removed: vectorsRemoved } = await this.#applyVectorDeletes();
    return { removed, vectorsRemoved, notes };
  }

  async #applyVectorDeletes(): Promise<{ notes: string[]; removed: number }> {
    const notes: string[] = [];
    try {
      const ids = await this.ctx.archive.pendingErrorVectorDeletes(100_000);
      if (ids.length === 0) return { notes, removed: 0 };
      const embedder = await this.ctx.vectors.embedder();
      const store = await this.ctx.vectors.errorStore();
      await this.ctx.vectors.withWriteTurn(async () => {
        // Other hosts may be reading older versions: the nightly upkeep drops them.
        await store.deleteIds(ids, [embedder.id], { purge: false });
        await this.ctx.archive.clearErrorVectorDeletes(ids);
      }, WRITE_WAIT_MS);
      return { notes, removed: ids.length };
    } catch (err) {
      notes.push(`vectors of removed records stay until the next removal: ${describeAfterSome(err)}`);
    }
    return { notes, removed: 0 };
  }
}
