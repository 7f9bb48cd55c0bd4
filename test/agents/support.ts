// Shared by the agent-surface tests: a MemoryApi served over HTTP in this process, temp homes, tokens.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { LocalMemoryApi } from "../../src/app/api/local-memory-api.ts";
import { openMemory as openHome } from "../../src/app/open-memory.ts";
import { startHttpServer, type HttpServer } from "../../src/http/http-server.ts";
import { connectMemory } from "../../src/lib.ts";
import type { MemoryApi } from "../../src/lib.ts";

export const repoRoot = resolve(import.meta.dir, "../..");
export const entry = join(repoRoot, "src/index.ts");
const dirs: string[] = [];

export function tempDir(prefix = "memvoy-agents-"): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

export function removeTempDirs(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

export const TOKEN = "test-token-0123456789abcdefghijklmnopqrstuvwxyz";

export interface Served {
  home: string;
  server: HttpServer;
  local: LocalMemoryApi;
  /** fetch a path of the server with the token (unless headers say otherwise). */
  fetch(path: string, init?: RequestInit & { token?: string | null }): Promise<Response>;
  close(): Promise<void>;
}

/** A home served by the HTTP API in this process (port 0), as the daemon serves it. */
export function serveHome(o: { maxBodyBytes?: number; mcp?: boolean; idleTimeoutSeconds?: number } = {}): Served {
  const home = tempDir();
  const local = new LocalMemoryApi(openHome({ home, env: {} }));
  let mcp: ((req: Request) => Promise<Response>) | undefined;
  const maxBodyBytes = o.maxBodyBytes ?? 8 * 1024 * 1024;
  const server = startHttpServer({
    api: local,
    port: 0,
    token: TOKEN,
    maxBodyBytes,
    idleTimeoutSeconds: o.idleTimeoutSeconds,
    version: "test",
    mcp: o.mcp
      ? async (req) => {
          mcp ??= (await import("../../src/mcp/mcp-http.ts")).mcpHttpHandler(local, "test", maxBodyBytes);
          return mcp(req);
        }
      : undefined,
  });
  return {
    home,
    server,
    local,
    fetch(path, init = {}) {
      const headers = new Headers(init.headers);
      if (init.token !== null && !headers.has("authorization"))
        headers.set("authorization", `Bearer ${init.token ?? TOKEN}`);
      return fetch(server.url + path, { ...init, headers });
    },
    async close() {
      await server.stop();
      await local.close();
    },
  };
}

export function connectTo(s: Served): MemoryApi {
  return connectMemory({ url: s.server.url, token: TOKEN });
}
