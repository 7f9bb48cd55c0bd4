// memvoy mcp [--home DIR] [--print-config CLIENT]: the MCP server over stdio, or a client's set-up snippet.
// Only what the stdio server needs before its client's start-up is answered is imported statically.
import { resolveHome } from "../../config/home.ts";
import { lazyMemoryApi } from "../../app/api/lazy-memory-api.ts";
import { clientConfig, CLIENTS } from "../../mcp/client-config.ts";
import { bool, expectPositionals, parseArgs, str } from "../args.ts";
import { CommandUsageError } from "../usage-errors.ts";
import { printUsage } from "../run-command.ts";
import { refuseClosedStdout, writeOut } from "../../shared/stdout.ts";
import pkg from "../../../package.json" with { type: "json" };

export const usage = `
Usage: memvoy mcp [--home DIR]
       memvoy mcp --print-config ${CLIENTS.join("|")} [--home DIR] [--json]

Serve memvoy's MCP tools over stdio (newline-delimited JSON-RPC on stdin and stdout)
for an agent that starts it: chat_history (search, recent, around, get, sessions),
add_messages, session_context, error_memory (lookup, record) and summary. Each
agent may start its own server on the same home: writes never get lost. While the
daemon runs for the home (same memvoy, same config), semantic and hybrid searches
and error memory are asked of it, so that each server need not load the vectors.

  --print-config CLIENT   print the config snippet that registers this server with
                          claude-code, codex, opencode or gemini (where it goes: on stderr);
                          with --json: {"client", "where", "config"}
`;

export async function run(argv: readonly string[]): Promise<number> {
  const p = parseArgs(argv, { "print-config": { type: "string" } }, "mcp");
  if (bool(p, "help")) return printUsage(usage, bool(p, "json"));
  expectPositionals(p, "mcp", []);
  const home = str(p, "home");
  const client = str(p, "print-config");
  if (client !== undefined) {
    const { launchedCommand } = await import("../../app/invocation.ts");
    // A home named here (--home, $MEMVOY_HOME, $XDG_CONFIG_HOME) goes into the snippet: the agent starts the server
    // with its own environment, which may lack the variables, and would open the default home.
    const named = home !== undefined || !!process.env.MEMVOY_HOME || !!process.env.XDG_CONFIG_HOME;
    const c = clientConfig(client, launchedCommand(), named ? resolveHome(home, process.env) : undefined);
    if (bool(p, "json")) {
      writeOut(JSON.stringify({ client, where: c.where, config: c.text }, null, 2) + "\n");
      return 0;
    }
    process.stderr.write(`# for ${client}: put this in ${c.where}\n`);
    writeOut(c.text);
    return 0;
  }
  // A stdout closed from the start (memvoy mcp >&-) would take every answer into nothing while the calls are
  // carried out: refused before a line is read.
  refuseClosedStdout();
  if (process.stdin.isTTY)
    throw new CommandUsageError({ problem: "stdin-is-terminal", command: "mcp", startedBy: "an MCP client" });
  // The home opens on the first tool call, not before the agent's start-up is answered. Embedding after a
  // write goes to a detached drain; a semantic search or an error-memory call goes to the daemon running for the
  // home, when one does: this server maps LanceDB only for such a call with no daemon to answer it.
  const api = lazyMemoryApi(async () => {
    const [{ LocalMemoryApi, inProcessVectorCalls }, { openMemory }, shared, { daemonFirst }, paths, configs] =
      await Promise.all([
        import("../../app/api/local-memory-api.ts"),
        import("../../app/open-memory.ts"),
        import("../../app/shared/open-shared.ts"),
        import("../ask-daemon.ts"),
        import("../../config/home.ts"),
        import("../../config/load-cached.ts"),
      ]);
    // With an archive URL configured, the tools run on the shared memory (one client: a small pool).
    if (shared.sharedArchiveUrl({ home }) !== undefined)
      return new LocalMemoryApi(await shared.openSharedHome({ home, connections: 2 }));
    const local = openMemory({ home, drain: "detached" });
    const files = paths.homePaths(paths.resolveHome(home, process.env));
    const config = configs.loadConfigCached(files.config, process.env);
    return new LocalMemoryApi(local, daemonFirst(files, config, inProcessVectorCalls(local)));
  });
  const { runMcpStdio } = await import("../../mcp/mcp-stdio.ts");
  return runMcpStdio(api, pkg.version);
}
