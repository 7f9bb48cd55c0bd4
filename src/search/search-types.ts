// Search options and hits, shared by keyword, semantic and hybrid search.
import type { StoredMessage } from "../shared/message.ts";
import type { TimeRange } from "../shared/time.ts";

export type MatchMode = "keyword" | "semantic" | "hybrid";
export type HitSource = "archive" | "recent" | "semantic";

export interface SearchOptions {
  query: string;
  session?: string;
  match?: MatchMode;
  range?: TimeRange;
  /** UTC ns: only messages sent at or after this (with range, the later bound wins). */
  since?: bigint;
  /** UTC ns: only messages sent before this. */
  until?: bigint;
  limit?: number;
  /** Keyword mode: "newest" lists matches of every term newest first without bm25 (for search as you type). */
  order?: "relevance" | "newest";
  /** A person is typing the query now: its last word (no space after it) also matches as a prefix. Off by default, since a prefix costs a merge of every row list it covers. */
  typing?: boolean;
}

export interface SearchHit {
  message: StoredMessage;
  source: HitSource;
  /** Higher is better; comparable within one result list. */
  score: number;
  snippet: string;
  highlights: [number, number][];
  /** Semantic hits: the expanded neighbours (2 before, 1 after) in session order, the hit included. */
  context?: StoredMessage[];
  /** Semantic hits: 1-based similarity rank. */
  rank?: number;
}

export interface SearchResult {
  hits: SearchHit[];
  /** Messages written but not embedded yet (semantic and hybrid). */
  notIndexed?: number;
  /** Set when stored vectors come from another embedder than the configured one. */
  reindexNeeded?: boolean;
  notes: string[];
}
