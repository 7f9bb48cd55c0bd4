// A closed stdout (`memvoy sessions | head -1`) ends the command quietly: no stack trace, exit 0. A stdout closed
// before memvoy starts (`memvoy sessions >&-`) is one line on stderr with exit 1, as a stdout that takes no write.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cli, removeTempHomes, repoRoot, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);
let home: string;
beforeAll(async () => {
  home = tempHome();
  expect((await cli(["demo", "--home", home])).code).toBe(0);
}, 60_000);

/** Run memvoy with its stdout a pipe whose reader has already gone; returns its exit code and stderr. */
async function intoClosedPipe(args: string[]): Promise<{ code: number; stderr: string }> {
  const dir = tempHome("memvoy-epipe-");
  const err = join(dir, "stderr");
  const quoted = args.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  const script = `bun '${join(repoRoot, "src/index.ts")}' ${quoted} 2>'${err}' | exit 0; echo \${PIPESTATUS[0]}`;
  const proc = Bun.spawn(["bash", "-c", script], {
    env: { PATH: process.env.PATH!, HOME: dir, TZ: "UTC" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  return { code: Number(out.trim()), stderr: existsSync(err) ? readFileSync(err, "utf8") : "" };
}

const commands = [
  ["sessions"],
  ["history", "deploy-pipeline", "--all"],
  ["search", "deploy"],
  ["summary", "deploy-pipeline"],
  ["errors", "list"],
  ["context", "deploy-pipeline", "--input", "what next?"],
  ["export", "--all"],
  ["export", "deploy-pipeline", "--format", "md"],
];

test.each(commands)(
  "%s ... into a closed pipe ends quietly with exit 0",
  async (...args) => {
    const r = await intoClosedPipe(["--home", home, ...(args as string[])]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  },
  60_000,
);

/** Run memvoy with fd 1 closed from its start (`>&-`); returns its exit code and stderr. */
async function withStdoutClosed(args: string[], stdin?: string): Promise<{ code: number; stderr: string }> {
  const quoted = args.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  const proc = Bun.spawn(["bash", "-c", `exec bun '${join(repoRoot, "src/index.ts")}' ${quoted} >&-`], {
    env: { PATH: process.env.PATH!, HOME: tempHome("memvoy-ebadf-"), TZ: "UTC" },
    stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const stderr = await new Response(proc.stderr).text();
  return { code: await proc.exited, stderr };
}

test.skipIf(process.platform !== "linux")(
  "a stdout closed from the start (>&-) is one line on stderr with exit 1, not a silent exit 0",
  async () => {
    const line = "memvoy: could not write the output to stdout (EBADF: stdout is closed)\n";
    for (const args of [
      ["sessions"],
      ["export", "--all", "--format", "md"],
      ["--version"],
      ["search", "deploy", "--json"],
    ]) {
      const r = await withStdoutClosed(["--home", home, ...args]);
      expect([args, r.code, r.stderr]).toEqual([args, 1, line]);
    }
    // Redirected to /dev/null on purpose, stdout takes the output as before.
    const proc = Bun.spawn(["bun", join(repoRoot, "src/index.ts"), "--home", home, "sessions"], {
      env: { PATH: process.env.PATH!, HOME: tempHome("memvoy-null-"), TZ: "UTC" },
      stdout: Bun.file("/dev/null"),
      stderr: "pipe",
    });
    expect([await proc.exited, await new Response(proc.stderr).text()]).toEqual([0, ""]);
  },
  60_000,
);

test.skipIf(process.platform !== "linux")(
  "memvoy mcp >&- refuses at start: no request it reads is carried out with its answer going nowhere",
  async () => {
    const other = join(tempHome(), "mcp-home");
    const lines = [
      {
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } },
      },
      { method: "notifications/initialized" },
      {
        id: 2,
        method: "tools/call",
        params: { name: "add_messages", arguments: { session: "s1", messages: [{ role: "user", content: "lost?" }] } },
      },
    ];
    const stdin = lines.map((l) => `${JSON.stringify({ jsonrpc: "2.0", ...l })}\n`).join("");
    const r = await withStdoutClosed(["mcp", "--home", other], stdin);
    expect([r.code, r.stderr]).toEqual([1, "memvoy: could not write the output to stdout (EBADF: stdout is closed)\n"]);
    expect(existsSync(join(other, "sessions", "s1"))).toBe(false);
  },
  60_000,
);

test("demo into a closed pipe still creates the home, quietly", async () => {
  const other = join(tempHome(), "demo");
  const r = await intoClosedPipe(["demo", "--home", other]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(existsSync(join(other, "sessions", "deploy-pipeline", "history.json"))).toBe(true);
}, 60_000);

/** Run memvoy with its stdout on /dev/full (every write fails with ENOSPC, as on a full disk). */
async function intoFullDevice(args: string[]): Promise<{ code: number; stderr: string }> {
  const proc = Bun.spawn(["bun", join(repoRoot, "src/index.ts"), ...args], {
    env: { PATH: process.env.PATH!, HOME: tempHome("memvoy-full-"), TZ: "UTC" },
    stdout: Bun.file("/dev/full"),
    stderr: "pipe",
  });
  const stderr = await new Response(proc.stderr).text();
  return { code: await proc.exited, stderr };
}

test("a stdout that takes no write says so in one line (exit 1), and an add that was written is not called unchanged", async () => {
  const full = "memvoy: could not write the output to stdout (ENOSPC: no space left on device, write)\n";
  for (const args of [["--version"], ["--version", "--json"], ["search", "deploy", "--json"], ["export", "--all"]]) {
    const r = await intoFullDevice(["--home", home, ...args]);
    expect([r.code, r.stderr]).toEqual([1, full]);
  }
  const add = await intoFullDevice(["--home", home, "add", "full-out", "--role", "user", "--content", "kept"]);
  expect([add.code, add.stderr]).toEqual([1, full]);
  const shown = await cli(["--home", home, "history", "full-out", "--json"]);
  expect(JSON.parse(shown.stdout).messages.map((m: { content: string }) => m.content)).toEqual(["kept"]);
}, 60_000);

test("a stderr that takes no write keeps the command's exit code: 2 for a usage error, not a crash's 1", async () => {
  for (const args of [["search", "x", "--session", "nope"], ["frobnicate"]]) {
    const proc = Bun.spawn(["bun", join(repoRoot, "src/index.ts"), "--home", home, ...args], {
      env: { PATH: process.env.PATH!, HOME: tempHome("memvoy-full-"), TZ: "UTC" },
      stdout: "pipe",
      stderr: Bun.file("/dev/full"),
    });
    expect(await proc.exited).toBe(2);
  }
}, 60_000);
