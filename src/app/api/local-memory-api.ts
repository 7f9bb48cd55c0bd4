// The local MemoryApi: a home opened in this process (HomeMemory, or SharedHome in shared mode), its results
// projected onto the JSON shapes. Inputs are checked with the same valibot schemas the HTTP routes and MCP
// tools use.
import type { HomeMemory } from "../memory-api.ts";
import { openMemory as openHome, type OpenOptions } from "../open-memory.ts";
import { openSharedHome, sharedArchiveUrl } from "../shared/open-shared.ts";
import { lazyMemoryApi } from "./lazy-memory-api.ts";
import { closeAfterCalls } from "./close-after-calls.ts";
import type { StoredMessage } from "../../shared/message.ts";
import type { SearchOptions, SearchResult } from "../../search/search-types.ts";
import type { SessionInfo } from "../../memory/sessions-list.ts";
import type { Around } from "../../memory/message-lookup.ts";
import type { TurnContext } from "../../memory/turn-context.ts";
import type { SummaryView } from "../../memory/summary/summary-view.ts";
import type { ResetResult } from "../../memory/session-admin.ts";
import type { RemoveMessageResult } from "../../memory/remove-message.ts";
import type { RecordErrorResult } from "../../memory/error-memory/record-error.ts";
import type { ErrorSearchResult } from "../../memory/error-memory/search-errors.ts";
import type { ErrorList, RemoveErrorResult } from "../../memory/error-memory/error-admin.ts";
import type { ErrorRecord } from "../../memory/error-memory/error-record.ts";
import type { WireMessageInput } from "../wire-input.ts";
import { errorJson, errorSearchJson, messageJson, sessionJson, sortSessions, summaryJson } from "./json-shapes.ts";
import { searchAsJson } from "./search-json.ts";
import type {
  MemoryApi,
  MessageInput,
  ListErrorsInput,
  RecordErrorInput,
  SearchErrorsInput,
  SearchInput,
} from "./memory-api.ts";
import * as S from "./schemas.ts";
import { MemoryClosedError } from "./memory-closed.ts";
import { namedError } from "../../shared/errors.ts";
import { describeAfterSome } from "../../shared/describe-error.ts";
import type * as J from "./json-types.ts";

type Maybe<T> = T | Promise<T>;

async function* historyText(session: string, pages: AsyncIterable<StoredMessage[]>): AsyncGenerator<string> {
  let text = `{"session":${JSON.stringify(session)},"messages":[`;
  let first = true;
  for await (const page of pages) {
    for (const m of page) {
      text += (first ? "" : ",") + JSON.stringify(messageJson(m));
      first = false;
    }
    yield text;
    text = "";
  }
  yield `${text}]}`;
}

/** What LocalMemoryApi needs of a home: HomeMemory (synchronous where it can be) and SharedHome both fit. */
export interface MemoryHome {
  add(
    session: string,
    messages: readonly WireMessageInput[],
  ): Maybe<{ ids: string[]; duplicates: number; removed: number; compactionNote?: string }>;
  sessions(): Maybe<SessionInfo[]>;
  history(session: string, options: { all?: boolean; last?: number }): Maybe<StoredMessage[]>;
  /** history's messages in pages, oldest first, checked before it resolves (HomeMemory and SharedHome have it). */
  historyPages?(session: string, options: { all?: boolean; last?: number }): Maybe<AsyncIterable<StoredMessage[]>>;
  search(options: SearchOptions): Promise<SearchResult>;
  messages(ids: readonly string[]): Maybe<StoredMessage[]>;
  around(id: string, before: number, after: number): Maybe<Around>;
  context(session: string, input?: string): Promise<TurnContext>;
  summary(session: string): Maybe<SummaryView>;
  reset(session: string, options: { all?: boolean }): Maybe<ResetResult>;
  remove(session: string): Maybe<ResetResult>;
  purgeDeleted(): Promise<unknown>;
  /** `purge: false` leaves the removed message's vectors to a later purgeDeleted (see VectorCalls). */
  rmMessage(id: string, options: { dropSummary?: boolean; purge?: boolean }): Promise<RemoveMessageResult>;
  recordError(input: unknown): Promise<RecordErrorResult>;
  searchErrors(input: unknown): Promise<ErrorSearchResult>;
  hitErrors(ids: readonly string[]): Promise<ErrorRecord[]>;
  listErrors(input: unknown): Maybe<ErrorList>;
  getError(id: string): Maybe<ErrorRecord>;
  removeError(id: string): Promise<RemoveErrorResult>;
  flushEmbeddings(): Promise<unknown>;
  /** Throws when the home was deleted or replaced since it was opened (a local home): the reads below check it. */
  checkInPlace?(): void;
  /** Resolves once no other process holds the writer lock (a local home); the writes below await it first. */
  writerLockFree?(): Promise<void>;
  close(): Maybe<void>;
}

/**
 * The calls that read or write LanceDB, run in another process: the daemon hands them to its worker child, so
 * that the daemon itself never maps LanceDB (whose memory is not given back). Each takes checked input and
 * answers as LocalMemoryApi does; purgeDeleted is the LanceDB half of a deletion done here.
 */
export interface VectorCalls {
  /** A semantic or hybrid search. */
  search(input: SearchInput): Promise<J.SearchResultJson>;
  searchErrors(input: SearchErrorsInput): Promise<J.ErrorSearchResultJson>;
  recordError(input: RecordErrorInput): Promise<J.RecordErrorResultJson>;
  rmError(id: string): Promise<J.RemoveErrorResultJson>;
  purgeDeleted(): Promise<unknown>;
}

/** VectorCalls made in this process, on `home`. */
export function inProcessVectorCalls(home: MemoryHome): VectorCalls {
  const api = new LocalMemoryApi(home);
  return {
    search: (input) => api.search(input),
    searchErrors: (input) => api.searchErrors(input),
    recordError: (input) => api.recordError(input),
    rmError: (id) => api.rmError(id),
    purgeDeleted: () => home.purgeDeleted(),
  };
}

export class LocalMemoryApi<H extends MemoryHome = HomeMemory> implements MemoryApi {
  readonly #home: H;
  #closed = false;

  /** `elsewhere`: the process that makes the calls touching LanceDB (see VectorCalls); by default this one. */
  constructor(
    home: H,
    private readonly elsewhere?: VectorCalls,
  ) {
    this.#home = home;
  }

  /** The home; once closed, every call is refused in one line (a write would leave a bare session folder behind). */
  get home(): H {
    if (this.#closed) throw new MemoryClosedError({ open: "openMemory" });
    return this.#home;
  }

  /** The home for a read: one deleted or replaced since it was opened is refused, not read from its old files. */
  get #reading(): H {
    const home = this.home;
    home.checkInPlace?.();
    return home;
  }

  async add(session: string, messages: MessageInput | readonly MessageInput[]): Promise<J.AddResultJson> {
    const list = Array.isArray(messages) ? messages : [messages as MessageInput];
    const o = S.parseInput(S.AddInput, { session, messages: list }, "add");
    await this.home.writerLockFree?.();
    const r = await this.home.add(o.session, o.messages as WireMessageInput[]);
    const out: J.AddResultJson = { session: o.session, ids: r.ids, duplicates: r.duplicates };
    if (r.removed > 0) out.removed = r.removed;
    if (r.compactionNote) out.compactionNote = r.compactionNote;
    return out;
  }

  async sessions(options: { sort?: "recent" | "name" } = {}): Promise<J.SessionJson[]> {
    const o = S.parseInput(S.SessionsInput, options, "sessions");
    return sortSessions(await this.#reading.sessions(), o.sort).map(sessionJson);
  }

  async history(session: string, options: { all?: boolean; last?: number } = {}): Promise<J.HistoryJson> {
    const o = S.parseInput(S.HistoryInput, { session, ...options }, "history");
    const list = await this.#reading.history(o.session, {
      all: o.all,
      ...(o.last !== undefined ? { last: o.last } : {}),
    });
    return { session: o.session, messages: list.map(messageJson) };
  }

  /**
   * history's answer as the text of JSON.stringify(history(...)), a page at a time, so that a session of a million
   * messages is never held whole (undefined when the home cannot page). Refusals throw before any text is given.
   */
  async historyJsonText(
    session: string,
    options: { all?: boolean; last?: number } = {},
  ): Promise<AsyncIterable<string> | undefined> {
    const home = this.#reading;
    if (!home.historyPages) return undefined;
    const o = S.parseInput(S.HistoryInput, { session, ...options }, "history");
    const pages = await home.historyPages(o.session, {
      all: o.all,
      ...(o.last !== undefined ? { last: o.last } : {}),
    });
    return historyText(o.session, pages);
  }

  async search(options: SearchInput): Promise<J.SearchResultJson> {
    const o = S.parseInput(S.SearchInput, options, "search");
    if (this.elsewhere && o.match !== undefined && o.match !== "keyword") return this.elsewhere.search(o);
    return searchAsJson(this.#reading, o);
  }

  async messages(ids: readonly string[]): Promise<J.MessageJson[]> {
    // A lone id given as a string is refused as the HTTP client refuses it, not spread into one id a character.
    const o = S.parseInput(S.MessagesInput, { ids: Array.isArray(ids) ? [...ids] : ids }, "messages");
    return (await this.#reading.messages(o.ids)).map(messageJson);
  }

  async around(id: string, options: { before?: number; after?: number } = {}): Promise<J.AroundJson> {
    const o = S.parseInput(S.AroundInput, { id, ...options }, "around");
    const r = await this.#reading.around(o.id, o.before ?? 5, o.after ?? 5);
    return { anchor: r.anchor.id, session: r.anchor.session, messages: r.messages.map(messageJson) };
  }

  async context(session: string, input?: string): Promise<J.TurnContextJson> {
    const o = S.parseInput(S.ContextInput, input === undefined ? { session } : { session, input }, "context");
    return this.#reading.context(o.session, o.input);
  }

  async summary(session: string): Promise<J.SummaryJson> {
    const o = S.parseInput(S.SessionInput, { session }, "summary");
    return summaryJson(await this.#reading.summary(o.session));
  }

  async reset(session: string, options: { all?: boolean } = {}): Promise<J.ResetResultJson> {
    const o = S.parseInput(S.ResetInput, { session, ...options }, "reset");
    await this.home.writerLockFree?.();
    const r = await this.home.reset(o.session, { all: o.all });
    return this.#purgedAfter(r); // no removed row stays in any LanceDB version
  }

  async rm(session: string): Promise<J.ResetResultJson> {
    const o = S.parseInput(S.SessionInput, { session }, "rm");
    await this.home.writerLockFree?.();
    return this.#purgedAfter(await this.home.remove(o.session));
  }

  async rmMessage(id: string, options: { dropSummary?: boolean } = {}): Promise<J.RemoveMessageResultJson> {
    const o = S.parseInput(S.RmMessageInput, { id, ...options }, "rm-message");
    // The message is looked up before the write: in the old archive, a new home's message would not be found.
    await this.#reading.writerLockFree?.();
    return this.#purgedAfter(await this.home.rmMessage(o.id, { dropSummary: o.dropSummary, purge: false }));
  }

  /**
   * The vector half of a removal whose text is gone: a vector store that cannot take it now (an object store down)
   * leaves it to the next embedding drain, and the result says so, as the CLI does, rather than failing a removal
   * that was made (a client retrying it would be told the session or message does not exist).
   */
  async #purgedAfter<T extends object>(r: T): Promise<T & { vectorsPending?: string }> {
    try {
      await (this.elsewhere ? this.elsewhere.purgeDeleted() : this.home.purgeDeleted());
      return r;
    } catch (err) {
      return { ...r, vectorsPending: describeAfterSome(err) };
    }
  }

  async recordError(input: RecordErrorInput): Promise<J.RecordErrorResultJson> {
    const o = S.parseInput(S.RecordErrorInput, input, "errors record");
    if (this.elsewhere) return this.elsewhere.recordError(o);
    const r = await this.home.recordError(o);
    return { record: errorJson(r.record), merged: r.merged, redacted: r.redacted, notes: r.notes };
  }

  async searchErrors(input: SearchErrorsInput): Promise<J.ErrorSearchResultJson> {
    const o = S.parseInput(S.SearchErrorsInput, input, "errors search");
    if (this.elsewhere) return this.elsewhere.searchErrors(o);
    return errorSearchJson(o.tool, await this.#reading.searchErrors(o));
  }

  // SQLite or the archive only: the daemon stamps the hits itself (the lookup's search ran in its worker child).
  async hitErrors(ids: readonly string[]): Promise<J.ErrorHitsJson> {
    const o = S.parseInput(S.HitErrorsInput, { ids }, "hitErrors");
    return { records: (await this.#reading.hitErrors(o.ids)).map(errorJson) };
  }

  async listErrors(input: ListErrorsInput = {}): Promise<J.ErrorListJson> {
    const o = S.parseInput(S.ListErrorsInput, input, "errors list");
    const r = await this.#reading.listErrors(o);
    return { records: r.records.map(errorJson), total: r.total };
  }

  async getError(id: string): Promise<J.ErrorRecordJson> {
    const o = S.parseInput(S.ErrorIdInput, { id }, "errors show");
    return errorJson(await this.#reading.getError(o.id));
  }

  async rmError(id: string): Promise<J.RemoveErrorResultJson> {
    const o = S.parseInput(S.ErrorIdInput, { id }, "errors rm");
    if (this.elsewhere) return this.elsewhere.rmError(o.id);
    const r = await this.#reading.removeError(o.id);
    return { removed: errorJson(r.removed), notes: r.notes };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // A background embedding drain still holds LanceDB: let it finish before the tables close.
    await this.#home.flushEmbeddings();
    await this.#home.close();
  }
}

export type MemoryOptions = Pick<OpenOptions, "home" | "env">;

/** openMemory's home names no folder: "" would mean the default home, silently, as `--home ""` would. */
export const MemoryOptionsError = namedError<{ home: unknown }>("MemoryOptionsError", "input", (d) =>
  d.home === ""
    ? "openMemory: home is empty: name a folder, or leave home out for the default home"
    : `openMemory: home ${JSON.stringify(d.home) ?? String(d.home)} is not a folder path (text)`,
);
export type MemoryOptionsError = InstanceType<typeof MemoryOptionsError>;

/**
 * Open a home in this process as a MemoryApi (`import { openMemory } from "memvoy"`). With an archive URL
 * configured (`[archive] url` or MEMVOY_ARCHIVE_URL) it is the shared memory, connected on the first call.
 */
export function openMemoryApi(options: MemoryOptions = {}): MemoryApi {
  const home: unknown = options.home;
  if (home !== undefined && (typeof home !== "string" || home === "")) throw new MemoryOptionsError({ home });
  if (sharedArchiveUrl(options) !== undefined)
    return closeAfterCalls(lazyMemoryApi(async () => new LocalMemoryApi(await openSharedHome(options))));
  return closeAfterCalls(new LocalMemoryApi(openHome({ home: options.home, env: options.env })));
}
