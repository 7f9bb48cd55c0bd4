// MCP Streamable HTTP for the daemon's /mcp route: the SDK's web-standard handler (stateless for 2025-era
// clients). Host, Origin and the bearer token are checked by the HTTP server before this runs.
import { createMcpHandler } from "@modelcontextprotocol/server";
import type { MemoryApi } from "../app/api/memory-api.ts";
import { createMcpServer } from "./mcp-server.ts";

/** `maxBodyBytes`: [http] max_body_bytes (the HTTP server checks it first; the SDK's own default is 4 MiB). */
export function mcpHttpHandler(
  api: MemoryApi,
  version: string,
  maxBodyBytes: number,
): (req: Request) => Promise<Response> {
  const handler = createMcpHandler(() => createMcpServer(api, version), { maxRequestBodySize: maxBodyBytes });
  return (req) => handler.fetch(req);
}
