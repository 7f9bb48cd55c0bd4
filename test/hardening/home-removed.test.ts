// A home deleted or replaced under a running daemon: it notices within 5 s (device and inode), exits non-zero
// and recreates nothing; a second daemon may then start. A background drain never recreates a deleted home.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { spawnDetachedDrain } from "../../src/app/background-drain.ts";
import { homePaths } from "../../src/config/home.ts";
import { cleanup, cli, startDaemon, tempHome, waitFor, waitRunning } from "../fixture/daemon-process.ts";
import { repoRoot } from "../fixture/home.ts";

afterAll(cleanup);

test("rm -rf of the home: the daemon exits non-zero within 5 s and the home stays gone", async () => {
  const home = tempHome();
  expect((await cli(home, ["add", "s1", "--role", "user", "--content", "hello"])).code).toBe(0);
  const d = startDaemon(home, { MEMVOY_DAEMON_EMBED_INTERVAL_MS: "200" });
  await waitRunning(d);
  // The message is embedded first (by the add's background drain or the daemon): LanceDB writing a table at the
  // moment of the rm would make its folders again (its object store creates parents), a window memvoy does not control.
  await waitFor(async () => {
    const r = await cli(home, ["stats", "--json"]);
    const semantic = JSON.parse(r.stdout).tiers.semantic;
    return semantic.vectors === 1 && semantic.pending === 0;
  });
  rmSync(home, { recursive: true, force: true });
  const removedAt = performance.now();
  const code = await d.exited;
  // 5 s to notice, plus the time a loaded machine takes to deliver the exit.
  expect(performance.now() - removedAt).toBeLessThan(8_000);
  expect(code).not.toBe(0);
  expect(d.stderr()).toContain("was deleted");
  await Bun.sleep(300); // anything the daemon or a child still had in flight would have landed by now
  expect(existsSync(home)).toBe(false);
});

test("the home moved away: the daemon says so, not that it was deleted", async () => {
  const home = tempHome();
  const d = startDaemon(home);
  await waitRunning(d);
  renameSync(home, `${home}.moved`);
  expect(await d.exited).not.toBe(0);
  expect(d.stderr()).toContain(`${home} was deleted or moved away; the daemon stops without writing anything more`);
  expect(existsSync(home)).toBe(false);
  rmSync(`${home}.moved`, { recursive: true, force: true });
});

test("the lock file deleted or replaced: the daemon exits, and a second daemon can then start", async () => {
  const home = tempHome();
  const d = startDaemon(home);
  await waitRunning(d);
  rmSync(join(home, "daemon.lock"));
  expect(await d.exited).not.toBe(0);
  expect(d.stderr()).toContain("daemon.lock");
  const second = startDaemon(home);
  await waitRunning(second);
  second.proc.kill("SIGTERM");
  expect(await second.exited).toBe(0);
});

test("the home replaced by another folder: the daemon exits without writing into the new one", async () => {
  const home = tempHome();
  const d = startDaemon(home);
  await waitRunning(d);
  renameSync(home, `${home}.old`);
  mkdirSync(home);
  expect(await d.exited).not.toBe(0);
  expect(d.stderr()).toContain("was replaced");
  await Bun.sleep(300);
  expect(existsSync(join(home, "daemon.state.json"))).toBe(false);
  expect(existsSync(join(home, ".store"))).toBe(false);
  rmSync(`${home}.old`, { recursive: true, force: true });
});

test("a background drain started for a home that is then deleted does not recreate it", async () => {
  const home = tempHome();
  expect((await cli(home, ["add", "s1", "--role", "user", "--content", "hello"])).code).toBe(0);
  rmSync(home, { recursive: true, force: true });
  const started = spawnDetachedDrain({ ...homePaths(home), store: tempHome() }, [
    process.execPath,
    join(repoRoot, "src/index.ts"),
  ]);
  expect(started).toBe(true);
  await Bun.sleep(1500);
  expect(existsSync(home)).toBe(false);
});

test("a background drain runs in the home, not in the folder add was run from (a script may remove that at once)", async () => {
  const home = tempHome();
  expect((await cli(home, ["add", "s1", "--role", "user", "--content", "hello"])).code).toBe(0);
  const out = join(tempHome(), "cwd.txt");
  const started = spawnDetachedDrain(homePaths(home), ["sh", "-c", `pwd > ${out}.tmp && mv ${out}.tmp ${out}`, "sh"]);
  expect(started).toBe(true);
  const cwd = await waitFor(
    () => (existsSync(out) ? readFileSync(out, "utf8").trim() : undefined),
    15_000,
    "the drain",
  );
  expect(cwd).toBe(home);
});
