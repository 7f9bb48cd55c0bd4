// The MemoryApi over HTTP: talks to a running daemon's loopback API (`connectMemory({url, token})`).
// Requests are built from the same route table the server routes by.
import { errorMessage, namedError } from "../../shared/errors.ts";
import type { RemoteFailure } from "./remote-failure.ts";
import type {
  MemoryApi,
  ListErrorsInput,
  MessageInput,
  RecordErrorInput,
  SearchErrorsInput,
  SearchInput,
} from "./memory-api.ts";
import { MemoryClosedError } from "./memory-closed.ts";
import { labelOf, pathParams, routeFor, type Route } from "./routes.ts";
import { parseInput } from "./schemas.ts";
import type { ErrorBody } from "./error-body.ts";
import { boundInstant } from "./time-instant.ts";
import { nowNs, nsToRfc3339, parseTime } from "../../shared/time.ts";
import { EmptyTimeWindowError, resolveFilter } from "../../shared/time-filter.ts";
import type * as J from "./json-types.ts";

export interface ConnectOptions {
  /** The daemon's URL, e.g. http://127.0.0.1:7411 (see `memvoy daemon status` or <home>/http.json). */
  url: string;
  /** The bearer token from <home>/http.json. */
  token: string;
  /** Per-request timeout in ms (default 60,000; Infinity: none). */
  timeoutMs?: number;
}

/** The daemon could not be reached, or failed the request. */
export const RemoteError = namedError<RemoteFailure>("RemoteError", "runtime", (d) => {
  switch (d.problem) {
    case "unreachable":
      return `cannot reach memvoy at ${d.base}: ${d.reason}`;
    case "timeout":
      return `memvoy at ${d.base} did not answer within ${d.timeoutMs} ms (timeoutMs): the request may still be carried out (retry an add with the same idempotencyKey)`;
    case "cut-off":
      return `memvoy at ${d.base} closed the connection before its answer was complete (${d.reason}): the request may still have been carried out (retry an add with the same idempotencyKey)`;
    case "not-json":
      return `memvoy at ${d.base} answered ${d.status} with a body that is not JSON`;
    case "failed":
      return `memvoy at ${d.base}: ${d.message} (HTTP ${d.status})`;
  }
});
export type RemoteError = InstanceType<typeof RemoteError>;

const NOT_MEMVOY = "the answer holds no memvoy error (is this the URL of memvoy's HTTP API? see <home>/http.json)";

/** The daemon refused the input (HTTP 400, 404 or 413): its own line, an input error as the local API's would be. */
export const RemoteInputError = namedError<{ base: string; status: number; code: string; message: string }>(
  "RemoteInputError",
  "input",
  (d) => d.message,
);
export type RemoteInputError = InstanceType<typeof RemoteInputError>;

/** connectMemory's options cannot make a client: the url is no URL, the token is empty, or the timeout no duration. */
export const ConnectOptionsError = namedError<
  { problem: "url"; url: unknown } | { problem: "token" } | { problem: "timeout"; timeoutMs: unknown }
>("ConnectOptionsError", "input", (d) => {
  switch (d.problem) {
    case "url":
      return `connectMemory: url ${JSON.stringify(d.url)} is not an http:// URL (e.g. http://127.0.0.1:7411)`;
    case "token":
      return "connectMemory: token is empty";
    case "timeout":
      return `connectMemory: timeoutMs ${String(d.timeoutMs)} is not a number of milliseconds above 0 (Infinity: no timeout)`;
  }
});
export type ConnectOptionsError = InstanceType<typeof ConnectOptionsError>;

/** Throws EmptyTimeWindowError as openMemory's search does; bounds that are no time are left to the daemon. */
function refuseEmptyWindow(o: SearchInput, now: bigint): void {
  if (o.since === undefined || o.until === undefined) return;
  try {
    resolveFilter({ since: o.since, until: o.until }, now);
  } catch (err) {
    if (err instanceof EmptyTimeWindowError) throw err;
  }
}

/** The message with a sendAt string as the RFC 3339 instant it stands for in this process's zone. */
function sentAtInstant(m: MessageInput): MessageInput {
  if (typeof m !== "object" || m === null || typeof m.sendAt !== "string") return m;
  const ns = parseTime(m.sendAt);
  return ns === undefined ? m : { ...m, sendAt: nsToRfc3339(ns) };
}

export class HttpMemoryApi implements MemoryApi {
  readonly #base: string;
  readonly #token: string;
  readonly #timeoutMs: number;
  #closed = false;

  constructor(o: ConnectOptions) {
    let u: URL;
    try {
      u = new URL(o.url);
    } catch {
      throw new ConnectOptionsError({ problem: "url", url: o.url });
    }
    // "localhost:7411" parses as a URL of scheme "localhost:": refused here, not as a bare TypeError on each call.
    if (u.protocol !== "http:" && u.protocol !== "https:")
      throw new ConnectOptionsError({ problem: "url", url: o.url });
    if (typeof o.token !== "string" || o.token === "") throw new ConnectOptionsError({ problem: "token" });
    const timeoutMs = o.timeoutMs ?? 60_000;
    // AbortSignal.timeout would throw a bare TypeError at each call for NaN, Infinity or a negative value.
    if (typeof timeoutMs !== "number" || !(timeoutMs > 0))
      throw new ConnectOptionsError({ problem: "timeout", timeoutMs: o.timeoutMs });
    this.#base = u.origin;
    this.#token = o.token;
    this.#timeoutMs = timeoutMs;
  }

  async #call<T>(name: Route["name"], input: Record<string, unknown>): Promise<T> {
    if (this.#closed) throw new MemoryClosedError({ open: "connectMemory" });
    const route = routeFor(name);
    // The same check the server makes, so both implementations refuse bad input with the same words.
    const rest: Record<string, unknown> = {
      ...(parseInput(route.input, input, labelOf(name)) as Record<string, unknown>),
    };
    let path = route.path;
    for (const p of pathParams(route.path)) {
      path = path.replace(`:${p}`, encodeURIComponent(String(rest[p] ?? "")));
      delete rest[p];
    }
    const url = new URL(path, this.#base);
    const init: RequestInit = {
      method: route.method,
      headers: { authorization: `Bearer ${this.#token}` },
      signal: Number.isFinite(this.#timeoutMs) ? AbortSignal.timeout(this.#timeoutMs) : undefined,
    };
    if (route.method === "POST") {
      init.body = JSON.stringify(rest);
      (init.headers as Record<string, string>)["content-type"] = "application/json";
    } else {
      for (const [k, v] of Object.entries(rest)) if (v !== undefined) url.searchParams.set(k, String(v));
    }
    let res: Response;
    try {
      res = await fetch(url, init);
    } catch (err) {
      throw this.#timedOut(err) ?? this.#lost(err);
    }
    const base = this.#base;
    const text = await res.text().catch((err) => {
      throw (
        this.#timedOut(err) ?? new RemoteError({ problem: "cut-off", base, reason: errorMessage(err) }, { cause: err })
      );
    });
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new RemoteError({ problem: "not-json", base, status: res.status });
    }
    if (res.ok) return body as T;
    const status = res.status;
    const e = (body as Partial<ErrorBody> | null)?.error;
    // Another program on that port (its own {"error": "not found"}): neither an input error nor a line to show.
    if (typeof e?.message !== "string" || typeof e.code !== "string")
      throw new RemoteError({ problem: "failed", base, status, message: NOT_MEMVOY });
    if (status === 400 || status === 404 || status === 413)
      throw new RemoteInputError({ base, status, code: e.code, message: e.message });
    throw new RemoteError({ problem: "failed", base, status, message: e.message });
  }

  /**
   * A fetch that failed without an answer: refused or not found, the request never reached a daemon; a connection
   * reset (the daemon killed or restarted mid-request) came after it was sent, so it may have been carried out.
   */
  #lost(err: unknown): RemoteError {
    const code = (err as { code?: unknown } | null)?.code;
    const problem = code === "ECONNRESET" || code === "EPIPE" ? "cut-off" : "unreachable";
    return new RemoteError({ problem, base: this.#base, reason: errorMessage(err) }, { cause: err });
  }

  /** The request's own timeout, as a RemoteError saying so: the daemon was reached ("cannot reach" would say it was not). */
  #timedOut(err: unknown): RemoteError | undefined {
    if ((err as { name?: string } | null)?.name !== "TimeoutError") return undefined;
    return new RemoteError({ problem: "timeout", base: this.#base, timeoutMs: this.#timeoutMs }, { cause: err });
  }

  add(session: string, messages: MessageInput | readonly MessageInput[]): Promise<J.AddResultJson> {
    const list: readonly MessageInput[] = Array.isArray(messages) ? messages : [messages as MessageInput];
    // A local time or a date is read here, as openMemory would read it, and sent as the instant it stands for: the
    // daemon may run in another zone. A value that is no time goes as given (refused there).
    return this.#call("add", { session, messages: list.map(sentAtInstant) });
  }
  sessions(options: { sort?: "recent" | "name" } = {}): Promise<J.SessionJson[]> {
    return this.#call("sessions", options);
  }
  history(session: string, options: { all?: boolean; last?: number } = {}): Promise<J.HistoryJson> {
    return this.#call("history", { session, ...options });
  }
  async search(options: SearchInput): Promise<J.SearchResultJson> {
    // A date, a local time or a relative form is read here, as openMemory would read it, and sent as the instant
    // it stands for: the daemon may run in another zone. A value that is no time goes as given (refused there).
    if (typeof options !== "object" || options === null) return this.#call("search", options as never);
    const now = nowNs();
    // Bounds that leave no time between them are refused here, naming them as given (the daemon would see instants).
    refuseEmptyWindow(options, now);
    const since = boundInstant(options.since, "since", now) ?? options.since;
    const until = boundInstant(options.until, "until", now) ?? options.until;
    return this.#call("search", { ...options, since, until });
  }
  messages(ids: readonly string[]): Promise<J.MessageJson[]> {
    return this.#call("messages", { ids });
  }
  around(id: string, options: { before?: number; after?: number } = {}): Promise<J.AroundJson> {
    return this.#call("around", { id, ...options });
  }
  context(session: string, input?: string): Promise<J.TurnContextJson> {
    return this.#call("context", input === undefined ? { session } : { session, input });
  }
  summary(session: string): Promise<J.SummaryJson> {
    return this.#call("summary", { session });
  }
  reset(session: string, options: { all?: boolean } = {}): Promise<J.ResetResultJson> {
    return this.#call("reset", { session, ...options });
  }
  rm(session: string): Promise<J.ResetResultJson> {
    return this.#call("rm", { session });
  }
  rmMessage(id: string, options: { dropSummary?: boolean } = {}): Promise<J.RemoveMessageResultJson> {
    return this.#call("rmMessage", { id, ...options });
  }
  recordError(input: RecordErrorInput): Promise<J.RecordErrorResultJson> {
    return this.#call("recordError", { ...input });
  }
  searchErrors(input: SearchErrorsInput): Promise<J.ErrorSearchResultJson> {
    return this.#call("searchErrors", { ...input });
  }
  hitErrors(ids: readonly string[]): Promise<J.ErrorHitsJson> {
    return this.#call("hitErrors", { ids });
  }
  listErrors(input: ListErrorsInput = {}): Promise<J.ErrorListJson> {
    return this.#call("listErrors", { ...input });
  }
  getError(id: string): Promise<J.ErrorRecordJson> {
    return this.#call("getError", { id });
  }
  rmError(id: string): Promise<J.RemoveErrorResultJson> {
    return this.#call("rmError", { id });
  }
  async close(): Promise<void> {
    this.#closed = true;
  }
}

/** A MemoryApi served by a running daemon (`memvoy --daemon`) over its loopback HTTP API. */
export function connectMemory(options: ConnectOptions): MemoryApi {
  return new HttpMemoryApi(options);
}
