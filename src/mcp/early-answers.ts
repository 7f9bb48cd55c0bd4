// The MCP SDK's own answers to `initialize` (per protocol revision) and `tools/list`, recorded by running
// the real stdio server. Imported as a Bun macro, so the compiled binary carries them as literals and can
// answer an agent's start-up before it loads the SDK.
import { PassThrough } from "node:stream";
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import type { MemoryApi } from "../app/api/memory-api.ts";
import { createMcpServer } from "./mcp-server.ts";
import pkg from "../../package.json" with { type: "json" };

export interface EarlyAnswers {
  /** The memvoy version the answers name (serverInfo.version). */
  version: string;
  /** Per requested protocol revision: the `initialize` result, and the `tools/list` result on that revision. */
  byRevision: Record<string, { initialize: unknown; toolsList: unknown }>;
}

export async function earlyAnswers(): Promise<EarlyAnswers> {
  const byRevision: EarlyAnswers["byRevision"] = {};
  for (const revision of SUPPORTED_PROTOCOL_VERSIONS) {
    const [initialize, toolsList] = await recordSession([
      { id: 1, method: "initialize", params: initializeParams(revision) },
      { method: "notifications/initialized" },
      { id: 2, method: "tools/list" },
    ]);
    byRevision[revision] = { initialize, toolsList };
  }
  return { version: pkg.version, byRevision };
}

export const initializeParams = (protocolVersion: string) => ({
  protocolVersion,
  capabilities: {},
  clientInfo: { name: "memvoy-build", version: pkg.version },
});

/** Run one stdio session of the real server over `messages`; the results of the requests, in order. */
export async function recordSession(messages: Record<string, unknown>[]): Promise<unknown[]> {
  const input = new PassThrough();
  const output = new PassThrough();
  const handle = serveStdio(() => createMcpServer({} as MemoryApi, pkg.version), {
    transport: new StdioServerTransport(input, output),
  });
  const wanted = messages.filter((m) => m.id !== undefined).length;
  const results: unknown[] = [];
  const done = new Promise<void>((resolve, reject) => {
    let buffer = "";
    output.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
        const msg = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        if (msg.error) reject(new Error(`the MCP server refused a start-up message: ${msg.error.message}`));
        if (msg.id !== undefined) results[Number(msg.id) - 1] = msg.result;
        if (results.filter(Boolean).length === wanted) resolve();
      }
    });
  });
  for (const m of messages) input.write(`${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`);
  await done;
  await handle.close();
  return results;
}
