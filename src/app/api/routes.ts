// The route and schema table of the HTTP API: one row per MemoryApi operation. The HTTP server, the HTTP
// client (connectMemory) and the OpenAPI document are all built from it.
import type { MemoryApi } from "./memory-api.ts";
import type * as v from "valibot";
import * as S from "./schemas.ts";

export type Method = "GET" | "POST" | "DELETE";

export interface Route {
  /** The MemoryApi method. */
  name: keyof Omit<MemoryApi, "close">;
  method: Method;
  /** With :params; those fields of the input come from the path, the rest from the query (GET, DELETE) or the JSON body (POST). */
  path: string;
  summary: string;
  input: S.AnySchema;
  /** True when the operation changes nothing (GET routes); error lookup restarts TTLs, so it is not read-only. */
  readOnly: boolean;
  call(api: MemoryApi, input: any): Promise<unknown>;
  /** The answer as JSON text in pieces, where the api can give it so (a large answer is never held whole). */
  stream?(api: MemoryApi, input: unknown): Promise<AsyncIterable<string> | undefined>;
}

/** A MemoryApi that can also give history's answer as text in pages (the local one). */
interface HistoryText {
  historyJsonText?(
    session: string,
    options: { all?: boolean; last?: number },
  ): Promise<AsyncIterable<string> | undefined>;
}

export const ROUTES: readonly Route[] = [
  {
    name: "sessions",
    method: "GET",
    path: "/v1/sessions",
    summary: "List sessions",
    input: S.SessionsInput,
    readOnly: true,
    call: (api, i) => api.sessions(i),
  },
  {
    name: "history",
    method: "GET",
    path: "/v1/sessions/:session/history",
    summary: "A session's context window, or every message with all=true",
    input: S.HistoryInput,
    readOnly: true,
    call: (api, { session, ...o }) => api.history(session, o),
    stream: async (api, input) => {
      const { session, ...o } = input as v.InferOutput<typeof S.HistoryInput>;
      return (api as HistoryText).historyJsonText?.(session, o);
    },
  },
  {
    name: "add",
    method: "POST",
    path: "/v1/sessions/:session/messages",
    summary: "Append messages to a session",
    input: S.AddInput,
    readOnly: false,
    call: (api, i) => api.add(i.session, i.messages),
  },
  {
    name: "context",
    method: "POST",
    path: "/v1/sessions/:session/context",
    summary: "The LLM-ready messages for the next turn",
    input: S.ContextInput,
    readOnly: true,
    call: (api, i) => api.context(i.session, i.input),
  },
  {
    name: "summary",
    method: "GET",
    path: "/v1/sessions/:session/summary",
    summary: "A session's rolling summary",
    input: S.SessionInput,
    readOnly: true,
    call: (api, i) => api.summary(i.session),
  },
  {
    name: "reset",
    method: "POST",
    path: "/v1/sessions/:session/reset",
    summary: "Clear a session's history, archive and vectors (the summary survives unless all=true)",
    input: S.ResetInput,
    readOnly: false,
    call: (api, { session, ...o }) => api.reset(session, o),
  },
  {
    name: "rm",
    method: "DELETE",
    path: "/v1/sessions/:session",
    summary: "Remove a session entirely",
    input: S.SessionInput,
    readOnly: false,
    call: (api, i) => api.rm(i.session),
  },
  {
    name: "search",
    method: "POST",
    path: "/v1/search",
    summary: "Keyword, semantic or hybrid search",
    input: S.SearchInput,
    readOnly: true,
    call: (api, i) => api.search(i),
  },
  {
    name: "messages",
    method: "POST",
    path: "/v1/messages/get",
    summary: "Full messages by id",
    input: S.MessagesInput,
    readOnly: true,
    call: (api, i) => api.messages(i.ids),
  },
  {
    name: "around",
    method: "GET",
    path: "/v1/messages/:id/around",
    summary: "The messages before and after one message",
    input: S.AroundInput,
    readOnly: true,
    call: (api, { id, ...o }) => api.around(id, o),
  },
  {
    name: "rmMessage",
    method: "DELETE",
    path: "/v1/messages/:id",
    summary: "Remove one message everywhere (the summary stays unless dropSummary=true)",
    input: S.RmMessageInput,
    readOnly: false,
    call: (api, { id, ...o }) => api.rmMessage(id, o),
  },
  {
    name: "recordError",
    method: "POST",
    path: "/v1/errors",
    summary: "Record a tool error and its fix",
    input: S.RecordErrorInput,
    readOnly: false,
    call: (api, i) => api.recordError(i),
  },
  {
    name: "searchErrors",
    method: "POST",
    path: "/v1/errors/search",
    summary: "Look up fixes for an error text (restarts the TTL of every record returned)",
    input: S.SearchErrorsInput,
    readOnly: false,
    call: (api, i) => api.searchErrors(i),
  },
  {
    name: "hitErrors",
    method: "POST",
    path: "/v1/errors/hits",
    summary:
      "Count a hit on these error records and restart their TTL (the ones a lookup with hit: false showed; an id of no live record is skipped)",
    input: S.HitErrorsInput,
    readOnly: false,
    call: (api, i) => api.hitErrors(i.ids),
  },
  {
    name: "listErrors",
    method: "GET",
    path: "/v1/errors",
    summary: "Live error records",
    input: S.ListErrorsInput,
    readOnly: true,
    call: (api, i) => api.listErrors(i),
  },
  {
    name: "getError",
    method: "GET",
    path: "/v1/errors/:id",
    summary: "One error record",
    input: S.ErrorIdInput,
    readOnly: true,
    call: (api, i) => api.getError(i.id),
  },
  {
    name: "rmError",
    method: "DELETE",
    path: "/v1/errors/:id",
    summary: "Remove an error record",
    input: S.ErrorIdInput,
    readOnly: false,
    call: (api, i) => api.rmError(i.id),
  },
];

export const HEALTH_PATH = "/v1/health";
export const OPENAPI_PATH = "/v1/openapi.json";
export const MCP_PATH = "/mcp";

/** The :param names of a path. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
}

const LABELS: Partial<Record<Route["name"], string>> = {
  rmMessage: "rm-message",
  recordError: "errors record",
  searchErrors: "errors search",
  listErrors: "errors list",
  getError: "errors show",
  rmError: "errors rm",
};

/** How errors about an operation's input name it (the CLI command's words). */
export function labelOf(name: Route["name"]): string {
  return LABELS[name] ?? name;
}

/** The route of an operation (every name of the Route type has one in ROUTES). */
export function routeFor(name: Route["name"]): Route {
  return ROUTES.find((x) => x.name === name)!;
}
