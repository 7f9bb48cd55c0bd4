// The MemoryApi shapes the TUI works with, derived from the API itself (the TUI sees only app/ and shared/).
import type { MemoryApi } from "../app/memory-api.ts";

export type SessionInfo = ReturnType<MemoryApi["sessions"]>[number];
export type SearchOptions = Parameters<MemoryApi["search"]>[0];
export type SearchResult = Awaited<ReturnType<MemoryApi["search"]>>;
export type SearchHit = SearchResult["hits"][number];
export type MatchMode = NonNullable<SearchOptions["match"]>;
export type ErrorRecord = ReturnType<MemoryApi["getError"]>;
export type ErrorList = ReturnType<MemoryApi["listErrors"]>;
export type ErrorSearchResult = Awaited<ReturnType<MemoryApi["searchErrors"]>>;
export type SummaryView = ReturnType<MemoryApi["summary"]>;
export type SummarizeReport = Awaited<ReturnType<MemoryApi["summarize"]>>;
export type SummaryProgress = Parameters<NonNullable<NonNullable<Parameters<MemoryApi["summarize"]>[1]>["onProgress"]>>[0];
