// The library entry: `import { openMemory } from "memvoy"`.
export { openMemory, type OpenOptions } from "./app/open-memory.ts";
export { MemoryApi } from "./app/memory-api.ts";
export type { WireMessageInput } from "./app/wire-input.ts";
export type { StoredMessage, MessageRecord, Role } from "./shared/message.ts";
export type { SearchOptions, SearchResult, SearchHit, MatchMode } from "./search/search-types.ts";
export type { SessionInfo } from "./memory/sessions-list.ts";
export type { TurnContext, ContextMessage } from "./memory/turn-context.ts";
export type { SummarizeReport, SessionReport, SessionOutcome, SummaryProgress, SummarizeOptions } from "./memory/summary/summary-report.ts";
export type { SummaryView } from "./memory/summary/summary-view.ts";
export type { Summary, PastDiscussion, CurrentDiscussion } from "./memory/summary/summary-types.ts";
export type { RelevanceReport } from "./memory/summary/relevance-filter.ts";
export { MissingApiKeyError } from "./llm/llm-errors.ts";
export type { Config } from "./config/schema.ts";
export { MemvoyError, InputError, UsageError, RuntimeFailure } from "./shared/errors.ts";
