// `memvoy mcp --print-config CLIENT`: the exact snippet that registers memvoy's stdio MCP server with an
// agent (Claude Code, Codex, opencode, Gemini CLI), naming this memvoy executable by its absolute path.
import { namedError } from "../shared/errors.ts";

export const CLIENTS = ["claude-code", "codex", "opencode", "gemini"] as const;
export type Client = (typeof CLIENTS)[number];

/** `--print-config` named a client this knows no snippet for. */
export const UnknownClientError = namedError<{ client: string }>(
  "UnknownClientError",
  "usage",
  (d) => `mcp --print-config: unknown client ${JSON.stringify(d.client)}; use one of ${CLIENTS.join(", ")}`,
);
export type UnknownClientError = InstanceType<typeof UnknownClientError>;

export interface ClientConfig {
  /** The snippet, in the client's own format. */
  text: string;
  format: "json" | "toml";
  /** Where it goes (printed on stderr, so that stdout is the snippet alone). */
  where: string;
}

export function isClient(s: string): s is Client {
  return (CLIENTS as readonly string[]).includes(s);
}

/** `command`: the executable and its leading arguments (bun + the entry script when run from source). */
export function clientConfig(client: string, command: readonly string[], home?: string): ClientConfig {
  if (!isClient(client)) throw new UnknownClientError({ client });
  const [exe, ...lead] = command;
  const args = [...lead, "mcp", ...(home ? ["--home", home] : [])];
  const json = (v: unknown) => JSON.stringify(v, null, 2) + "\n";
  switch (client) {
    case "claude-code":
      return {
        format: "json",
        where: "a project's .mcp.json (or: claude mcp add-json memvoy '<the \"memvoy\" object>')",
        text: json({ mcpServers: { memvoy: { type: "stdio", command: exe, args, env: {} } } }),
      };
    case "codex":
      return {
        format: "toml",
        where: "~/.codex/config.toml",
        text: `[mcp_servers.memvoy]\ncommand = ${JSON.stringify(exe)}\nargs = [${args.map((a) => JSON.stringify(a)).join(", ")}]\n`,
      };
    case "opencode":
      return {
        format: "json",
        where: "opencode.json in the project, or ~/.config/opencode/opencode.json",
        text: json({
          $schema: "https://opencode.ai/config.json",
          mcp: { memvoy: { type: "local", command: [exe, ...args], enabled: true } },
        }),
      };
    case "gemini":
      return {
        format: "json",
        where: "~/.gemini/settings.json (or .gemini/settings.json in the project)",
        text: json({ mcpServers: { memvoy: { command: exe, args } } }),
      };
  }
}
