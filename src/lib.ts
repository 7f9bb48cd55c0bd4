// The library entry: `import { openMemory, connectMemory } from "memvoy"`. Everything exported here is the
// public surface (see README "Library"): the MemoryApi port, its two implementations and its JSON types.
export { openMemoryApi as openMemory, type MemoryOptions } from "./app/api/local-memory-api.ts";
export { connectMemory, RemoteError, type ConnectOptions } from "./app/api/http-memory-api.ts";
export type * from "./app/api/memory-api.ts";
export type * from "./app/api/json-types.ts";
export { MemvoyError, InputError, UsageError, RuntimeFailure } from "./shared/errors.ts";
export { describeError } from "./shared/describe-error.ts";
