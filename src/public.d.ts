// The library's public types, as a consumer compiles them (package.json "types"): the MemoryApi port,
// its JSON results and the two ways to get one. Nothing internal is reachable from here.
// test/agents/public-types.test.ts keeps this file and src/lib.ts in agreement.
import type { MemoryApi } from "./app/api/memory-api.ts";
import type { RemoteFailure } from "./app/api/remote-failure.ts";

export type * from "./app/api/json-types.ts";
export type * from "./app/api/memory-api.ts";
export type { RemoteFailure };

export interface MemoryOptions {
  /** The home folder; else $MEMVOY_HOME, else $XDG_CONFIG_HOME/memvoy, else ~/.config/memvoy. */
  home?: string;
  /** Environment used for the home and MEMVOY_* config overrides (default: process.env). */
  env?: Record<string, string | undefined>;
}

export interface ConnectOptions {
  /** The daemon's URL, e.g. http://127.0.0.1:24816 (`memvoy daemon status`, or <home>/http.json). */
  url: string;
  /** The bearer token from <home>/http.json. */
  token: string;
  /** Per-request timeout in ms (default 60,000; Infinity: none). */
  timeoutMs?: number;
}

/** Open a home in this process (in shared mode, the shared archive: it connects on the first call). */
export declare function openMemory(options?: MemoryOptions): MemoryApi;
/** Use a running daemon's loopback HTTP API. */
export declare function connectMemory(options: ConnectOptions): MemoryApi;

export declare abstract class MemvoyError extends Error {
  abstract readonly exitCode: 1 | 2;
  constructor(message: string, options?: { cause?: unknown });
}
/** Bad flags, unknown command, missing argument. */
export declare class UsageError extends MemvoyError {
  readonly exitCode: 1 | 2;
}
/** Input that cannot be accepted (a bad session id, empty content, a limit out of range); nothing changed. */
export declare class InputError extends MemvoyError {
  readonly exitCode: 1 | 2;
}
/** A runtime failure that is not the caller's fault. */
export declare class RuntimeFailure extends MemvoyError {
  readonly exitCode: 1 | 2;
}
/** The daemon could not be reached, or failed the request; `data` says which. */
export declare class RemoteError extends RuntimeFailure {
  readonly data: RemoteFailure;
  constructor(data: RemoteFailure, options?: { cause?: unknown });
}

/** One line of user text for any thrown value. */
export declare function describeError(err: unknown): string;
