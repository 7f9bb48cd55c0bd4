// The daemon's HTTP API: pick the port ([http] port, else derived from the home path, else a free one when
// that is taken), start the server, publish URL and token in <home>/http.json (0600).
import type { Config } from "../config/schema.ts";
import { LocalMemoryApi, type MemoryHome, type VectorCalls } from "../app/api/local-memory-api.ts";
import { errorMessage } from "../shared/errors.ts";
import { randomBytes } from "node:crypto";
import { programStamp } from "../config/program-stamp.ts";
import { derivedPort, httpFileHolds, removeHttpFile, writeHttpFile } from "./http-file.ts";
import { pathIdentity } from "../shared/path-identity.ts";
import { startHttpServer, type HttpServer } from "./http-server.ts";

export interface DaemonHttp {
  url: string;
  /** Stop serving; the requests under way get `graceMs` to be answered (see HttpServer.stop). */
  stop(graceMs?: number): Promise<void>;
}

export interface DaemonHttpLog {
  info(event: string, fields: Record<string, string | number>): void;
  warn(event: string, fields: Record<string, string | number>): void;
  scrub(text: string): string;
}

/** `elsewhere`: makes the calls that touch LanceDB in another process (the daemon's worker child). */
export function startDaemonHttp(
  home: MemoryHome & { readonly home: string },
  config: Config,
  files: { readonly httpFile: string; readonly daemonLock: string },
  version: string,
  log: DaemonHttpLog,
  elsewhere?: VectorCalls,
): DaemonHttp {
  const token = randomBytes(32).toString("base64url");
  const api = new LocalMemoryApi(home, elsewhere);
  let mcp: ((req: Request) => Promise<Response>) | undefined;
  const options = {
    api,
    token,
    maxBodyBytes: config.http.max_body_bytes,
    version,
    scrub: (text: string) => log.scrub(text),
    // The MCP SDK loads on the first /mcp request only.
    mcp: async (req: Request) => {
      mcp ??= (await import("../mcp/mcp-http.ts")).mcpHttpHandler(api, version, config.http.max_body_bytes);
      return mcp(req);
    },
    onError: (status: number, route: string, message: string) => {
      if (status >= 500) log.warn("http.error", { status, route, error: message });
    },
  };
  const configured = config.http.port;
  let server: HttpServer;
  try {
    server = startHttpServer({ ...options, port: configured ?? derivedPort(home.home) });
  } catch (err) {
    if (configured !== undefined) throw err;
    log.warn("http.port_busy", {
      port: derivedPort(home.home),
      error: errorMessage(err),
      note: "serving on a free port instead",
    });
    server = startHttpServer({ ...options, port: 0 });
  }
  const httpFile = files.httpFile;
  const lock = pathIdentity(files.daemonLock);
  const published = {
    url: server.url,
    port: server.port,
    pid: process.pid,
    token,
    startedAt: new Date().toISOString(),
    stamp: programStamp(config),
    lock,
  };
  try {
    writeHttpFile(httpFile, published);
  } catch (err) {
    // Unpublished, the API cannot be used (no one has its token): it must not go on holding its port.
    void server.stop();
    throw err;
  }
  // http.json removed or overwritten while the daemon runs (a clean-up, a restored backup holding an old token):
  // clients and commands could no longer find it, so it is written again, in this home only (its lock in place).
  // Its content is compared, not its inode, size and time read after a write: another writer between the rename
  // and that reading (or keeping the size and time) would have left its file taken for the daemon's own for good.
  const republish = setInterval(() => {
    if (lock === undefined || httpFileHolds(httpFile, published) || pathIdentity(files.daemonLock) !== lock) return;
    try {
      writeHttpFile(httpFile, published);
      log.info("http.republished", { file: httpFile });
    } catch (err) {
      log.warn("http.republish_failed", { error: errorMessage(err) });
    }
  }, REPUBLISH_CHECK_MS);
  republish.unref();
  log.info("http.start", { url: server.url });
  return {
    url: server.url,
    async stop(graceMs) {
      clearInterval(republish);
      removeHttpFile(httpFile);
      await server.stop(graceMs);
    },
  };
}

/** How often the daemon looks whether its http.json is still the one it wrote. */
const REPUBLISH_CHECK_MS = 1_000;
