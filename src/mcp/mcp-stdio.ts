// `memvoy mcp` over stdio: newline-delimited JSON-RPC on stdin/stdout, nothing else on stdout; the home is
// opened in this process, so several clients may each run their own server on one home (writes take the
// home's cross-process writer lock).
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import type { MemoryApi } from "../app/api/memory-api.ts";
import { createMcpServer } from "./mcp-server.ts";

export async function runMcpStdio(api: MemoryApi, version: string): Promise<number> {
  const done = Promise.withResolvers<number>();
  const handle = serveStdio(() => createMcpServer(api, version), {
    onerror: (err) => process.stderr.write(`memvoy mcp: ${err.message.split("\n")[0]}\n`),
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
