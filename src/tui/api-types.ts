// The HomeMemory shapes the TUI works with, derived from the API itself (the TUI sees only app/ and shared/).
import type { HomeMemory } from "../app/memory-api.ts";
import type { StoredMessage } from "../shared/message.ts";

export type SessionInfo = ReturnType<HomeMemory["sessions"]>[number];
export type SearchOptions = Parameters<HomeMemory["search"]>[0];
export type SearchResult = Awaited<ReturnType<HomeMemory["search"]>>;
export type SearchHit = SearchResult["hits"][number];
export type MatchMode = NonNullable<SearchOptions["match"]>;
export type ErrorRecord = ReturnType<HomeMemory["getError"]>;
export type ErrorList = ReturnType<HomeMemory["listErrors"]>;
export type ErrorSearchResult = Awaited<ReturnType<HomeMemory["searchErrors"]>>;
export type SeenHistory = Parameters<HomeMemory["historyAfter"]>[1];
export type HistoryCatchUp = ReturnType<HomeMemory["historyAfter"]>;
export type SummaryView = ReturnType<HomeMemory["summary"]>;
export type SummarizeReport = Awaited<ReturnType<HomeMemory["summarize"]>>;
export type SummaryProgress = Parameters<
  NonNullable<NonNullable<Parameters<HomeMemory["summarize"]>[1]>["onProgress"]>
>[0];

type Maybe<T> = T | Promise<T>;

/**
 * What the TUI uses of a memory: HomeMemory answers at once, the shared memory (SharedHome) through promises,
 * so every read is taken as either.
 */
export interface TuiMemory {
  readonly home: string;
  info(): { embedder: string };
  sessions(): Maybe<SessionInfo[]>;
  /** Every message of a session, or its newest `last`. */
  history(session: string, options: { all: true } | { last: number }): Maybe<StoredMessage[]>;
  /** Every message of a session in pages, oldest first (a large session is read behind its newest messages). */
  historyPages?(session: string, options: { all: true }): Maybe<AsyncGenerator<StoredMessage[]>>;
  /** What is new in a session since the messages a reader holds (a home only; else history is read again). */
  historyAfter?(session: string, seen: SeenHistory): Maybe<HistoryCatchUp>;
  search(options: SearchOptions): Promise<SearchResult>;
  summary(session: string): Maybe<SummaryView>;
  summarize: HomeMemory["summarize"];
  listErrors(input: { limit: number }): Maybe<ErrorList>;
  searchErrors(input: { query: string; limit: number; hit: false }): Promise<ErrorSearchResult>;
  removeError(id: string): Promise<Awaited<ReturnType<HomeMemory["removeError"]>>>;
  reset(session: string): Maybe<ReturnType<HomeMemory["reset"]>>;
  remove(session: string): Maybe<ReturnType<HomeMemory["remove"]>>;
  purgeDeleted(): Promise<unknown>;
  /** Resolves once no other process holds the home's writer lock (a home only; the shared archive has none). */
  writerLockFree?(): Promise<void>;
  /** Whether another process holds the home's writer lock now (a home only). */
  writerLockHeld?(): boolean;
  /** Whether sessions() (or history(session)) would wait for another process's writer lock (a home only). */
  adoptionWaits?(session?: string): boolean;
  daemonRunning(): boolean;
  warmSearch: HomeMemory["warmSearch"];
  /** A shared memory: a stamp that changes when any host writes (the TUI polls it instead of watching files). */
  changeStamp?(): Promise<string>;
  close(): Maybe<void>;
}
