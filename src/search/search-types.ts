// Search options and hits, shared by keyword, semantic and hybrid search.
import type { StoredMessage } from "../shared/message.ts";
import { rangeStart, type Nanos, type TimeRange } from "../shared/time.ts";
import type { MessageFilter, TimeBound } from "../shared/time-filter.ts";

export type MatchMode = "keyword" | "semantic" | "hybrid";
export type HitSource = "archive" | "recent" | "semantic";

export interface SearchOptions {
  query: string;
  session?: string;
  match?: MatchMode;
  range?: TimeRange;
  /** Inclusive lower time bound: RFC 3339, a local date or time, a relative form (3d), or UTC ns. With range the narrower wins. */
  since?: TimeBound;
  /** Upper time bound, same forms; a date alone means the end of that day. */
  until?: TimeBound;
  role?: string;
  sender?: string;
  limit?: number;
  /** Keyword mode: "newest" lists matches of every term newest first without bm25 (for search as you type). */
  order?: "relevance" | "newest";
  /** A person is typing the query now: its last word (no space after it) also matches as a prefix. Off by default, since a prefix costs a merge of every row list it covers. */
  typing?: boolean;
  /** Semantic and hybrid: an abort stops the search between its steps (an interactive caller's stale query). */
  signal?: AbortSignal;
}

/** What one tier's search is scoped by: the query, the session, the time range and filter, the page size, now. */
export interface TierScope {
  query: string;
  session?: string;
  range?: TimeRange;
  /** Time bounds, role and sender (range is folded in; the narrower lower bound wins). */
  filter?: MessageFilter;
  limit?: number;
  now: bigint;
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

/** A search's message filter: the resolved filter with the range folded in (the narrower lower bound wins). */
export function scopeFilter(o: { range?: TimeRange; filter?: MessageFilter; now: Nanos }): MessageFilter {
  const f: MessageFilter = { ...o.filter };
  const r = rangeStart(o.range ?? "all", o.now);
  if (r !== undefined && (f.since === undefined || r > f.since)) f.since = r;
  return f;
}
