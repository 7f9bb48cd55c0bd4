// MCP Streamable HTTP for the daemon's /mcp route: the SDK's web-standard handler (stateless for 2025-era
// clients). Host, Origin and the bearer token are checked by the HTTP server before this runs.
import { createMcpHandler } from "@modelcontextprotocol/server";
import type { MemoryApi } from "../app/api/memory-api.ts";
import { createMcpServer } from "./mcp-server.ts";
import { withoutNullParams } from "./client-args.ts";

/** `maxBodyBytes`: [http] max_body_bytes (the HTTP server checks it first; the SDK's own default is 4 MiB). */
export function mcpHttpHandler(
  api: MemoryApi,
  version: string,
  maxBodyBytes: number,
): (req: Request) => Promise<Response> {
  const handler = createMcpHandler(() => createMcpServer(api, version), { maxRequestBodySize: maxBodyBytes });
  return async (req) => {
    if (req.method !== "POST") return handler.fetch(req);
    // Parsed here, once, so that a client's "params": null is read as no params (see withoutNullParams).
    const text = await req.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return handler.fetch(new Request(req, { body: text }));
    }
    return handler.fetch(req, { parsedBody: withoutNullParams(body) });
  };
}
