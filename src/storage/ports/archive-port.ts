// The archive port: everything the memory layer keeps in the archive database, asynchronous, with one
// implementation per driver (sqlite/ for the embedded home, postgres/ for a shared server).
import type { MessageRecord, StoredMessage } from "../../shared/message.ts";
import type { MessageFilter } from "../../shared/time-filter.ts";
import type { ErrorFields, ErrorOutcome, ErrorRow } from "../sqlite/error-memory-repo.ts";
import type { QueuedMessage } from "../sqlite/embed-queue-repo.ts";
import type { MetaUpdate, SessionMeta } from "../sqlite/session-meta-repo.ts";
import type { SessionRow } from "../sqlite/sessions-repo.ts";
import type { RunCounters, SummaryPosition, SummaryRunRow } from "../sqlite/summary-runs-repo.ts";
import type { UsageRow, UsageTotal } from "../sqlite/usage-repo.ts";
import type { CopyRow, CopyTableName } from "./copy-tables.ts";
import type { MessageRange } from "./message-rows.ts";
export type { MessageRange, MessageRow } from "./message-rows.ts";

export type {
  ErrorFields,
  ErrorOutcome,
  ErrorRow,
  MetaUpdate,
  QueuedMessage,
  RunCounters,
  SessionMeta,
  SessionRow,
  SummaryPosition,
  SummaryRunRow,
  UsageRow,
  UsageTotal,
};

/** A message to append; a key already used in its session returns the stored message instead. */
export interface NewMessage extends MessageRecord {
  idempotencyKey?: string;
}

/** One appended record: the stored message, and whether this call added it (false: its id or key existed). */
export interface Appended {
  message: StoredMessage;
  added: boolean;
}

/** A message as a copy between archives moves it: position, tier and key kept. */
export interface ArchivedMessage extends StoredMessage {
  idempotencyKey?: string;
}

/**
 * A phrase of index tokens (the search form of src/shared/search-form.ts, split like the index splits it):
 * the tokens must follow each other; with `prefix`, the last token matches any token starting with it.
 */
export interface TextPhrase {
  tokens: string[];
  prefix?: boolean;
}

/** A keyword query: each term is one or more alternative phrases; "all" needs every term, "any" one. */
export interface TextQuery {
  mode: "all" | "any";
  terms: TextPhrase[][];
}

export interface TextSearchOptions {
  session?: string;
  filter?: MessageFilter;
  /** At most this many hits (default 50). */
  limit?: number;
  /** "rank" (default): best first by the backend's ranking, equal scores the newest sent first; "newest": newest first. */
  order?: "rank" | "newest";
  /** The recent tier's rows only. */
  recent?: boolean;
}

/** Which rows recentHolding, archivedHolding and recentIds read: a session's (or every session's) that pass the filter. */
export interface RecentScope {
  session?: string;
  filter?: MessageFilter;
}

/** One keyword hit: the message and the backend's score (higher is better; scales differ by backend). */
export interface TextHit {
  message: StoredMessage;
  score: number;
}

/** The session's summary and cursor as the archive holds them (the per-session files are caches of this). */
export interface SummaryState {
  /** summary.json's text. */
  summary: string;
  /** .summary_cursor's text. */
  cursor: string;
  /** Bumped on every write: a cache is stale when its version is older. */
  version: bigint;
  updatedAt: bigint;
}

/** The two texts of a summary write: summary.json's and .summary_cursor's. */
export type SummaryText = { summary: string; cursor: string };

/** A job lease held by one worker on one session until `expiresAt` (ns, the archive's clock). */
export interface Lease {
  job: string;
  session: string;
  holder: string;
  expiresAt: bigint;
}

export interface SessionLockOptions {
  /** Give up after this long (default 30 s) with SessionLockTimeoutError. */
  timeoutMs?: number;
}

export interface ArchiveCounts {
  messages: number;
  sessions: number;
  errors: number;
  usage: number;
  summaryRuns: number;
  summaries: number;
}

/** The time of an append, and whether its messages are queued for a vector (they are unless false). */
export interface AppendOptions {
  now: bigint;
  queueEmbedding?: boolean;
}

export interface ArchivePort {
  readonly kind: "sqlite" | "postgres";
  close(): Promise<void>;

  // Messages
  appendMessages(session: string, records: readonly NewMessage[], opts: AppendOptions): Promise<Appended[]>;
  listMessages(session: string, range?: MessageRange): Promise<StoredMessage[]>;
  messagesById(ids: readonly string[]): Promise<StoredMessage[]>;
  messagesByIdempotencyKey(session: string, keys: readonly string[]): Promise<Map<string, StoredMessage>>;
  countMessages(session?: string): Promise<number>;
  /** Remove one message by id (index row, queue entry, its id and key tombstoned; its vector is scheduled for deletion). */
  removeMessage(id: string, now: bigint): Promise<boolean>;
  /** Of these tombstone hashes (see tombstone-hash.ts), those of removed messages or keys. */
  tombstoned(hashes: readonly string[]): Promise<Set<string>>;
  /** Remove every message of a session, tombstoning their ids and keys; returns how many. */
  removeSessionMessages(session: string, now: bigint): Promise<number>;
  /** Compaction: messages before `startSeq` leave the recent tier; the session's start moves. */
  archiveBefore(session: string, startSeq: bigint, startAt: bigint, now: bigint): Promise<void>;
  startOf(session: string): Promise<{ startAt: bigint; startSeq: bigint } | undefined>;
  searchText(query: TextQuery, opts?: TextSearchOptions): Promise<TextHit[]>;
  /** How many rows the query matches, counted up to `cap` (a word's rarity, for ranking). */
  countText(query: TextQuery, cap: number): Promise<number>;
  /**
   * Keyword search's substring match: the newest `limit` recent rows in scope whose text holds every needle
   * (given in lower case) in any case, inside words too (`netes` in Kubernetes). Newest first.
   */
  recentHolding(needles: readonly string[], scope: RecentScope, limit: number): Promise<StoredMessage[]>;
  /** recentHolding over the archived rows: the symbol match of a query (`=>`, `.env`) there. Newest first. */
  archivedHolding(needles: readonly string[], scope: RecentScope, limit: number): Promise<StoredMessage[]>;
  /** For each seq, the seqs of the previous and the next recent message of its session (context.ts). */
  recentNeighbourSeqs(seqs: readonly bigint[]): Promise<Map<bigint, { prev?: bigint; next?: bigint }>>;
  /** recentNeighbourSeqs with the messages. */
  recentNeighbours(seqs: readonly bigint[]): Promise<Map<bigint, { prev?: StoredMessage; next?: StoredMessage }>>;
  /** The distinct senders (of one session, or of all), at most `limit` of them, in code point order. */
  knownSenders(session: string | undefined, limit: number): Promise<string[]>;
  /** The ids of the recent rows in scope, or undefined when there are more than `max`. */
  recentIds(scope: RecentScope, max: number): Promise<string[] | undefined>;

  // Sessions and metadata
  listSessions(): Promise<SessionRow[]>;
  getSession(id: string): Promise<SessionRow | undefined>;
  setSessionMeta(id: string, meta: MetaUpdate, now: bigint): Promise<void>;
  sessionMeta(id: string): Promise<SessionMeta | undefined>;

  // Small key/value state
  getMeta(key: string): Promise<string | undefined>;
  setMeta(key: string, value: string | undefined): Promise<void>;

  // The embedding queue
  dueEmbeddings(now: bigint, limit: number): Promise<QueuedMessage[]>;
  dequeueEmbeddings(items: readonly { seq: bigint; id: string }[]): Promise<void>;
  deferEmbeddings(seqs: readonly bigint[], error: string, nextTryAt: bigint): Promise<void>;
  queuedCount(session?: string): Promise<number>;
  /** Of those queued, the messages the embedder refused at their last try (refused-input.ts), and its latest refusal. */
  refusedCount(session?: string): Promise<{ count: number; error?: string }>;

  // Error memory rows
  insertError(id: string, fields: ErrorFields, now: bigint, expiresAt: bigint): Promise<ErrorRow>;
  errorBySignature(tool: string, signature: string): Promise<ErrorRow | undefined>;
  /**
   * Sign every record again with `sign` (the signature rules changed); a record whose new signature another record of
   * its tool holds keeps its own.
   */
  resignErrors(sign: (error: string) => string): Promise<void>;
  errorsByIdPrefix(prefix: string, now: bigint, limit?: number): Promise<ErrorRow[]>;
  expiredErrors(now: bigint, limit: number): Promise<{ seq: bigint; id: string }[]>;
  deleteErrors(rows: readonly { seq: bigint; id: string }[], now: bigint): Promise<void>;

  // LLM usage
  insertUsage(u: UsageRow): Promise<void>;
  usageTotals(session: string, since?: bigint): Promise<UsageTotal[]>;
  /** Input plus output tokens of every call at or after `since` (the daily budget). */
  tokensSince(since: bigint): Promise<number>;

  // Summary runs, and the summary with its cursor
  getSummaryRun(session: string): Promise<SummaryRunRow | undefined>;
  startSummaryRun(session: string, at: bigint): Promise<void>;
  finishSummaryRun(session: string, at: bigint, outcome: string, c: RunCounters, error?: string): Promise<void>;
  setPendingPosition(session: string, p: SummaryPosition, sha: string): Promise<void>;
  settlePosition(session: string, p: SummaryPosition | undefined): Promise<void>;
  /** Forget the exact position (the summary it belonged to is gone). */
  clearSummaryPosition(session: string): Promise<void>;
  /** Seqs of the session's untimed messages that no settled position has passed yet. */
  untimedSeqs(session: string): Promise<Set<bigint>>;
  /** Whether any message, of any session, holds this seq (a position's seq is never reused). */
  seqInUse(seq: bigint): Promise<boolean>;
  /** The newest send time of the session's messages (0 when none). */
  maxSendAt(session: string): Promise<bigint>;
  getSummaryState(session: string): Promise<SummaryState | undefined>;
  /**
   * Write the summary and cursor. With `expectVersion` (undefined = "none yet"), only when the stored
   * version is still that one: returns the new version, or undefined when another writer got there first.
   */
  putSummaryState(
    session: string,
    state: SummaryText,
    now: bigint,
    expect?: bigint | null,
  ): Promise<bigint | undefined>;

  // Concurrency
  /** Run `fn` holding the session's exclusive lock (across processes and, on a server, hosts). */
  withSessionLock<T>(session: string, fn: () => Promise<T>, opts?: SessionLockOptions): Promise<T>;
  /** Take the lease on (job, session) for `ttlMs` when it is free, expired, or already ours. */
  acquireLease(job: string, session: string, holder: string, ttlMs: number): Promise<Lease | undefined>;
  /** Extend a lease we hold; false when it was lost (expired and taken). */
  renewLease(lease: Lease, ttlMs: number): Promise<Lease | undefined>;
  releaseLease(lease: Lease): Promise<void>;
  leaseHolder(job: string, session: string): Promise<Lease | undefined>;

  // Copying between archives (migrate-archive)
  /** Messages with seq > afterSeq, oldest first, with their keys. */
  exportMessages(afterSeq: bigint, limit: number): Promise<ArchivedMessage[]>;
  /** Insert copied messages keeping their seq; rows already present are skipped. Returns how many were new. */
  importMessages(rows: readonly ArchivedMessage[], now: bigint): Promise<number>;
  /** Every row of a small table (see copy-tables.ts), in key order. */
  exportRows(table: CopyTableName): Promise<CopyRow[]>;
  /** Upsert copied rows of a small table; returns how many were written. */
  importRows(table: CopyTableName, rows: readonly CopyRow[]): Promise<number>;
  counts(): Promise<ArchiveCounts>;
}
