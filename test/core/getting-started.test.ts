// Getting started from a fresh clone: the README's two commands do all the set-up on a machine with npm but
// no Bun (a fake npm stands in for the registry, so this runs offline), and .ci/run runs the README's test
// command exactly as written.
import { afterAll, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { removeTempHomes, repoRoot, tempHome } from "../fixture/home.ts";
import { invocation } from "../../src/app/invocation.ts";

afterAll(removeTempHomes);
const version = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).version;

/** The README's set-up commands: the shell block right after the tier table. */
function readmeCommands(): string[] {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
  const block = /```sh\n([\s\S]*?)```/.exec(readme)![1]!;
  return block
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => l.replace(/\s+#.*$/, "").trim());
}

/** A PATH with the basic tools and a fake npm that "installs" bun by linking the real binary; no bun. */
function freshMachine(): { path: string; log: string; tools: string; home: string } {
  const dir = tempHome("memvoy-fresh-");
  const bin = join(dir, "bin");
  mkdirSync(bin);
  for (const tool of [
    "sh",
    "bash",
    "dirname",
    "mkdir",
    "cat",
    "ln",
    "env",
    "rm",
    "uname",
    "tr",
    "grep",
    "sed",
    "stty",
  ]) {
    const found = Bun.which(tool);
    if (found) symlinkSync(found, join(bin, tool));
  }
  const log = join(dir, "npm.log");
  const realBun = realpathSync(Bun.which("bun")!);
  writeFileSync(
    join(bin, "npm"),
    `#!/bin/sh\necho "$@" >> '${log}'\nprefix=""\nwhile [ $# -gt 0 ]; do [ "$1" = "--prefix" ] && prefix=$2; shift; done\nmkdir -p "$prefix/node_modules/.bin"\nln -sf '${realBun}' "$prefix/node_modules/.bin/bun"\n`,
  );
  chmodSync(join(bin, "npm"), 0o755);
  return { path: bin, log, tools: join(dir, "tools"), home: join(dir, "home") };
}

test("the README's commands are scripts/run start and scripts/run test; .ci/run runs the test one exactly as written", () => {
  const cmds = readmeCommands();
  expect(cmds).toEqual(["scripts/run start", "scripts/run test"]);
  const ci = readFileSync(join(repoRoot, ".ci/run"), "utf8")
    .split("\n")
    .map((l) => l.trim());
  expect(ci).toContain(cmds[1]!);
  expect(ci.some((l) => /^bun /.test(l))).toBe(false); // no step of its own needs bun before the command
});

test("with npm but no Bun, scripts/run installs the pinned Bun (once, not globally), the locked dependencies, then runs the script", async () => {
  const m = freshMachine();
  expect(Bun.which("bun", { PATH: m.path })).toBeNull();
  const run = () =>
    Bun.spawnSync(["sh", join(repoRoot, "scripts/run"), "start", "--version"], {
      cwd: m.home.replace(/home$/, ""),
      env: { PATH: m.path, HOME: m.home, MEMVOY_TOOLS_DIR: m.tools },
      stdout: "pipe",
      stderr: "pipe",
    });
  const first = run();
  expect(first.stderr.toString()).toContain("installing bun@1.4.5 from npm");
  expect(first.exitCode).toBe(0);
  expect(first.stdout.toString()).toContain(`memvoy ${version}`);
  expect(readFileSync(m.log, "utf8").trim()).toMatch(new RegExp(`^install --prefix ${m.tools} .*bun@1\\.4\\.5$`));
  expect(readFileSync(m.log, "utf8")).not.toContain("--global");
  const second = run();
  expect(second.exitCode).toBe(0);
  expect(readFileSync(m.log, "utf8").trim().split("\n")).toHaveLength(1); // installed once
}, 120_000);

test("with the right Bun on PATH, scripts/run never calls npm", () => {
  const m = freshMachine();
  const bunDir = tempHome("memvoy-bun-");
  symlinkSync(realpathSync(Bun.which("bun")!), join(bunDir, "bun"));
  const r = Bun.spawnSync(["sh", join(repoRoot, "scripts/run"), "start", "--version"], {
    env: { PATH: `${m.path}:${bunDir}`, HOME: m.home, MEMVOY_TOOLS_DIR: m.tools },
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(r.exitCode).toBe(0);
  expect(existsSync(m.log)).toBe(false);
}, 120_000);

test("the command memvoy suggests is one that works where it runs", () => {
  const entry = join(repoRoot, "src/index.ts");
  const self = [process.execPath, entry];
  // In a source checkout (memvoy not on PATH), not started through scripts/run ("" whatever the suite's own
  // environment says): bun and the entry script, relative when under the cwd.
  expect(invocation(repoRoot, null, "", self)).toBe("bun src/index.ts");
  expect(invocation("/nowhere", null, "", self)).toBe(`bun ${entry}`);
  // Started through scripts/run: the same way again.
  expect(invocation(repoRoot, null, join(repoRoot, "scripts/run"), self)).toBe("scripts/run start");
  // memvoy on PATH is this very script (npm link, a bin symlink): plain memvoy.
  const dir = tempHome();
  symlinkSync(entry, join(dir, "memvoy"));
  expect(invocation("/", join(dir, "memvoy"), "", self)).toBe("memvoy");
  // A compiled binary not on PATH: its own path.
  expect(invocation("/", null, "", ["/opt/memvoy/bin/memvoy"])).toBe("/opt/memvoy/bin/memvoy");
});
