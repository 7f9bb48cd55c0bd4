// `memvoy mcp --print-config CLIENT`: golden snippets that parse in each client's format and name an
// executable that exists (from source: bun and the entry script; compiled: the binary itself).
import { afterAll, expect, test } from "bun:test";
import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { entry, removeTempDirs, tempDir } from "./support.ts";
import { processOutput } from "../fixture/process-output.ts";

afterAll(removeTempDirs);

const CLIENTS = { "claude-code": "json", codex: "toml", opencode: "json", gemini: "json" } as const;

async function printConfig(
  client: string,
  home = "/HOME",
  userHome = "/tmp",
): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn(["bun", entry, "mcp", "--print-config", client, "--home", home], {
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH!, HOME: userHome },
  });
  return processOutput(proc);
}

/** The command array a client would run. */
function commandOf(client: string, parsed: any): string[] {
  if (client === "codex") return [parsed.mcp_servers.memvoy.command, ...parsed.mcp_servers.memvoy.args];
  if (client === "opencode") return parsed.mcp.memvoy.command;
  return [parsed.mcpServers.memvoy.command, ...parsed.mcpServers.memvoy.args];
}

for (const [client, format] of Object.entries(CLIENTS)) {
  test(`${client}: the snippet matches its golden file, parses as ${format} and names an executable that exists`, async () => {
    const r = await printConfig(client);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`for ${client}`);
    const golden = readFileSync(join(import.meta.dir, "golden", `${client}.${format}`), "utf8");
    expect(r.stdout.replaceAll(process.execPath, "<EXE>").replaceAll(entry, "<ENTRY>")).toBe(golden);
    const parsed = format === "json" ? JSON.parse(r.stdout) : parseToml(r.stdout);
    const cmd = commandOf(client, parsed);
    expect(existsSync(cmd[0]!)).toBe(true);
    accessSync(cmd[0]!, constants.X_OK);
    expect(cmd.slice(-3)).toEqual(["mcp", "--home", "/HOME"]);
    expect(existsSync(cmd[1]!)).toBe(true); // from source: the entry script
  });
}

test("--print-config with --json: one JSON document with the client, where the snippet goes and the snippet", async () => {
  const text = await printConfig("codex");
  const proc = Bun.spawn(["bun", entry, "mcp", "--print-config", "codex", "--home", "/HOME", "--json"], {
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH!, HOME: "/tmp" },
  });
  const r = await processOutput(proc);
  expect(r).toMatchObject({ code: 0, stderr: "" });
  const doc = JSON.parse(r.stdout);
  expect(doc).toEqual({ client: "codex", where: expect.any(String), config: text.stdout });
  expect(text.stderr).toContain(doc.where);
});

test("an unknown client is a usage error naming the choices", async () => {
  const r = await printConfig("vim");
  expect(r.code).toBe(2);
  expect(r.stderr.trim()).toBe(
    'memvoy: mcp --print-config: unknown client "vim"; use one of claude-code, codex, opencode, gemini',
  );
  expect(r.stdout).toBe("");
});

test("--home ~/DIR, as an agent's config passes it (no shell), is DIR in the user's home, not a folder named ~", async () => {
  const home = tempDir("memvoy-user-home-");
  const cwd = tempDir("memvoy-project-");
  const printed = await printConfig("gemini", "~/agent-memory", home);
  expect(printed.code).toBe(0);
  expect(JSON.parse(printed.stdout).mcpServers.memvoy.args.slice(-3)).toEqual([
    "mcp",
    "--home",
    join(home, "agent-memory"),
  ]);
  const lines = [
    {
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "a", version: "1" } },
    },
    { method: "notifications/initialized" },
    {
      id: 2,
      method: "tools/call",
      params: { name: "add_messages", arguments: { session: "s", messages: [{ role: "user", content: "hi" }] } },
    },
  ].map((m) => `${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`);
  const proc = Bun.spawn(["bun", entry, "mcp", "--home", "~/agent-memory"], {
    stdin: new TextEncoder().encode(lines.join("")),
    stdout: "pipe",
    stderr: "pipe",
    cwd,
    env: { PATH: process.env.PATH!, HOME: home },
  });
  const r = await processOutput(proc);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('"ids":["');
  expect(existsSync(join(home, "agent-memory", "sessions", "s", "history.json"))).toBe(true);
  expect(existsSync(join(cwd, "~"))).toBe(false);
});

test("a home named by $MEMVOY_HOME or $XDG_CONFIG_HOME goes into the snippet: the agent's own environment may lack it", async () => {
  const userHome = tempDir("memvoy-user-home-");
  const run = async (env: Record<string, string>) => {
    const proc = Bun.spawn(["bun", entry, "mcp", "--print-config", "gemini"], {
      stdout: "pipe",
      stderr: "pipe",
      env: { PATH: process.env.PATH!, HOME: userHome, ...env },
    });
    const r = await processOutput(proc);
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout).mcpServers.memvoy.args as string[];
  };
  expect((await run({ MEMVOY_HOME: "~/team-memory" })).slice(-3)).toEqual([
    "mcp",
    "--home",
    join(userHome, "team-memory"),
  ]);
  expect((await run({ XDG_CONFIG_HOME: "/srv/conf" })).slice(-3)).toEqual(["mcp", "--home", "/srv/conf/memvoy"]);
  // The default home is left to the agent's environment, as before.
  expect((await run({})).at(-1)).toBe("mcp");
});
