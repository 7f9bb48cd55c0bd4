// The HomeMemory shapes the TUI works with, derived from the API itself (the TUI sees only app/ and shared/).
import type { HomeMemory } from "../app/memory-api.ts";

export type SessionInfo = ReturnType<HomeMemory["sessions"]>[number];
export type SearchOptions = Parameters<HomeMemory["search"]>[0];
export type SearchResult = Awaited<ReturnType<HomeMemory["search"]>>;
export type SearchHit = SearchResult["hits"][number];
export type MatchMode = NonNullable<SearchOptions["match"]>;
export type ErrorRecord = ReturnType<HomeMemory["getError"]>;
export type ErrorList = ReturnType<HomeMemory["listErrors"]>;
export type ErrorSearchResult = Awaited<ReturnType<HomeMemory["searchErrors"]>>;
export type SummaryView = ReturnType<HomeMemory["summary"]>;
export type SummarizeReport = Awaited<ReturnType<HomeMemory["summarize"]>>;
export type SummaryProgress = Parameters<
  NonNullable<NonNullable<Parameters<HomeMemory["summarize"]>[1]>["onProgress"]>
>[0];
