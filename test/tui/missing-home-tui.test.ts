// The terminal UI on a home that does not exist (a mistyped --home, or the default home on a fresh machine), from the
// compiled binary: the first-run screen, with nothing created; once memvoy demo has made the home, Ctrl-L shows it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { buildBinaryOnce, makeTempDir, removeTempDirs, runBinary } from "../fixture/binary.ts";
import { TmuxSession } from "../fixture/tmux.ts";

let bin = "";
beforeAll(async () => {
  bin = await buildBinaryOnce();
}, 600_000);
afterAll(removeTempDirs);

test("the first-run screen leaves a missing home uncreated, and shows the home once it is made", async () => {
  const dir = makeTempDir("memvoy-tui-missing-");
  const cwd = join(dir, "cwd");
  mkdirSync(cwd);
  const home = join(dir, "no-such", "memvoy");
  const tui = TmuxSession.start([bin, "--home", home], { cwd, env: { TMPDIR: dir } });
  try {
    const s = await tui.waitFor("Welcome to memvoy", 30_000);
    expect(s).toContain("This home has no sessions yet");
    expect(existsSync(join(dir, "no-such"))).toBe(false);
    const demo = await runBinary(bin, ["demo", "--home", home], { timeoutMs: 60_000 });
    expect(demo.code, demo.stderr).toBe(0);
    tui.keys("C-l");
    await tui.waitFor("deploy-pipeline", 30_000);
    tui.keys("q");
    expect((await tui.exited()).code).toBe(0);
  } finally {
    tui.kill();
  }
}, 120_000);

test("o with TMPDIR naming no folder says so on the status row", async () => {
  const dir = makeTempDir("memvoy-tui-missing-");
  const home = join(dir, "demo");
  const demo = await runBinary(bin, ["demo", "--home", home], { timeoutMs: 60_000 });
  expect(demo.code, demo.stderr).toBe(0);
  const tmp = join(dir, "no-such-tmp");
  const tui = TmuxSession.start([bin, "--home", home], { cwd: dir, env: { TMPDIR: tmp }, width: 160 });
  try {
    await tui.waitFor("research-notes", 30_000);
    tui.keys("Enter", "o");
    await tui.waitFor(`cannot make a temporary folder in ${tmp} (TMPDIR): it does not exist`, 30_000);
    tui.keys("q");
    expect((await tui.exited()).code).toBe(0);
  } finally {
    tui.kill();
  }
}, 120_000);
