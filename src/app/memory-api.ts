// HomeMemory: memvoy on one home opened in this process, with native values (bigint times). The CLI and the
// TUI use it directly; LocalMemoryApi projects it onto the JSON MemoryApi port; the daemon drives its
// MaintenanceApi side.
import { existsSync } from "node:fs";
import type { Config } from "../config/schema.ts";
import type { HomePaths } from "../config/home.ts";
import { InvalidSearchOptionError, MAX_QUERY_CHARS } from "./search-option-error.ts";
import type { StoredMessage } from "../shared/message.ts";
import { assertSessionId } from "../shared/session-id.ts";
import { isTimeRange, type TimeRange } from "../shared/time.ts";
import { resolveFilter } from "../shared/time-filter.ts";
import type { MemoryContext } from "../memory/memory-context.ts";
import type { AppendResult } from "../memory/write-path.ts";
import {
  adoptionPending,
  listSessions,
  discoverSessions,
  ensureBackfilled,
  type SessionInfo,
} from "../memory/sessions-list.ts";
import type { HistoryCatchUp, HistoryOptions, SeenHistory } from "../memory/history-view.ts";
import type { ResetResult } from "../memory/session-admin.ts";
import type { DoctorReport } from "../memory/doctor.ts";
import type { RemoveMessageResult } from "../memory/remove-message.ts";
import type { PurgeReport } from "../memory/embedding/purge.ts";
import type { MaintenanceReport, VectorMaintenance } from "../memory/maintenance.ts";
import type { TurnContext } from "../memory/turn-context.ts";
import type {
  SessionReport,
  SummarizeOptions,
  SummarizeReport,
  SummaryProgress,
} from "../memory/summary/summary-report.ts";
import type { SummaryView } from "../memory/summary/summary-view.ts";
import type { ImportSummaryResult } from "../memory/summary/import-summary.ts";
import type { StatsReport } from "../memory/stats.ts";
import { daemonLockHeld } from "./daemon-probe.ts";
import type { IndexUpgradeOptions, IndexUpgradeResult, IndexUpgradeState } from "../memory/index-upgrade.ts";
import type { MatchMode, SearchHit, SearchOptions, SearchResult } from "../search/search-types.ts";
import { ELSEWHERE_ROWS, elsewhere, explainEmpty, NO_TERMS, unheldPieceReason } from "../search/empty-reason.ts";
import type { WireMessageInput } from "./wire-input.ts";
import type { RecordErrorResult } from "../memory/error-memory/record-error.ts";
import type { ErrorSearchResult } from "../memory/error-memory/search-errors.ts";
import type { ErrorList, RemoveErrorResult, SweepResult } from "../memory/error-memory/error-admin.ts";
import type { ListErrorsInput, RecordErrorInput, SearchErrorsInput } from "../memory/error-memory/error-input.ts";
import type { ErrorRecord } from "../memory/error-memory/error-record.ts";
import type { EmbeddingBacklog, SemanticApi, SemanticTierOptions, WarmOptions } from "./semantic-api.ts";
import type { DrainOptions, DrainReport } from "../memory/embedding/drain.ts";
import type { ReindexOptions, ReindexReport } from "../memory/embedding/reindex.ts";
import { getMessages, messagesAround, UnknownMessageError, type Around } from "../memory/message-lookup.ts";
import { homeInfo, type HomeInfo, type MaintenanceApi } from "./maintenance-api.ts";
import type { ImportApi } from "./import-api.ts";
import type { UsageReport } from "../memory/usage-report.ts";
import { checkDbInPlace } from "../storage/sqlite/db-in-place.ts";
import { refuseSessionSymlinks } from "../storage/history/no-symlink.ts";

// Domains a method needs are loaded when it is first called, so a command pays only for what it uses
// (`search` never loads summaries, error memory, the semantic tier or the input schemas). Each is kept once
// loaded: a require of a loaded module still costs ~20 us on a hot path (add) whose caches are cold.
const load = kept({
  keyword: () => require("../search/keyword.ts") as typeof import("../search/keyword.ts"),
  symbols: () => require("../search/symbols.ts") as typeof import("../search/symbols.ts"),
  admin: () => require("../memory/session-admin.ts") as typeof import("../memory/session-admin.ts"),
  doctor: () => require("../memory/doctor.ts") as typeof import("../memory/doctor.ts"),
  doctorVectors: () => require("../memory/doctor-vectors.ts") as typeof import("../memory/doctor-vectors.ts"),
  maintenance: () => require("../memory/maintenance.ts") as typeof import("../memory/maintenance.ts"),
  turn: () => require("../memory/turn-context.ts") as typeof import("../memory/turn-context.ts"),
  summarize: () => require("../memory/summary/summarize.ts") as typeof import("../memory/summary/summarize.ts"),
  summaryView: () => require("../memory/summary/summary-view.ts") as typeof import("../memory/summary/summary-view.ts"),
  due: () => require("../memory/summary/due-sessions.ts") as typeof import("../memory/summary/due-sessions.ts"),
  importSummary: () =>
    require("../memory/summary/import-summary.ts") as typeof import("../memory/summary/import-summary.ts"),
  recordError: () =>
    require("../memory/error-memory/record-error.ts") as typeof import("../memory/error-memory/record-error.ts"),
  searchErrors: () =>
    require("../memory/error-memory/search-errors.ts") as typeof import("../memory/error-memory/search-errors.ts"),
  hitErrors: () =>
    require("../memory/error-memory/hit-errors.ts") as typeof import("../memory/error-memory/hit-errors.ts"),
  errorAdmin: () =>
    require("../memory/error-memory/error-admin.ts") as typeof import("../memory/error-memory/error-admin.ts"),
  errorVectors: () =>
    require("../memory/error-memory/error-vectors.ts") as typeof import("../memory/error-memory/error-vectors.ts"),
  semantic: () => require("./semantic-api.ts") as typeof import("./semantic-api.ts"),
  purge: () => require("../memory/embedding/purge.ts") as typeof import("../memory/embedding/purge.ts"),
  stats: () => require("../memory/stats.ts") as typeof import("../memory/stats.ts"),
  usage: () => require("../memory/usage-report.ts") as typeof import("../memory/usage-report.ts"),
  budget: () => require("../memory/summary/token-budget.ts") as typeof import("../memory/summary/token-budget.ts"),
  indexUpgrade: () => require("../memory/index-upgrade.ts") as typeof import("../memory/index-upgrade.ts"),
  imports: () => require("./import-api.ts") as typeof import("./import-api.ts"),
  homeLock: () => require("../memory/home-lock.ts") as typeof import("../memory/home-lock.ts"),
  wireInput: () => require("./wire-input.ts") as typeof import("./wire-input.ts"),
  historyView: () => require("../memory/history-view.ts") as typeof import("../memory/history-view.ts"),
  writePath: () => require("../memory/write-path.ts") as typeof import("../memory/write-path.ts"),
  removal: () => require("../memory/remove-message.ts") as typeof import("../memory/remove-message.ts"),
});

/** The loaders, each calling its own once and giving the same module after. */
function kept<T extends Record<string, () => unknown>>(loaders: T): T {
  const out: Record<string, () => unknown> = {};
  for (const [name, get] of Object.entries(loaders)) {
    let module: unknown;
    out[name] = () => (module ??= get());
  }
  return out as T;
}

export class HomeMemory implements MaintenanceApi {
  #semanticApi: SemanticApi | undefined;
  #errorsUsed = false;

  constructor(
    private readonly ctx: MemoryContext,
    private readonly semanticOptions: SemanticTierOptions = {},
  ) {}

  get #semantic(): SemanticApi {
    return (this.#semanticApi ??= new (load.semantic().SemanticApi)(this.ctx, this.semanticOptions));
  }

  /** After a write: the background embedding drain (the semantic tier is not loaded when it is off). */
  #semanticAfterWrite(): void {
    if (this.semanticOptions.drain !== "off") this.#semantic.scheduleDrain();
  }

  #errors<K extends "recordError" | "searchErrors" | "hitErrors" | "errorAdmin">(k: K): ReturnType<(typeof load)[K]> {
    this.#errorsUsed = true;
    return load[k]() as ReturnType<(typeof load)[K]>;
  }

  get home(): string {
    return this.ctx.paths.home;
  }
  /** Throws HomeGoneError when the home was deleted or replaced since it was opened. */
  checkInPlace(): void {
    checkDbInPlace(this.ctx.db);
  }
  /** What front-ends show or check about the home, so that they never read its paths or config. */
  info(): HomeInfo {
    return homeInfo(this.ctx.paths.home, this.ctx.config);
  }
  /** Internal: tests and benches only. */
  get paths(): HomePaths {
    return this.ctx.paths;
  }
  /** Internal: tests and benches only. */
  get config(): Config {
    return this.ctx.config;
  }

  #imports: ImportApi | undefined;
  /** Imported writes, session metadata, per-file import state and export (importers and `export` use it). */
  get imports(): ImportApi {
    return (this.#imports ??= new (load.imports().ImportApi)(this.ctx, () => this.#semantic.scheduleDrain()));
  }

  /** Append one message or several (in order) to a session. Returns once history.json and SQLite hold them. */
  add(session: string, messages: WireMessageInput | readonly WireMessageInput[]): AppendResult {
    const list = Array.isArray(messages) ? messages : [messages as WireMessageInput];
    const { toNewMessage } = load.wireInput();
    const inputs = list.map((m, i) => toNewMessage(m, list.length > 1 ? `message ${i + 1}` : "message"));
    const result = load.writePath().appendMessages(this.ctx, session, inputs);
    this.#semanticAfterWrite();
    return result;
  }

  /** Whether the session has a summary.json (front-ends never look at the home's files themselves). */
  hasSummary(session: string): boolean {
    return existsSync(this.ctx.paths.summary(assertSessionId(session)));
  }

  /** Messages by id, in archive order; unknown ids are left out. */
  messages(ids: readonly string[]): StoredMessage[] {
    return getMessages(this.ctx, ids);
  }

  /** The messages before and after one message of its session (a timeline). */
  around(id: string, before: number, after: number): Around {
    return messagesAround(this.ctx, id, before, after);
  }

  sessions(): SessionInfo[] {
    return listSessions(this.ctx);
  }

  /** The context window (last N messages), or every message with `{all: true}`. */
  history(session: string, options: HistoryOptions = {}): StoredMessage[] {
    const { since, until, role, sender, ...rest } = options;
    const filter = resolveFilter({ since, until, role, sender }, this.ctx.now());
    return load.historyView().readSessionHistory(this.ctx, session, { ...rest, filter });
  }

  /**
   * For a reader that holds a session's messages up to a point (the TUI on a live write): only the messages added
   * since, or every message when one it holds is gone.
   */
  historyAfter(session: string, seen: SeenHistory): HistoryCatchUp {
    return load.historyView().readHistoryAfter(this.ctx, session, seen);
  }

  /** history's messages in pages, oldest first (checked before this returns): a large session is never held whole. */
  historyPages(session: string, options: HistoryOptions = {}): AsyncGenerator<StoredMessage[]> {
    const { since, until, role, sender, ...rest } = options;
    const filter = resolveFilter({ since, until, role, sender }, this.ctx.now());
    return load.historyView().sessionHistoryPages(this.ctx, session, { ...rest, filter });
  }

  async search(options: SearchOptions): Promise<SearchResult> {
    const o = checkSearchOptions(options);
    this.#semanticApi?.stopWarming();
    // Adopting a history.json another program wrote takes the writer lock: its wait holds no thread. Still held after
    // that wait (30 s), a search of every session goes on with the sessions adopted so far.
    const pending = adoptionPending(this.ctx, o.session);
    let held = false;
    if (pending && load.homeLock().homeLockHeld(this.ctx)) {
      await this.writerLockFree();
      held = adoptionPending(this.ctx, o.session) && load.homeLock().homeLockHeld(this.ctx);
    }
    if (o.session === undefined) {
      if (!held) discoverSessions(this.ctx);
    } else if (!load.admin().sessionExists(this.ctx, o.session)) {
      // The error history, summary and rm give for an unknown session: one code on every surface.
      throw new (load.admin().UnknownSessionError)({ session: o.session, home: this.ctx.paths.home });
    } else {
      // A linked session folder or history.json is refused as history refuses it: never "no matches" instead.
      refuseSessionSymlinks(this.ctx.paths.session(o.session));
      if (pending) ensureBackfilled(this.ctx, o.session);
    }
    const match = o.match ?? "keyword";
    const now = this.ctx.now();
    const filter = resolveFilter(o, now);
    const { since: _s, until: _u, role: _r, sender: _n, ...rest } = o;
    let result: SearchResult;
    if (match !== "keyword") result = await this.#semantic.search(match, { ...rest, filter, now });
    else {
      const hits = load.keyword().keywordSearch(this.ctx.db, { ...rest, filter, now });
      result = { hits, notes: [] };
      if (hits.length === 0) result.emptyReason = NO_TERMS;
    }
    if (result.hits.length === 0) {
      const unfiltered = { query: o.query, session: o.session, limit: 1, now };
      const keywordHit = (query: string) =>
        load.keyword().keywordSearch(this.ctx.db, { ...unfiltered, query }).length > 0;
      // The sessions other than the one searched whose messages hold the query (or one of its pieces).
      const others = (query: string) => {
        const all = load.keyword().keywordSearch(this.ctx.db, { query, limit: ELSEWHERE_ROWS, now });
        return elsewhere(
          o.session ?? "",
          all.map((h) => h.message.session),
          ELSEWHERE_ROWS,
        );
      };
      result.emptyReason =
        (await unheldPieceReason(load.symbols().querySymbols(o.query), keywordHit, o.session, others)) ??
        (await explainEmpty(
          result.emptyReason,
          { range: o.range, filter, session: o.session },
          async () =>
            match === "semantic"
              ? (await this.#semantic.search("semantic", unfiltered)).hits.length > 0
              : keywordHit(o.query),
          () => others(o.query),
        ));
    }
    return result;
  }

  /**
   * Prepare the semantic tier for a first ranked search (embedder, LanceDB, the table and its statistics) in
   * the background of a long-lived front-end; never throws.
   */
  async warmSearch(o: WarmOptions = {}): Promise<void> {
    await this.#semantic.warmUp(o);
  }

  /**
   * The LLM-ready messages for the next turn: the last N messages, the turn context holding the Prior
   * summary (filtered by the decision model when one is set), then the input; plus the system section.
   */
  async context(session: string, input?: string): Promise<TurnContext> {
    return load.turn().buildTurnContext(this.ctx, session, input);
  }

  /**
   * Run Generate now on one session, or on every due session when none is given. Per-session failures are
   * in the report (outcome failed/partial/aborted, error); a missing ANTHROPIC_API_KEY throws before
   * anything changes. With `signal`, an abort leaves summary.json as the last saved chunk left it.
   */
  summarize(session?: string, options: SummarizeOptions = {}): Promise<SummarizeReport> {
    return load.summarize().summarize(this.ctx, session, options);
  }

  /** The session's summary, cursor, last run and token usage. */
  summary(session: string): SummaryView {
    return load.summaryView().viewSummary(this.ctx, session);
  }

  /** Sessions the summary cron should run now (not temp-, history.json newer than summary.json, or unfinished). */
  dueSessions(): string[] {
    return load.due().dueSessions(this.ctx);
  }

  /**
   * Save a summary written elsewhere (a migration, the demo home) after checking it against the summary.json
   * schema; the cursor moves to the session's newest message. No LLM call is made.
   */
  importSummary(session: string, summary: unknown): ImportSummaryResult {
    return load.importSummary().importSummary(this.ctx, session, summary);
  }

  /** Sessions, messages and bytes per tier, vectors and their backlog, error records, disk use, tokens spent. */
  stats(): StatsReport {
    return load.stats().collectStats(this.ctx);
  }

  /** LLM tokens by UTC day, model and session over the last `days` days, and today's budget state. */
  usage(options: { days?: number } = {}): UsageReport {
    return load.usage().usageReport(this.ctx, options.days ?? 30);
  }

  /** Today's tokens against [summary] daily_token_budget. */
  dailyBudget(): UsageReport["budget"] {
    return load.budget().budgetState(this.ctx);
  }

  /** Resolves once no other process holds the home's writer lock: a server awaits it rather than block on it. */
  writerLockFree(): Promise<void> {
    return load.homeLock().homeLockFree(this.ctx);
  }

  /** Whether another process holds the home's writer lock now (writerLockFree() gives up after 30 s). */
  writerLockHeld(): boolean {
    return load.homeLock().homeLockHeld(this.ctx);
  }

  /**
   * Whether sessions() (or history(session)) would first adopt a history.json the archive has not seen (another
   * program wrote it) while another process holds the home's writer lock: the adoption would wait for that lock,
   * holding this thread. A front-end that must stay responsive awaits writerLockFree() first.
   */
  adoptionWaits(session?: string): boolean {
    return adoptionPending(this.ctx, session, session === undefined) && load.homeLock().homeLockHeld(this.ctx);
  }

  /** Whether a daemon (`memvoy --daemon`) is running for this home now. */
  daemonRunning(): boolean {
    return daemonLockHeld(this.ctx.paths.daemonLock);
  }

  reset(session: string, options: { all?: boolean } = {}): ResetResult {
    return load.admin().resetSession(this.ctx, session, options.all === true);
  }

  remove(session: string): ResetResult {
    return load.admin().removeSession(this.ctx, session);
  }

  /**
   * Remove one message by id from history.json, the archive, FTS and LanceDB, and tombstone it. The
   * summary stays (the result says whether it had covered the message) unless `dropSummary`.
   */
  async rmMessage(id: string, options: { dropSummary?: boolean; purge?: boolean } = {}): Promise<RemoveMessageResult> {
    const { messageSession, removeMessage } = load.removal();
    let session = messageSession(this.ctx, id);
    if (session === undefined) {
      discoverSessions(this.ctx); // a session folder this process has not seen yet
      session = messageSession(this.ctx, id);
    }
    if (session === undefined) throw new UnknownMessageError({ id, where: this.ctx.paths.home });
    const r = removeMessage(this.ctx, session, id, { dropSummary: options.dropSummary === true });
    if (options.purge !== false) await this.purgeDeleted();
    return r;
  }

  /**
   * Finish a deletion in LanceDB: apply the pending vector deletions now under the vector write lock and
   * drop older table versions. reset() and remove() clear SQLite and the files at once; await this after
   * them so that no removed row remains in any LanceDB version either (the CLI does).
   */
  purgeDeleted(): Promise<PurgeReport> {
    return load.purge().purgeVectors(this.#semantic.index);
  }

  doctor(options: { repair?: boolean } = {}): DoctorReport {
    return load.doctor().runDoctor(this.ctx, options.repair === true);
  }

  /** doctor's read of the message vector tables: a damaged one is a finding (see doctor-vectors.ts). */
  vectorFindings(): Promise<DoctorReport["findings"]> {
    return load.doctorVectors().vectorTableFindings(this.#semantic.index);
  }

  /**
   * Nightly upkeep (the daemon runs it): FTS5 merge + optimize in short steps, LanceDB compaction and index
   * build. `vectors: false` leaves LanceDB alone (see maintainVectors).
   */
  async maintain(options: { signal?: AbortSignal; vectors?: boolean } = {}): Promise<MaintenanceReport> {
    return load.maintenance().maintainTiers(this.ctx, {
      signal: options.signal,
      vectors: options.vectors === false ? undefined : this.#semantic.index,
    });
  }

  /** Whether the keyword index carries the session column yet (searches in one session use it once it does). */
  indexUpgrade(): IndexUpgradeState {
    return load.indexUpgrade().indexUpgradeState(this.ctx);
  }

  /**
   * Build the keyword index with a session column, in short write transactions (add waits at most one of
   * them), resuming where a stopped run left off; search uses the current index until the swap at the end.
   */
  upgradeIndex(options: IndexUpgradeOptions = {}): Promise<IndexUpgradeResult> {
    return load.indexUpgrade().upgradeIndex(this.ctx, options);
  }

  /** The LanceDB half of maintain(): compact the message vectors and build or refresh their index. */
  maintainVectors(options: { signal?: AbortSignal } = {}): Promise<VectorMaintenance> {
    return load.maintenance().maintainVectors(this.ctx, this.#semantic.index, options.signal);
  }

  /** The embedding queue as the archive sees it, without loading LanceDB or the embedder. */
  embeddingBacklog(): EmbeddingBacklog {
    return this.#semantic.backlog();
  }

  /** Embed queued messages now (the daemon's job; also for scripts). One drainer per home at a time. */
  drainEmbeddings(options: DrainOptions = {}): Promise<DrainReport> {
    return this.#semantic.drain(options);
  }

  /** Wait until the background embedding drain started by add() is done; resolves to its error, if any. */
  flushEmbeddings(): Promise<unknown> {
    return this.#semantic.flush();
  }

  /** Rebuild every vector with the configured embedder; resumes an interrupted rebuild. */
  reindex(options: ReindexOptions = {}): Promise<ReindexReport> {
    this.#errorsUsed = true; // a full reindex rebuilds the error vectors too: their store is closed with the rest
    return this.#semantic.reindex(options);
  }

  /** Record a tool error and its fix. Secrets are redacted first; the same tool + error signature is merged. */
  recordError(input: RecordErrorInput): Promise<RecordErrorResult> {
    return this.#errors("recordError").recordError(this.ctx, input);
  }

  /** Look up fixes for an error text (keyword + semantic); every record returned has its TTL restarted. */
  searchErrors(input: SearchErrorsInput): Promise<ErrorSearchResult> {
    return this.#errors("searchErrors").searchErrors(this.ctx, input);
  }

  /** Count a hit on these records (full ids) and restart their TTL; an id of no live record is skipped. */
  hitErrors(ids: readonly string[]): Promise<ErrorRecord[]> {
    return this.#errors("hitErrors").hitErrors(this.ctx, ids);
  }

  /** Live error records, most recently recorded first. */
  listErrors(input: ListErrorsInput = {}): ErrorList {
    return this.#errors("errorAdmin").listErrors(this.ctx, input);
  }

  /** One error record by id or unique id prefix (reading is no hit: the TTL is unchanged). */
  getError(id: string): ErrorRecord {
    return this.#errors("errorAdmin").getError(this.ctx, id);
  }

  removeError(id: string): Promise<RemoveErrorResult> {
    return this.#errors("errorAdmin").removeError(this.ctx, id);
  }

  /** Delete expired error records and their vectors (the daemon runs this hourly). */
  sweepErrors(): Promise<SweepResult> {
    return this.#errors("errorAdmin").sweepExpired(this.ctx, this.ctx.now());
  }

  /** Embed error records stored while the embedder was unreachable. */
  embedPendingErrors(options: { max?: number } = {}): Promise<{ embedded: number; pending: number }> {
    return this.#errors("errorAdmin").embedPending(this.ctx, options.max);
  }

  close(): void {
    if (this.#semanticApi) void this.#semanticApi.close();
    if (this.#errorsUsed) void load.errorVectors().closeErrorVectors(this.ctx);
    this.ctx.db.close();
  }
}

/**
 * Characters a query copied from a web page, a chat or a document carries unseen (soft hyphen, zero-width space, word
 * joiner, direction marks): the person searches for the text they see, so they are left out of the query.
 */
const UNSEEN = /[\u00ad\u200b\u200e\u200f\u2060]/g;

/** The search options checked as every front-end checks them (one clear InputError naming the option). */
export function checkSearchOptions(options: SearchOptions): SearchOptions {
  const seen = typeof options.query === "string" ? options.query.replace(UNSEEN, "") : options.query;
  const o = seen === options.query ? options : { ...options, query: seen };
  if (typeof o.query !== "string" || o.query.trim() === "") throw new InvalidSearchOptionError({ option: "query" });
  if (o.query.length > MAX_QUERY_CHARS) throw new InvalidSearchOptionError({ option: "query", chars: o.query.length });
  const nul = o.query.indexOf("\0");
  if (nul >= 0) throw new InvalidSearchOptionError({ option: "query", nul });
  if (o.session !== undefined) assertSessionId(o.session);
  if (o.range !== undefined && !isTimeRange(o.range))
    throw new InvalidSearchOptionError({ option: "range", value: o.range });
  if (o.limit !== undefined && (!Number.isInteger(o.limit) || o.limit < 1 || o.limit > 1000)) {
    throw new InvalidSearchOptionError({ option: "limit", value: o.limit });
  }
  if (o.order !== undefined && o.order !== "relevance" && o.order !== "newest")
    throw new InvalidSearchOptionError({ option: "order", value: o.order });
  if (o.match !== undefined && !["keyword", "semantic", "hybrid"].includes(o.match)) {
    throw new InvalidSearchOptionError({ option: "match", value: o.match });
  }
  return o;
}

export type { TimeRange };
export type { SessionReport, SummarizeOptions, SummarizeReport, SummaryProgress, SummaryView };
export type { ErrorRecord, MatchMode, SearchHit, WarmOptions };
