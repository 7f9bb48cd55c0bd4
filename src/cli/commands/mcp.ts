// memvoy mcp [--home DIR] [--print-config CLIENT]: the MCP server over stdio, or a client's set-up snippet.
import { resolve } from "node:path";
import { selfCommand } from "../../app/background-drain.ts";
import { LocalMemoryApi } from "../../app/api/local-memory-api.ts";
import { openMemory } from "../../app/open-memory.ts";
import { clientConfig, CLIENTS } from "../../mcp/client-config.ts";
import { str } from "../args.ts";
import { runCommand, type CommandSpec } from "../command.ts";
import { CommandUsageError } from "../usage-errors.ts";
import pkg from "../../../package.json" with { type: "json" };

export const usage = `
Usage: memvoy mcp [--home DIR]
       memvoy mcp --print-config ${CLIENTS.join("|")} [--home DIR]

Serve memvoy's MCP tools over stdio (newline-delimited JSON-RPC on stdin and stdout)
for an agent that starts it: chat_history (search, recent, around, get, sessions),
add_messages, session_context, error_memory (lookup, record) and summary. Each
agent may start its own server on the same home: writes never get lost.

  --print-config CLIENT   print the config snippet that registers this server with
                          claude-code, codex, opencode or gemini (where it goes: on stderr)
`;

const spec: CommandSpec = { name: "mcp", usage, flags: { "print-config": { type: "string" } }, positionals: [] };

export function run(argv: readonly string[]): Promise<number> {
  return runCommand(spec, argv, async (p) => {
    const home = str(p, "home");
    const client = str(p, "print-config");
    if (client !== undefined) {
      const c = clientConfig(client, selfCommand(), home ? resolve(home) : undefined);
      process.stderr.write(`# for ${client}: put this in ${c.where}\n`);
      process.stdout.write(c.text);
      return 0;
    }
    if (process.stdin.isTTY)
      throw new CommandUsageError({ problem: "stdin-is-terminal", command: "mcp", startedBy: "an MCP client" });
    // Embedding after a write goes to a detached drain: this server maps LanceDB only for a semantic call.
    const api = new LocalMemoryApi(openMemory({ home, drain: "detached" }));
    const { runMcpStdio } = await import("../../mcp/mcp-stdio.ts");
    return runMcpStdio(api, pkg.version);
  });
}
