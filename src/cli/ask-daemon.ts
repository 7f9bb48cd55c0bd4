// A search (of messages or of error memory), an error record or its removal handled by the daemon running for the
// home: its index is open and its caches warm, and its worker has LanceDB and the embedder loaded, so a one-shot
// command skips opening the home, and a semantic search or an error search, record or removal skips loading the
// vectors. Only a daemon of this very program and config (programStamp in <home>/http.json) is asked; with none, or
// when it cannot answer, the command does the work in its own process.
import type { SearchInput } from "../app/api/memory-api.ts";
import type {
  ErrorSearchResultJson,
  RecordErrorResultJson,
  RemoveErrorResultJson,
  SearchResultJson,
} from "../app/api/json-types.ts";
import type { VectorCalls } from "../app/api/local-memory-api.ts";
import { programStamp } from "../config/program-stamp.ts";
import type { Config } from "../config/schema.ts";
import { readHttpFile, type HttpFile } from "../http/http-file.ts";
import { boundInstant } from "../app/api/time-instant.ts";
import { nowNs } from "../shared/time.ts";
import { pathIdentity } from "../shared/path-identity.ts";

/** How long a daemon may take before the command searches itself instead. */
export const DAEMON_SEARCH = { timeoutMs: 10_000 };

/** What the command searches for: the API's input, and the filters only the local search has. */
export interface CliSearch extends SearchInput {
  role?: string;
  sender?: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false; // gone, or another user's process (EPERM): not this home's daemon
  }
}

/** Where a home's daemon says it runs (http.json) and the lock it holds while it runs (daemon.lock). */
export interface DaemonFiles {
  httpFile: string;
  daemonLock: string;
}

/** The http.json of a daemon of this very program and config running for the home; undefined when none runs. */
async function ownDaemon(home: DaemonFiles, config: Config): Promise<HttpFile | undefined> {
  const f = readHttpFile(home.httpFile);
  if (f?.stamp === undefined || f.stamp !== programStamp(config) || !alive(f.pid)) return undefined;
  // A copy of a home made while its daemon ran (cp -r, a restored backup) holds that daemon's http.json: only a
  // daemon holding this home's lock runs for it. The lock file's identity tells without probing the lock (whose
  // loading costs a one-shot command more than a millisecond): a copy's daemon.lock is another file.
  if (f.lock !== undefined) return pathIdentity(home.daemonLock) === f.lock ? f : undefined;
  const { daemonLockHeld } = await import("../app/daemon-probe.ts");
  try {
    return daemonLockHeld(home.daemonLock) ? f : undefined;
  } catch {
    return undefined; // the lock cannot be looked at (a read-only copy): no daemon can run for it either
  }
}

/** A call of the HTTP API (routes.ts): a POST of a JSON body, or a DELETE of the resource at the route. */
export type DaemonCall = { route: string; body: object } | { route: string; method: "DELETE" };

/**
 * The daemon's answer to a call, or undefined when it refuses the input (the local call then says what is wrong
 * in its own words), fails, or does not answer in time (`here` then says what the command does instead).
 */
async function askDaemon<T>(f: HttpFile, call: DaemonCall, here: string): Promise<T | undefined> {
  // A bare request, not HttpMemoryApi: its own check of the input (the API's schemas) would cost this one-shot
  // process about 2 ms, and the daemon checks the input anyway.
  try {
    const post = "body" in call;
    const res = await fetch(new URL(call.route, f.url), {
      method: post ? "POST" : call.method,
      headers: { authorization: `Bearer ${f.token}`, ...(post ? { "content-type": "application/json" } : {}) },
      body: post ? JSON.stringify(call.body) : undefined,
      signal: AbortSignal.timeout(DAEMON_SEARCH.timeoutMs),
    });
    if (!res.ok) return undefined;
    return (await res.json()) as T;
  } catch (err) {
    // A daemon gone since is not worth a word; one that does not answer is.
    if ((err as { name?: string }).name === "TimeoutError")
      process.stderr.write(`memvoy: the daemon did not answer within ${DAEMON_SEARCH.timeoutMs / 1000} s; ${here}\n`);
    return undefined;
  }
}

/**
 * The daemon's answer, or undefined: no daemon of this program and config runs for the home, the search uses a
 * filter the HTTP API does not take (role, sender) or input the local search reports, or the daemon failed.
 */
export async function searchViaDaemon(
  home: DaemonFiles,
  config: Config,
  o: CliSearch,
): Promise<SearchResultJson | undefined> {
  if (o.role !== undefined || o.sender !== undefined) return undefined;
  const now = nowNs();
  const since = boundInstant(o.since, "since", now);
  const until = boundInstant(o.until, "until", now);
  if (since === null || until === null) return undefined; // the local search says what is wrong
  // Keys left undefined are not sent (JSON drops them).
  const input: SearchInput = {
    query: o.query,
    session: o.session,
    match: o.match,
    range: o.range,
    since,
    until,
    limit: o.limit,
  };
  return askHomeDaemon<SearchResultJson>(home, config, { route: "/v1/search", body: input }, "searching here");
}

/**
 * The answer of the daemon running for the home to a call (see askDaemon), or undefined; `here` is what
 * the command does when the daemon does not answer in time. A write the daemon made before it failed or timed out
 * is made again by the command (an error record then merges into it: one more occurrence).
 */
export async function askHomeDaemon<T>(
  home: DaemonFiles,
  config: Config,
  call: DaemonCall,
  here: string,
): Promise<T | undefined> {
  const f = await ownDaemon(home, config);
  return f ? askDaemon<T>(f, call, here) : undefined;
}

/** The call that removes one error record (any unique prefix of its id, as the local removal takes it). */
export const rmErrorCall = (id: string): DaemonCall => ({
  route: `/v1/errors/${encodeURIComponent(id)}`,
  method: "DELETE",
});

/**
 * VectorCalls made by the daemon running for the home whenever there is one (looked for again at each call: it
 * may start or stop meanwhile), else by `local`. A long-lived front-end (the MCP server) then maps LanceDB only
 * while no daemon of its program and config runs. The purge that ends a deletion has no route: it stays local.
 */
export function daemonFirst(home: DaemonFiles, config: Config, local: VectorCalls): VectorCalls {
  const ask = <T>(route: string, body: object, here: string) => askHomeDaemon<T>(home, config, { route, body }, here);
  return {
    search: async (input) => {
      // A time without a zone, a date or a relative form is read here (this process's zone and clock) and sent
      // as the instant it stands for.
      const now = nowNs();
      const since = boundInstant(input.since, "since", now);
      const until = boundInstant(input.until, "until", now);
      if (since === null || until === null) return local.search(input); // the local search says what is wrong
      return (
        (await ask<SearchResultJson>("/v1/search", { ...input, since, until }, "searching here")) ?? local.search(input)
      );
    },
    searchErrors: async (input) =>
      (await ask<ErrorSearchResultJson>("/v1/errors/search", input, "searching here")) ?? local.searchErrors(input),
    recordError: async (input) =>
      (await ask<RecordErrorResultJson>("/v1/errors", input, "recording here")) ?? local.recordError(input),
    rmError: async (id) =>
      (await askHomeDaemon<RemoveErrorResultJson>(home, config, rmErrorCall(id), "removing here")) ?? local.rmError(id),
    purgeDeleted: () => local.purgeDeleted(),
  };
}
