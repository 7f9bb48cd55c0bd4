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
}

export interface SearchHit {
  message: StoredMessage;
  source: HitSource;
  /** Every tier that found the hit (hybrid: one or more; `source` keeps the tier it came from). */
  foundBy?: HitSource[];
  /** Higher is better. Semantic hits: calibrated relevance in [0, 1], comparable across queries. */
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
  /** Why there is no hit, when there is none. */
  emptyReason?: string;
}
