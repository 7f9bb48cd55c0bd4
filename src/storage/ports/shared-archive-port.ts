// What the MemoryApi needs of an archive in shared mode beyond the archive port: whole-session removal,
// the summary's bookkeeping, error-memory upkeep and the vector deletions other hosts scheduled.
import type { ImportFileState } from "../sqlite/import-files-repo.ts";
import type {
  ArchivePort,
  ErrorFields,
  ErrorOutcome,
  ErrorRow,
  SessionMeta,
  SessionRow,
  SummaryText,
  TextQuery,
} from "./archive-port.ts";
import type { ArchiveAdminPort } from "./archive-admin-port.ts";
import type { StoredMessage } from "../../shared/message.ts";

export type { ImportFileState };

export interface ErrorListFilter {
  tool?: string;
  outcome?: ErrorOutcome;
}

/** Vector deletions scheduled by the archive: whole ids, and every row of a session before a seq. */
export interface VectorDeletes {
  ids: string[];
  before: { id: bigint; session: string; beforeSeq: bigint }[];
}

/** A session as the sessions list shows it: its row, its metadata and whether a summary is stored. */
export interface SessionListing extends SessionRow {
  meta: SessionMeta;
  hasSummary: boolean;
}

/** Where a session's summary stands: when it was last written, and how its last run went. */
export interface SummaryStatus {
  summaryUpdatedAt?: bigint;
  /** The summary's version (it moves with every write): whether its text was checked is kept by it. */
  summaryVersion?: bigint;
  run?: { outcome: string; startedAt: bigint; finishedAt?: bigint };
}

export interface SharedArchivePort extends ArchivePort {
  /** The administration reads (stats, usage, doctor, the terminal UI's change stamp). */
  readonly admin: ArchiveAdminPort;
  /** Every session with its metadata, in one read. */
  listSessionInfo(): Promise<SessionListing[]>;
  /** Every session with a summary or a summary run, in one read (which sessions are due). */
  summaryStatuses(): Promise<Map<string, SummaryStatus>>;
  /** The summary text and cursor of each of these sessions that has one, in one read. */
  summaryTexts(sessions: readonly string[]): Promise<Map<string, SummaryText>>;
  /** The recent tier of each of these sessions, oldest first, in one read (doctor compares the caches with it). */
  recentOf(sessions: readonly string[]): Promise<Map<string, StoredMessage[]>>;
  /**
   * The session's row, start, summary state, last run, usage and leases (its messages are removed first); its id is
   * kept under removedSessionKey, so that a host can tell its cache of a removed session from another program's folder.
   */
  removeSession(session: string): Promise<void>;
  /** Token usage rows by id (rows a copied home no longer holds). */
  deleteUsage(ids: readonly bigint[]): Promise<void>;
  /** Give these rows new keys, above `above` and every key there (rows in the way of a copied home's). */
  renumberRows(table: "error_records" | "llm_usage", keys: readonly bigint[], above: bigint): Promise<void>;
  /** The summary state and the last run; returns whether a summary was stored. */
  forgetSummary(session: string): Promise<boolean>;
  /** Give a run recorded as running a new start time (its saves, which require the time it wrote, are refused). */
  restartSummaryRun(session: string, at: bigint): Promise<void>;
  /** The messages whose id hashes (idTombstoneHash) to one of these: removed elsewhere, still stored here. */
  messagesWithIdHashes(hashes: readonly string[]): Promise<{ id: string; session: string }[]>;
  /**
   * A count that moves whenever tombstones are written, a session is removed or a summary dropped (a removal on any
   * host); equal counts: none since.
   */
  removalCount(): Promise<bigint>;
  /** A new sighting of a record: newest text, fix and outcome; count bumped; TTL refreshed. */
  mergeError(seq: bigint, f: ErrorFields, now: bigint, expiresAt: bigint, textChanged: boolean): Promise<ErrorRow>;
  /** Live records, most recently recorded first, and how many match the filter in all. */
  liveErrors(f: ErrorListFilter, now: bigint, limit: number): Promise<{ rows: ErrorRow[]; total: number }>;
  liveErrorsBySeqs(seqs: readonly bigint[], now: bigint): Promise<ErrorRow[]>;
  liveErrorsByIds(ids: readonly string[], now: bigint): Promise<ErrorRow[]>;
  /** A search returned these records: count the hit and restart their TTL. */
  touchErrors(seqs: readonly bigint[], now: bigint, expiresAt: bigint): Promise<void>;
  /** Live records matching the query (any term), best first, with the backend's score. */
  searchErrorText(
    query: TextQuery,
    now: bigint,
    tool: string | undefined,
    limit: number,
  ): Promise<{ seq: bigint; score: number }[]>;
  markErrorsEmbedded(rows: readonly { seq: bigint; revision: number }[], embedderId: string): Promise<void>;
  /** Every error record waiting for a vector again (a rebuild of the error vectors). */
  clearErrorsEmbedded(): Promise<void>;
  /** Live records without a vector of this embedder, oldest first. */
  unembeddedErrors(embedderId: string, now: bigint, limit: number): Promise<ErrorRow[]>;
  /** The vector deletions waiting to be applied. */
  pendingVectorDeletes(limit: number): Promise<VectorDeletes>;
  /** Deletions applied to the vector store: forget them. */
  clearVectorDeletes(done: VectorDeletes): Promise<void>;
  /** Error-record vector deletions waiting to be applied, and forgetting them once applied. */
  pendingErrorVectorDeletes(limit: number): Promise<string[]>;
  clearErrorVectorDeletes(ids: readonly string[]): Promise<void>;

  /** A stored message's text grew (a streamed reply imported again): new text and index, vector queued again. */
  replaceMessageContent(session: string, id: string, content: string): Promise<boolean>;
  /** Queue every recent message for embedding, due now (a rebuild of the vectors); returns how many were added. */
  requeueRecent(): Promise<number>;
  /** Every queued message due now (its back-off forgotten). */
  makeQueueDue(): Promise<void>;
  /** What `reader` (a host and home) has read of an import source's file. */
  importFile(reader: string, source: string, path: string): Promise<ImportFileState | undefined>;
  putImportFile(reader: string, source: string, path: string, state: ImportFileState, now: bigint): Promise<void>;
}

/** The meta key (getMeta) that says a session of this id was removed from the shared archive (rm, on any host). */
export const removedSessionKey = (session: string) => `removed-session:${session}`;
