// The loopback HTTP API: Bun.serve routes built from the route table, bound to 127.0.0.1 (and [::1] on the
// same port where the machine has it), each request checked for Host, Origin and the bearer token; /mcp
// serves MCP Streamable HTTP.
import type { Server } from "bun";
import { fieldTypes } from "../app/api/json-schema.ts";
import { errorBody, errorStatus } from "../app/api/error-body.ts";
import type { MemoryApi } from "../app/api/memory-api.ts";
import { HEALTH_PATH, labelOf, MCP_PATH, OPENAPI_PATH, pathParams, ROUTES, type Route } from "../app/api/routes.ts";
import { ApiInputError, parseInput } from "../app/api/schemas.ts";
import { BodyShapeError, BodyTooLargeError, queryInput, readBodyBytes, readJsonBody, utf8Body } from "./body.ts";
import { refusal } from "./guard.ts";
import { openApiDocument } from "./openapi.ts";

export interface HttpServerOptions {
  api: MemoryApi;
  /** 0 picks a free port. */
  port: number;
  token: string;
  maxBodyBytes: number;
  version: string;
  /** Serves /mcp (MCP Streamable HTTP) once the request passed the checks. */
  mcp?: (req: Request) => Promise<Response>;
  /** Called with each failed request's status and one line (never the token, never a body). */
  onError?: (status: number, route: string, message: string) => void;
  /** Applied to every error message before it leaves the process (secrets redacted). */
  scrub?: (text: string) => string;
  /** Seconds a connection may idle before a request on it passed the checks (default 10, Bun's). */
  idleTimeoutSeconds?: number;
}

export interface HttpServer {
  url: string;
  port: number;
  /**
   * Stop listening. The requests under way get `graceMs` to finish and be answered (default 0: cut off at once);
   * those still running then are cut off, so their clients get a connection error, never an answer.
   */
  stop(graceMs?: number): Promise<void>;
}

const json = (value: unknown, status = 200) =>
  new Response(JSON.stringify(value), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
  });

const CODES: Record<number, string> = {
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
};

/**
 * A 200 JSON answer sent as its pieces come, read as the client takes them. A failure midway cuts the connection
 * (the client's JSON ends early), as the status was already sent.
 */
function jsonStream(pieces: AsyncIterable<string>, onError: (err: unknown) => void): Response {
  const it = pieces[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await it.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      } catch (err) {
        onError(err);
        controller.error(err);
      }
    },
    async cancel() {
      await it.return?.();
    },
  });
  return new Response(body, {
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
  });
}

const refused = (status: number, message: string, headers: Record<string, string> = {}) => {
  const r = json({ error: { code: CODES[status] ?? "Forbidden", message, status } }, status);
  for (const [k, v] of Object.entries(headers)) r.headers.set(k, v);
  return r;
};

/** Methods a route may be asked with; those it does not serve get 405 with Allow. */
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

type Handler = (req: Request & { params?: Record<string, string> }, server?: Server<undefined>) => Promise<Response>;

export function startHttpServer(o: HttpServerOptions): HttpServer {
  let port = o.port;
  const scrub = (text: string) => (o.scrub ? o.scrub(text) : text).replaceAll(o.token, "[token]");
  const guarded =
    (handler: Handler, needsToken = true): Handler =>
    async (req, server) => {
      const no = refusal(req, port, o.token, needsToken);
      if (no) return refused(no.status, no.message);
      // Bun closes a connection idle for 10 s, and a call waiting for the writer lock or a model, an /mcp answer not
      // sent yet, or a client reading a long history slowly is idle: a request with the token has no limit (the
      // connection keeps it, so /v1/health, asked without one, does not lift it).
      if (needsToken) server?.timeout(req, 0);
      return handler(req);
    };

  const failed = (err: unknown, route: string) => {
    const status = err instanceof BodyTooLargeError ? 413 : errorStatus(err);
    const body = errorBody(err, status);
    body.error.message = scrub(body.error.message);
    o.onError?.(status, route, body.error.message);
    return json(body, status);
  };

  /** `fixed`: the path params of a literal path served by this route (see paramsOf below). */
  const operation = (r: Route, fixed?: Record<string, string>): Handler => {
    const types = fieldTypes(r.input);
    return async (req) => {
      try {
        const url = new URL(req.url);
        const input: Record<string, unknown> =
          r.method === "POST"
            ? await postInput(req, url, r, o.maxBodyBytes)
            : await queryOnly(req, url, r, types, o.maxBodyBytes);
        // Bun hands path params over already decoded: decoding again would misread a "%" in them.
        const inPath = Object.fromEntries(pathParams(r.path).map((p) => [p, fixed?.[p] ?? req.params?.[p] ?? ""]));
        // The same field in the body or query string naming another one (a session) would go unread.
        const clashes = Object.keys(inPath).filter((p) => p in input && input[p] !== inPath[p]);
        if (clashes.length > 0)
          throw new ApiInputError({
            what: labelOf(r.name),
            issues: clashes.map((path) => ({
              path,
              problem: `the path names ${JSON.stringify(inPath[path])} and the ${r.method === "POST" ? "body" : "query string"} ${JSON.stringify(input[path])}: give it in the path only`,
            })),
          });
        Object.assign(input, inPath);
        const value = parseInput(r.input, input, labelOf(r.name));
        const pieces = await r.stream?.(o.api, value);
        if (pieces)
          return jsonStream(pieces, (err) =>
            o.onError?.(errorStatus(err), r.name, scrub(errorBody(err).error.message)),
          );
        return json(await r.call(o.api, value));
      } catch (err) {
        return failed(err, r.name);
      }
    };
  };

  const routes: Record<string, Record<string, Handler>> = {};
  for (const r of ROUTES) (routes[r.path] ??= {})[r.method] = guarded(operation(r));
  routes[HEALTH_PATH] = { GET: guarded(async () => json({ ok: true, name: "memvoy", version: o.version }), false) };
  let doc: Record<string, unknown> | undefined;
  routes[OPENAPI_PATH] = { GET: guarded(async () => json((doc ??= openApiDocument(o.version, urlOf(port))))) };
  if (o.mcp) {
    const mcp = guarded(async (req) => {
      // The body is read here, under [http] max_body_bytes, so that /mcp answers 413 (and 400 for bytes that are not
      // UTF-8) as every route does.
      let body: Uint8Array | undefined;
      try {
        if (req.method === "POST") body = utf8Body(await readBodyBytes(req, o.maxBodyBytes));
      } catch (err) {
        return failed(err, MCP_PATH);
      }
      return o.mcp!(body === undefined ? req : new Request(req, { body }));
    });
    // The server is stateless (no session to stream to with GET or to end with DELETE): POST is all it serves.
    routes[MCP_PATH] = { POST: mcp };
  }

  // Bun routes a literal path (/v1/messages/get) by itself even for the methods only a route with a param of the same
  // shape serves (DELETE /v1/messages/:id): those go to that route, so that a message whose id is "get" (import jsonl
  // keeps ids) can still be removed, and GET /v1/errors/search answers as for any other unknown error id.
  for (const [path, served] of Object.entries(routes)) {
    if (path.includes(":")) continue;
    for (const r of ROUTES) {
      const params = paramsOf(r.path, path);
      if (params && !served[r.method]) served[r.method] = guarded(operation(r, params));
    }
  }

  for (const [path, served] of Object.entries(routes)) {
    const allow = Object.keys(served).join(", ");
    const wrongMethod: Handler = async (req) =>
      refused(405, `${req.method} is not allowed on ${new URL(req.url).pathname}; use ${allow}`, { allow });
    for (const m of METHODS) served[m] ??= guarded(wrongMethod, path !== HEALTH_PATH);
  }

  const options = {
    // Our own limit answers 413 with a JSON body; Bun's is only a backstop.
    maxRequestBodySize: Math.max(o.maxBodyBytes + 1024 * 1024, 128 * 1024 * 1024),
    idleTimeout: o.idleTimeoutSeconds ?? 10,
    routes: routes as never,
    fetch: guarded(async (req) => refused(404, `no route ${req.method} ${new URL(req.url).pathname}`)) as never,
    error: (err: Error) => {
      const body = errorBody(err, 500);
      body.error.message = scrub(body.error.message);
      return json(body, 500);
    },
  };
  const server: Server<undefined> = Bun.serve({ ...options, hostname: "127.0.0.1", port: o.port });
  port = server.port!;
  let v6: Server<undefined> | undefined;
  try {
    v6 = Bun.serve({ ...options, hostname: "::1", port });
  } catch {
    // No IPv6 loopback here, or its port is taken: 127.0.0.1 serves alone.
  }
  return {
    url: urlOf(port),
    port,
    stop: async (graceMs = 0) => {
      const servers = [server, v6].filter((s) => s !== undefined);
      if (graceMs > 0) {
        // stop(false) resolves once the requests under way are answered (idle connections are closed at once).
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          Promise.all(servers.map((s) => s.stop(false))),
          new Promise((r) => (timer = setTimeout(r, graceMs))),
        ]);
        clearTimeout(timer);
      }
      await Promise.all(servers.map((s) => s.stop(true)));
    },
  };
}

const urlOf = (port: number) => `http://127.0.0.1:${port}`;

/** The params of the literal `path` when the route path `pattern` (/v1/messages/:id) matches it, else undefined. */
function paramsOf(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split("/");
  const got = path.split("/");
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, w] of want.entries()) {
    if (w.startsWith(":")) params[w.slice(1)] = got[i]!;
    else if (w !== got[i]) return undefined;
  }
  return Object.keys(params).length > 0 ? params : undefined;
}

/**
 * The input of a GET or DELETE, from its query string alone: a body is refused rather than left unread (a DELETE of a
 * message with {"dropSummary": true} in its body would keep the summary the message may be quoted in).
 */
async function queryOnly(
  req: Request,
  url: URL,
  r: Route,
  types: Record<string, string>,
  maxBytes: number,
): Promise<Record<string, unknown>> {
  const text = req.body ? new TextDecoder().decode(await readBodyBytes(req, maxBytes)).trim() : "";
  // A field given twice (?tool=git&tool=npm, as clients send a list) is refused: one value would go unread.
  const keys = [...url.searchParams.keys()];
  const repeated = [...new Set(keys.filter((k, i) => keys.indexOf(k) !== i))];
  if (repeated.length > 0)
    throw new ApiInputError({
      what: labelOf(r.name),
      issues: repeated.map((path) => ({ path, problem: "given more than once: give it once (it takes one value)" })),
    });
  // Bun hands a GET over without its body (req.body is null): its headers still say one was sent.
  const unread =
    !req.body && (Number(req.headers.get("content-length") ?? 0) > 0 || req.headers.has("transfer-encoding"));
  if (text === "" && !unread) return queryInput(url, types);
  let fields: string[] = [];
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body === "object" && body !== null && !Array.isArray(body)) fields = Object.keys(body);
  } catch {
    // not JSON: the body is refused as a whole
  }
  throw new ApiInputError({
    what: labelOf(r.name),
    issues:
      fields.length > 0
        ? fields.map((path) => ({ path, problem: "give it in the query string, not in the body" }))
        : [{ problem: `${r.method} takes no body: give its fields in the query string` }],
  });
}

async function postInput(req: Request, url: URL, r: Route, maxBytes: number): Promise<Record<string, unknown>> {
  // A POST reads its fields from the body only: reset?all=true, left unread, would keep the summary without a word.
  const inQuery = [...new Set(url.searchParams.keys())];
  if (inQuery.length > 0)
    throw new ApiInputError({
      what: labelOf(r.name),
      issues: inQuery.map((path) => ({ path, problem: "give it in the JSON body, not in the query string" })),
    });
  const body = await readJsonBody(req, maxBytes);
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new BodyShapeError({ problem: "not-object" });
  return { ...(body as Record<string, unknown>) };
}
