// `memvoy mcp` over stdio: newline-delimited JSON-RPC on stdin/stdout, nothing else on stdout; the home is
// opened in this process, so several clients may each run their own server on one home (writes take the
// home's cross-process writer lock).
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { MemoryApi } from "../app/api/memory-api.ts";
import { createMcpServer } from "./mcp-server.ts";
import { describeError } from "../shared/describe-error.ts";

/**
 * The longest JSON-RPC line read: above the SDK's 10 MiB default, so that a message over
 * limits.max_message_bytes is answered with an error instead of closing the connection.
 */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

export async function runMcpStdio(api: MemoryApi, version: string): Promise<number> {
  const done = Promise.withResolvers<number>();
  const transport = new StdioServerTransport(process.stdin, process.stdout, { maxBufferSize: MAX_LINE_BYTES });
  const handle = serveStdio(() => createMcpServer(api, version), {
    transport,
    onerror: (err) => {
      process.stderr.write(`memvoy mcp: ${describeError(err)}\n`);
      // The transport gives up on a line over MAX_LINE_BYTES: end rather than hang.
      if (/ReadBuffer exceeded/.test(err.message)) void stop();
    },
  });
  const stop = async () => {
    await handle.close().catch(() => {});
    done.resolve(0);
  };
  process.stdin.once("end", () => void stop());
  process.stdin.once("close", () => void stop());
  process.once("SIGTERM", () => void stop());
  process.once("SIGINT", () => void stop());
  const code = await done.promise;
  await api.close();
  return code;
}
