// MemoryApi: the one contract behind every front-end that is not on the home itself (library users, the
// MCP server, the HTTP API and its client). All async; every result is a plain JSON value (see json-types.ts).
import type {
  AddResultJson,
  AroundJson,
  ErrorHitsJson,
  ErrorListJson,
  ErrorOutcome,
  ErrorRecordJson,
  ErrorSearchResultJson,
  HistoryJson,
  MatchMode,
  MessageJson,
  RecordErrorResultJson,
  RemoveErrorResultJson,
  RemoveMessageResultJson,
  ResetResultJson,
  SearchResultJson,
  SessionJson,
  SummaryJson,
  TimeRange,
  TurnContextJson,
} from "./json-types.ts";

// The inputs, written out (the library's public types import nothing else); schemas.ts checks that its
// valibot schemas accept exactly these.
export interface MessageInput {
  role: "user" | "assistant";
  content: string;
  /**
   * RFC 3339, or unix seconds (a fraction allowed: 1765000000.5), milliseconds, microseconds or nanoseconds (as a
   * string: a number past 2^53 is refused). A fractional number is read from its shortest decimal form, exact to
   * well under a microsecond; a string is exact to the nanosecond. Default: now.
   */
  sendAt?: string | number;
  sender?: string;
  /** Unique per message within the session: a retried add with the same key stores nothing twice. */
  idempotencyKey?: string;
}

export interface SearchInput {
  query: string;
  session?: string;
  match?: MatchMode;
  range?: TimeRange;
  /** Only messages at or after this time: RFC 3339, a local date or time, today, yesterday, or 30m, 12h, 3d, 2w, 1y back. */
  since?: string;
  /** Only messages up to this time, in the same forms; a date alone means the end of that day. */
  until?: string;
  /** 1 to 1000 (default 10). */
  limit?: number;
}

export interface RecordErrorInput {
  tool: string;
  error: string;
  fix: string;
  cause?: string | null;
  outcome?: ErrorOutcome;
  keywords?: string[];
}

export interface SearchErrorsInput {
  query: string;
  tool?: string;
  limit?: number;
  /** Skip this many of the ranked records (default 0): only the records returned have their TTL restarted. */
  offset?: number;
  otherTools?: boolean;
  /** false: a look that is no hit, as listErrors and getError (no TTL restarted, no hit counted). */
  hit?: boolean;
}

export interface ListErrorsInput {
  tool?: string;
  outcome?: ErrorOutcome;
  limit?: number;
}

export interface MemoryApi {
  /** Append messages to a session, in order. Resolves once they are stored (history.json and the archive). */
  add(session: string, messages: MessageInput | readonly MessageInput[]): Promise<AddResultJson>;
  /** Sessions with message count, last activity and whether a summary exists; newest first by default. */
  sessions(options?: { sort?: "recent" | "name" }): Promise<SessionJson[]>;
  /** The context window (last N messages), or every message with `all`. */
  history(session: string, options?: { all?: boolean; last?: number }): Promise<HistoryJson>;
  /** Keyword, semantic or hybrid search over one session or all. */
  search(options: SearchInput): Promise<SearchResultJson>;
  /** Full messages by id (unknown ids are left out). */
  messages(ids: readonly string[]): Promise<MessageJson[]>;
  /** The messages before and after one message of its session. */
  around(id: string, options?: { before?: number; after?: number }): Promise<AroundJson>;
  /** The LLM-ready messages for the next turn and the system prompt section. */
  context(session: string, input?: string): Promise<TurnContextJson>;
  /** The session's rolling summary, cursor, last run and token usage. */
  summary(session: string): Promise<SummaryJson>;
  /** Clear history, archive and vectors; the summary survives unless `all`. */
  reset(session: string, options?: { all?: boolean }): Promise<ResetResultJson>;
  /** Remove everything of the session. */
  rm(session: string): Promise<ResetResultJson>;
  /** Remove one message everywhere; the summary stays (the result says if it covered it) unless `dropSummary`. */
  rmMessage(id: string, options?: { dropSummary?: boolean }): Promise<RemoveMessageResultJson>;
  /** Record a tool error and its fix (secrets redacted; the same error is merged). */
  recordError(input: RecordErrorInput): Promise<RecordErrorResultJson>;
  /** Look up fixes for an error text; every record returned (and no other) has its TTL restarted, unless `hit` is false. */
  searchErrors(input: SearchErrorsInput): Promise<ErrorSearchResultJson>;
  /**
   * Count a hit on these records (full ids, as a lookup with `hit: false` returned them) and restart their TTL,
   * for a caller that shows only some of the records it looked up. An id of no live record is skipped.
   */
  hitErrors(ids: readonly string[]): Promise<ErrorHitsJson>;
  /** Live error records, most recently recorded first. */
  listErrors(input?: ListErrorsInput): Promise<ErrorListJson>;
  /** One error record by id or unique prefix (no hit: the TTL is unchanged). */
  getError(id: string): Promise<ErrorRecordJson>;
  rmError(id: string): Promise<RemoveErrorResultJson>;
  close(): Promise<void>;
}
