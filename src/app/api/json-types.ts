// The plain-JSON values the MemoryApi port returns: the CLI's --json shapes. Times are RFC 3339 UTC with
// 9 fractional digits; nothing is a bigint or a class instance, so JSON.stringify works on every result.
import type { ContextMessage } from "../../shared/context-message.ts";
import type { ErrorOutcome, ErrorRecordText } from "../../shared/error-record-text.ts";

export type Role = "user" | "assistant";
export type MatchMode = "keyword" | "semantic" | "hybrid";
export type TimeRange = "1d" | "7d" | "30d" | "1y" | "all";
export type { ErrorOutcome };

export interface MessageJson {
  id: string;
  session: string;
  role: Role;
  content: string;
  sendAt: string;
  sender?: string;
  /** recent: still in history.json; archive: only in the full-text archive. */
  tier: "recent" | "archive";
}

export interface AddResultJson {
  session: string;
  /**
   * One id per message, in the order given: a message whose idempotencyKey was stored already gives its stored
   * id; one whose idempotencyKey belonged to a message removed since (rm-message) gives "" (nothing stored).
   */
  ids: string[];
  /** Messages not stored again because the session already held their idempotencyKey. */
  duplicates: number;
  /**
   * Messages not stored because their idempotencyKey belonged to a message removed since: it never comes back.
   * Absent when none.
   */
  removed?: number;
  /** The session's history.json had no user+assistant pair boundary and was cut between two messages (docs/history.md). */
  compactionNote?: string;
}

export interface SessionJson {
  id: string;
  messages: number;
  lastActivity: string | null;
  hasSummary: boolean;
  /** Imported sessions: the importer (claude-code, codex, ...), the conversation's title, its project, its parent session. */
  source?: string;
  title?: string;
  project?: string;
  parent?: string;
}

export interface HistoryJson {
  session: string;
  messages: MessageJson[];
}

export interface SearchHitJson extends MessageJson {
  source: "archive" | "recent" | "semantic";
  /** Every tier that found the hit (semantic and hybrid). */
  foundBy?: ("archive" | "recent" | "semantic")[];
  score: number;
  snippet: string;
  /** [start, end) of each marked match in `snippet`, in UTF-16 code units (JavaScript string offsets). */
  highlights: [number, number][];
  rank?: number;
  /** Semantic hits: the neighbours (2 before, 1 after) in session order; `hit` marks the hit itself. */
  context?: (MessageJson & { hit: boolean })[];
}

export interface SearchResultJson {
  query: string;
  hits: SearchHitJson[];
  notIndexed: number;
  reindexNeeded: boolean;
  notes: string[];
  /** Why there is no hit, when there is none. */
  emptyReason?: string;
}

export interface AroundJson {
  anchor: string;
  session: string;
  messages: MessageJson[];
}

export type ContextMessageJson = ContextMessage;

export interface TurnContextJson {
  session: string;
  messages: ContextMessageJson[];
  system: string;
  /** No such session yet (the context of its first turn). */
  newSession?: true;
  summaryFilter?: unknown;
  /** Why summary.json could not be read: the summary is left out until the next summary run rebuilds it. */
  summaryProblem?: string;
}

export interface SummaryJson {
  session: string;
  state: string;
  summary: unknown;
  legacy?: unknown;
  problem?: string;
  cursor: string | null;
  cursorProblem?: string;
  position: { seq: number; id: string } | null;
  lastRun: unknown;
  usage: unknown;
  due: boolean;
}

export interface ResetResultJson {
  session: string;
  messagesRemoved: number;
  summaryRemoved: boolean;
  /** Copies kept by `doctor --repair` that held the removed text, removed too (home-relative); absent when none. */
  keptCopiesRemoved?: string[];
  /**
   * The text is removed, but the vector store could not delete the removed messages' vectors now (an object store
   * down): why, in one line. The next embedding drain deletes them. Absent when they are deleted.
   */
  vectorsPending?: string;
}

export interface RemoveMessageResultJson {
  id: string;
  session: string;
  /** The message was still in history.json (the recent tier). */
  wasRecent: boolean;
  /** The rolling summary had already covered the message (its text may live on there). */
  summarized: boolean;
  /** summary.json and the cursor were removed too (dropSummary). */
  summaryRemoved: boolean;
  /** Copies kept by `doctor --repair` that held the removed text, removed too (home-relative); absent when none. */
  keptCopiesRemoved?: string[];
  /**
   * The text is removed, but the vector store could not delete the removed messages' vectors now (an object store
   * down): why, in one line. The next embedding drain deletes them. Absent when they are deleted.
   */
  vectorsPending?: string;
}

export interface ErrorRecordJson extends ErrorRecordText {
  id: string;
  createdAt: string;
  updatedAt: string;
  lastHitAt: string | null;
  expiresAt: string;
  hits: number;
  occurrences: number;
  embedded: boolean;
}

export interface RecordErrorResultJson {
  record: ErrorRecordJson;
  merged: boolean;
  redacted: string[];
  notes: string[];
}

export interface ErrorSearchResultJson {
  tool: string | null;
  hits: (ErrorRecordJson & { score: number; matchedBy: ("keyword" | "semantic")[] })[];
  notEmbedded: number;
  notes: string[];
}

/** The records hitErrors stamped, in the order asked (an id of no live record is left out). */
export interface ErrorHitsJson {
  records: ErrorRecordJson[];
}

export interface ErrorListJson {
  records: ErrorRecordJson[];
  total: number;
}

export interface RemoveErrorResultJson {
  removed: ErrorRecordJson;
  notes: string[];
}

export interface HealthJson {
  ok: true;
  name: "memvoy";
  version: string;
}
