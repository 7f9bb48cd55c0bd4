// The library entry: `import { openMemory } from "memvoy"`.
export { openMemory, type OpenOptions } from "./app/open-memory.ts";
export { MemoryApi } from "./app/memory-api.ts";
export type { WireMessageInput } from "./app/wire-input.ts";
export type { StoredMessage, MessageRecord, Role } from "./shared/message.ts";
export type { SearchOptions, SearchResult, SearchHit, MatchMode } from "./search/search-types.ts";
export type { SessionInfo } from "./memory/sessions-list.ts";
export type { TurnContext, ContextMessage } from "./memory/turn-context.ts";
export type { Config } from "./config/schema.ts";
export { MemvoyError, InputError, UsageError, RuntimeFailure } from "./shared/errors.ts";
