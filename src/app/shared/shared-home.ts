// SharedHome: memvoy in shared mode, on the PostgreSQL archive (the source of truth) and the shared vectors.
// The same native results as HomeMemory for the MemoryApi's methods, asynchronous. Every write to a session
// runs under the session's advisory lock, and leaves the host's per-session files (caches) in line with it.
import { describeAfterSome } from "../../shared/describe-error.ts";
import { assertSessionId } from "../../shared/session-id.ts";
import { newId } from "../../shared/ids.ts";
import type { StoredMessage } from "../../shared/message.ts";
import { NS_PER_SEC } from "../../shared/time.ts";
import { isEmptyFilter, resolveFilter } from "../../shared/time-filter.ts";
import { compactionPlan } from "../../memory/compaction.ts";
import { historyPages } from "../../memory/history-pages.ts";
import { InvalidLastError, MAX_LAST, type HistoryOptions } from "../../memory/history-view.ts";
import { checkNewMessage, checkRepeatedKeys, REMOVED_ID } from "../../memory/message-input.ts";
import type { AppendResult } from "../../memory/write-path.ts";
import { UnknownMessageError, type Around } from "../../memory/message-lookup.ts";
import type { ReindexOptions, ReindexReport } from "../../memory/embedding/reindex.ts";
import type { RemoveMessageResult } from "../../memory/remove-message.ts";
import { UnknownSessionError, type ResetResult } from "../../memory/session-admin.ts";
import type { SessionInfo } from "../../memory/sessions-list.ts";
import { filterRelevant } from "../../memory/summary/relevance-filter.ts";
import type { SummarizeOptions, SummarizeReport } from "../../memory/summary/summary-report.ts";
import type { BudgetState } from "../../memory/summary/token-budget.ts";
import { archiveCursorNs, localPosition } from "./shared-cursor.ts";
import { dueParts, summaryViewOf, type SummaryView } from "../../memory/summary/summary-view.ts";
import { assembleTurnContext, type TurnContext } from "../../memory/turn-context.ts";
import { recordBytes } from "../../storage/history/history-file.ts";
import { refuseSessionSymlinks } from "../../storage/history/no-symlink.ts";
import type { NewMessage as ArchiveRecord } from "../../storage/ports/archive-port.ts";
import { leaseTurn } from "../../storage/ports/lease-turn.ts";
import { keyTombstoneHash } from "../../storage/ports/tombstone-hash.ts";
import type { SearchOptions, SearchResult } from "../../search/search-types.ts";
import { homeInfo, type HomeInfo } from "../maintenance-api.ts";
import { toNewMessage, type WireMessageInput } from "../wire-input.ts";
import { dropRemoved } from "./removed-cache.ts";
import { cachedSummary, refreshSessionCache } from "./session-cache.ts";
import type { SharedContext } from "./shared-context.ts";
import { SharedErrors } from "./shared-errors.ts";
import { SharedImports } from "./shared-imports.ts";
import { sharedSearch } from "./shared-search.ts";
import { sharedBudget, sharedDue, sharedLedger, SharedSummaries } from "./shared-summaries.ts";
import { sharedStats, sharedUsage, type SharedStatsReport, type SharedUsageReport } from "./shared-stats.ts";
import { daemonLockHeld } from "../daemon-probe.ts";
import type { SweepResult } from "../../memory/error-memory/error-admin.ts";
import type { VectorMaintenance } from "../../memory/maintenance.ts";

/** The import lease: renewed while held; a daemon that dies frees it after this long. */
const IMPORT_LEASE_MS = 60_000;

/** What an add reports: as on an embedded home, with no history.json records to adopt. */
type SharedAddResult = Omit<AppendResult, "adopted">;

export class SharedHome {
  readonly errors: SharedErrors;
  readonly summaries: SharedSummaries;

  constructor(readonly ctx: SharedContext) {
    this.errors = new SharedErrors(ctx);
    this.summaries = new SharedSummaries(ctx);
    this.home = ctx.paths.home;
    this.info = () => homeInfo(ctx.paths.home, ctx.config);
  }

  /** The home folder (its files are caches here) and what front-ends show of it, as HomeMemory has them. */
  readonly home: string;
  readonly info: () => HomeInfo;

  /** Whether the archive holds a summary of the session. */
  async hasSummary(session: string): Promise<boolean> {
    return (await this.ctx.archive.getSummaryState(assertSessionId(session))) !== undefined;
  }

  #locked<T>(session: string, fn: () => Promise<T>): Promise<T> {
    return this.ctx.withSessionLock(session, fn);
  }

  #imports: SharedImports | undefined;
  /** Imported writes, per-file read state and export, on the archive (as HomeMemory's ImportApi on the home). */
  get imports(): SharedImports {
    return (this.#imports ??= new SharedImports(this));
  }
  /** Why an import could not write: this host's home, made at the first write, could not be created. */
  cannotWrite(): unknown {
    return this.#imports?.cannotWrite();
  }

  async #exists(session: string): Promise<boolean> {
    return (await this.ctx.archive.getSession(session)) !== undefined;
  }

  async #require(session: string): Promise<void> {
    assertSessionId(session);
    refuseSessionSymlinks(this.ctx.paths.session(session));
    if (!(await this.#exists(session))) throw new UnknownSessionError({ session, home: this.describe() });
  }

  /** Where this memory is, as errors name it: the home and its archive. */
  describe(): string {
    return `${this.ctx.paths.home} (shared archive)`;
  }

  /** Rewrite this host's files of the session from the archive (call under the session's lock). */
  async refreshCache(
    session: string,
    recent?: readonly StoredMessage[] | Promise<readonly StoredMessage[]>,
  ): Promise<void> {
    if (this.ctx.noLocalHome) return; // a read of a home that does not exist: no cache is made
    const { archive } = this.ctx;
    const [exists, list, summary] = await Promise.all([
      this.#exists(session),
      recent ?? archive.listMessages(session, { recentOnly: true }),
      archive.getSummaryState(session),
    ]);
    refreshSessionCache(this.ctx.paths, session, { exists, recent: list, ...(summary ? { summary } : {}) });
  }

  /** Rewrite this host's files of the session from the archive under the session's lock (doctor --repair). */
  repairCache(session: string): Promise<void> {
    assertSessionId(session);
    return this.#locked(session, () => this.refreshCache(session));
  }

  /** Append messages in order; the stored ids come back (a known idempotency key gives the stored one). */
  async add(session: string, messages: WireMessageInput | readonly WireMessageInput[]): Promise<SharedAddResult> {
    assertSessionId(session);
    refuseSessionSymlinks(this.ctx.paths.session(session));
    const list = Array.isArray(messages) ? messages : [messages as WireMessageInput];
    const where = (i: number) => (list.length > 1 ? `message ${i + 1}` : "message");
    const inputs = list.map((m, i) => toNewMessage(m, where(i)));
    inputs.forEach((m, i) => checkNewMessage(m, this.ctx.config.limits.max_message_bytes, where(i)));
    checkRepeatedKeys(inputs, where);
    if (inputs.length === 0) return { ids: [], duplicates: 0, removed: 0, compacted: 0 };
    const { archive } = this.ctx;
    return this.#locked(session, async () => {
      const now = this.ctx.now();
      const keys = inputs.flatMap((m) => (m.idempotencyKey !== undefined ? [m.idempotencyKey] : []));
      // A key whose message was removed since is not brought back (a removed key is never stored again);
      // a key still stored gives its stored message (appendMessages).
      const gone = keys.length ? await archive.tombstoned(keys.map((k) => keyTombstoneHash(session, k))) : new Set();
      const removed = new Set(keys.filter((k) => gone.has(keyTombstoneHash(session, k))));
      const records: ArchiveRecord[] = [];
      // Where each input's id comes from: its record's place in `records`, or -1 (removed since: REMOVED_ID).
      const from: number[] = [];
      for (const m of inputs) {
        if (m.idempotencyKey !== undefined && removed.has(m.idempotencyKey)) {
          from.push(-1);
          continue;
        }
        from.push(records.length);
        // Each message its own time, as the embedded home stamps them (the clock never gives one twice).
        const r: ArchiveRecord = { id: newId(), role: m.role, content: m.content, sendAt: m.sendAt ?? this.ctx.now() };
        if (m.sender !== undefined && m.sender !== "") r.sender = m.sender;
        if (m.idempotencyKey !== undefined) r.idempotencyKey = m.idempotencyKey;
        records.push(r);
      }
      const appended = await archive.appendMessages(session, records, { now });
      const { cut, note } = await this.#afterAppend(session, now);
      const out: SharedAddResult = {
        ids: from.map((i) => (i < 0 ? REMOVED_ID : appended[i]!.message.id)),
        duplicates: appended.length - appended.filter((a) => a.added).length,
        removed: inputs.length - appended.length,
        compacted: cut,
      };
      if (note) out.compactionNote = note;
      return out;
    });
  }

  /**
   * The recent tier kept to its size and this host's files rewritten, after an append. The messages are stored by
   * then: a failure here (the server gone) is a note, not an error that would read as nothing stored (and a
   * retry without idempotency keys would store them twice). The session's next write does both again.
   */
  async #afterAppend(session: string, now: bigint): Promise<{ cut: number; note?: string }> {
    const compaction = this.compactRecent(session, now);
    compaction.catch(() => {}); // awaited below; refreshCache may fail first
    try {
      await this.refreshCache(
        session,
        compaction.then((c) => c.recent),
      );
      return await compaction;
    } catch (err) {
      return {
        cut: 0,
        note: `the messages are stored, but keeping the recent tier to its size and rewriting this host's history.json failed (${describeAfterSome(err)}); the session's next write does both`,
      };
    }
  }

  /** Byte compaction of the recent tier (history.json's limit), as the embedded write path does it (under the lock). */
  async compactRecent(session: string, now: bigint) {
    const recent = await this.ctx.archive.listMessages(session, { recentOnly: true });
    let bytes = 3;
    for (const m of recent) bytes += recordBytes(m);
    const { cut, note } = compactionPlan(recent, bytes, this.ctx.config.limits.max_history_bytes);
    if (cut === 0) return { recent, cut, note };
    const first = recent[cut]!;
    await this.ctx.archive.archiveBefore(session, first.seq, first.sendAt, now);
    return { recent: recent.slice(cut).map((m) => ({ ...m })), cut, note };
  }

  /** This host's caches without the messages removed on any host: of `session`, or of every session folder. */
  #dropRemoved(session?: string): Promise<void> {
    return dropRemoved(this.ctx, (s) => this.repairCache(s), session);
  }

  async sessions(): Promise<SessionInfo[]> {
    await this.#dropRemoved();
    return (await this.ctx.archive.listSessionInfo()).map((s) => ({
      id: s.id,
      messages: s.messageCount,
      lastActivity: s.lastSendAt > 0n ? s.lastSendAt : s.updatedAt,
      hasSummary: s.hasSummary,
      ...s.meta,
    }));
  }

  /** The context window (last N of the recent tier), or every message with `all`; filters as HomeMemory. */
  async history(session: string, options: HistoryOptions = {}): Promise<StoredMessage[]> {
    const { o, filter } = await this.#checkHistory(session, options);
    const { archive } = this.ctx;
    if (!isEmptyFilter(filter)) {
      if (o.all || o.last === undefined) return archive.listMessages(session, { filter });
      return (await archive.listMessages(session, { filter, newestFirst: true, limit: o.last })).reverse();
    }
    if (o.all) return archive.listMessages(session);
    if (o.last !== undefined)
      return (await archive.listMessages(session, { newestFirst: true, limit: o.last })).reverse();
    const n = this.ctx.config.limits.max_history_messages;
    return (await archive.listMessages(session, { recentOnly: true, newestFirst: true, limit: n })).reverse();
  }

  /** history's messages in pages, oldest first (checked before this resolves), as HomeMemory.historyPages. */
  async historyPages(session: string, options: HistoryOptions = {}): Promise<AsyncGenerator<StoredMessage[]>> {
    const { o, filter } = await this.#checkHistory(session, options);
    return historyPages((range) => this.ctx.archive.listMessages(session, range), {
      ...o,
      filter,
      window: this.ctx.config.limits.max_history_messages,
    });
  }

  async #checkHistory(session: string, options: HistoryOptions) {
    const { since, until, role, sender, ...o } = options;
    const filter = o.filter ?? resolveFilter({ since, until, role, sender }, this.ctx.now());
    if (o.last !== undefined && (!Number.isSafeInteger(o.last) || o.last < 1 || o.last > MAX_LAST))
      throw new InvalidLastError({ last: o.last });
    assertSessionId(session);
    refuseSessionSymlinks(this.ctx.paths.session(session));
    await this.#dropRemoved(session);
    await this.#require(session);
    return { o, filter };
  }

  search(options: SearchOptions): Promise<SearchResult> {
    return sharedSearch(this, options);
  }

  messages(ids: readonly string[]): Promise<StoredMessage[]> {
    return this.ctx.archive.messagesById(ids);
  }

  async around(id: string, before: number, after: number): Promise<Around> {
    const { archive } = this.ctx;
    const [anchor] = await archive.messagesById([id]);
    if (!anchor) throw new UnknownMessageError({ id, where: this.describe() });
    const [earlier, later] = await Promise.all([
      before > 0
        ? archive.listMessages(anchor.session, { beforeSeq: anchor.seq, newestFirst: true, limit: before })
        : [],
      after > 0 ? archive.listMessages(anchor.session, { afterSeq: anchor.seq, limit: after }) : [],
    ]);
    return { anchor, messages: [...earlier.reverse(), anchor, ...later] };
  }

  /** The turn context, from the archive; this host's files of the session are brought up to date first. */
  async context(session: string, input?: string): Promise<TurnContext> {
    assertSessionId(session);
    refuseSessionSymlinks(this.ctx.paths.session(session));
    const { exists, recent } = await this.#locked(session, async () => {
      const recent = await this.ctx.archive.listMessages(session, { recentOnly: true });
      await this.refreshCache(session, recent);
      return { exists: await this.#exists(session), recent };
    });
    const window = recent.slice(-this.ctx.config.limits.max_history_messages);
    const parts = { exists, recent: window, summary: (await cachedSummary(this.ctx, session)).file };
    return assembleTurnContext(session, parts, input, (s) =>
      filterRelevant(sharedLedger(this.ctx), session, s, input, window),
    );
  }

  /** Run Generate now on one session, or on every due session, as HomeMemory does; one summarizer per session across hosts. */
  summarize(session?: string, options: SummarizeOptions = {}): Promise<SummarizeReport> {
    return this.summaries.summarize(session, options);
  }

  /** Sessions the summary cron should run now. */
  dueSessions(): Promise<string[]> {
    return this.summaries.due();
  }

  /** Today's tokens against [summary] daily_token_budget, over every host. */
  dailyBudget(): Promise<BudgetState> {
    return sharedBudget(this.ctx);
  }

  async summary(session: string): Promise<SummaryView> {
    await this.#require(session);
    const { archive } = this.ctx;
    return this.#locked(session, async () => {
      await this.refreshCache(session);
      const [row, run, usage, state, meta] = await Promise.all([
        archive.getSession(session),
        archive.getSummaryRun(session),
        archive.usageTotals(session),
        archive.getSummaryState(session),
        archive.sessionMeta(session),
      ]);
      const status = run ? { run } : {};
      // As the cron sees it: an imported session waits for [import] summarize = true.
      const waits = !this.ctx.config.import.summarize && meta?.source !== undefined;
      const { file, cursor } = await cachedSummary(this.ctx, session);
      const known = state ? { ...status, summaryUpdatedAt: state.updatedAt } : status;
      const due = dueParts(sharedDue(session, row, known, file.state === "corrupt"), waits);
      // The position's cursor as the file holds it: in this host's local time.
      const local = run?.position ? { ...run, position: localPosition(run.position) } : run;
      return summaryViewOf(session, { file, cursor, run: local, usage, ...due });
    });
  }

  async reset(session: string, options: { all?: boolean } = {}): Promise<ResetResult> {
    await this.#require(session);
    const { archive } = this.ctx;
    return this.#locked(session, async () => {
      const removed = await archive.removeSessionMessages(session, this.ctx.now());
      const summaryRemoved = options.all === true && (await archive.forgetSummary(session));
      await this.refreshCache(session, []);
      return { session, messagesRemoved: removed, summaryRemoved };
    });
  }

  async remove(session: string): Promise<ResetResult> {
    await this.#require(session);
    const { archive } = this.ctx;
    return this.#locked(session, async () => {
      const hadSummary = (await archive.getSummaryState(session)) !== undefined;
      const removed = await archive.removeSessionMessages(session, this.ctx.now());
      await archive.removeSession(session);
      await this.refreshCache(session, []);
      return { session, messagesRemoved: removed, summaryRemoved: hadSummary };
    });
  }

  /** `purge: false` leaves the vector deletions to a later purgeDeleted (as the embedded home's rmMessage). */
  async rmMessage(id: string, options: { dropSummary?: boolean; purge?: boolean } = {}): Promise<RemoveMessageResult> {
    const r = await this.removeMessage(id, options.dropSummary === true);
    if (options.purge !== false) await this.purgeDeleted();
    return r;
  }

  /** rm-message without the purge of the vector store (the caller purges once, after many). */
  async removeMessage(id: string, dropSummary: boolean): Promise<RemoveMessageResult> {
    const { archive } = this.ctx;
    const [found] = await archive.messagesById([id]);
    if (!found) throw new UnknownMessageError({ id, where: this.describe() });
    return this.#locked(found.session, async () => {
      const [m] = await archive.messagesById([id]);
      if (!m) throw new UnknownMessageError({ id, where: this.describe() });
      const summarized = await this.#covered(m);
      const summaryRemoved = dropSummary && (await archive.forgetSummary(m.session));
      const now = this.ctx.now();
      // A run in flight (on any host) may have read the message: its saves are refused, the next run goes without it.
      if (!summarized && !summaryRemoved) await archive.restartSummaryRun(m.session, now);
      await archive.removeMessage(m.id, now);
      await this.refreshCache(m.session);
      return { id: m.id, session: m.session, wasRecent: m.recent, summarized, summaryRemoved };
    });
  }

  /** Whether the summary already went past the message: by the exact position, else by the cursor's second. */
  async #covered(m: StoredMessage): Promise<boolean> {
    const state = await this.ctx.archive.getSummaryState(m.session);
    if (!state) return false;
    const p = (await this.ctx.archive.getSummaryRun(m.session))?.position;
    if (p && p.cursor === state.cursor) return m.seq <= p.seq;
    // The archive's cursor, not this host's copy of it (which may be missing or stale until the session's next read).
    const cursor = archiveCursorNs(state.cursor);
    return cursor !== undefined && m.sendAt < cursor + NS_PER_SEC;
  }

  /**
   * Apply the vector deletions the archive holds (removed and compacted messages) to the shared store; with how
   * many tables keep removed rows in their files (an earlier memvoy's, until reindex), as the embedded purge.
   */
  async purgeDeleted(): Promise<{ keptRemovedRows: number }> {
    await this.ctx.vectors.drain(this.ctx.now, 0);
    return { keptRemovedRows: (await this.ctx.vectors.keepsRemovedRows()) ? 1 : 0 };
  }

  /** Nothing runs in the background of this process: a search embeds what is queued first, the daemon the rest. */
  async flushEmbeddings(): Promise<unknown> {
    return undefined;
  }

  /** Rebuild the vectors on the shared store with the configured embedder, under the drain lease (see SharedVectors). */
  reindex(options: ReindexOptions & { waitMs?: number } = {}): Promise<ReindexReport> {
    return this.ctx.vectors.reindex(this.ctx.now, options);
  }

  /**
   * A turn at importing `source` (the archive's "import" lease on it, renewed while held), waiting up to
   * `waitMs` for another holder: two daemons never import one source at once. Undefined when still held.
   */
  async importTurn(source: string, waitMs: number, signal?: AbortSignal): Promise<(() => Promise<void>) | undefined> {
    const take = leaseTurn(this.ctx.archive, {
      job: "import",
      session: `source:${source}`,
      holder: this.ctx.holder,
      ttlMs: IMPORT_LEASE_MS,
    });
    const until = Date.now() + waitMs;
    for (;;) {
      const turn = await take();
      if (turn || Date.now() >= until || signal?.aborted) return turn;
      await Bun.sleep(500);
    }
  }

  /** Embed queued messages now, unless another process holds the drain lease; returns how many. */
  drainEmbeddings(): Promise<number> {
    return this.ctx.vectors.drain(this.ctx.now);
  }

  /** The shared vectors' upkeep (compaction, ANN index, old versions), under the drain lease: the daemon's nightly job. */
  maintainVectors(options: { signal?: AbortSignal; waitMs?: number } = {}): Promise<VectorMaintenance> {
    return this.ctx.vectors.maintain(options.signal, options.waitMs);
  }

  /** The shared archive's and vectors' figures, and this host's caches (`memvoy stats`). */
  stats(): Promise<SharedStatsReport> {
    return sharedStats(this.ctx);
  }

  /** LLM tokens by UTC day, model and session, over every host's calls (`memvoy usage`). */
  usage(options: { days?: number } = {}): Promise<SharedUsageReport> {
    return sharedUsage(this.ctx, options.days ?? 30);
  }

  /** Delete expired error records and their vectors (the daemon's sweep, on demand). */
  sweepErrors(): Promise<SweepResult> {
    return this.errors.sweep();
  }

  /** Whether a daemon runs on this home (daemons on other hosts are not seen here). */
  daemonRunning(): boolean {
    return daemonLockHeld(this.ctx.paths.daemonLock);
  }

  /** A stamp that changes when any host writes sessions, messages, summaries or error records (polled by the TUI). */
  changeStamp(): Promise<string> {
    return this.ctx.archive.admin.changeStamp();
  }

  /** Nothing to load ahead of a search: the archive ranks keyword searches, the store semantic ones. */
  async warmSearch(): Promise<void> {}

  recordError = (input: unknown) => this.errors.record(input);
  searchErrors = (input: unknown) => this.errors.search(input);
  hitErrors = (ids: readonly string[]) => this.errors.hit(ids);
  listErrors = (input: unknown = {}) => this.errors.list(input);
  getError = (id: string) => this.errors.get(id);
  removeError = (id: string) => this.errors.remove(id);

  async close(): Promise<void> {
    await this.ctx.vectors.close();
    await this.ctx.archive.close();
  }
}
