// A dead writer's temp file (.history.json.<pid>.<random>.tmp) never outlives the next writer, reset or
// rm-message, even when the writer is a zombie (dead, not yet reaped: kill(pid, 0) still succeeds) or the lock
// file no longer names it; a pid taken by a newer process does not keep it either.
import { afterAll, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writerMayBeAlive } from "../../src/shared/process-alive.ts";
import { cli, removeTempHomes, repoRoot, tempHome, waitFor } from "../fixture/home.ts";

afterAll(removeTempHomes);

const procfs = existsSync("/proc/self/stat");
const temps = (dir: string) => readdirSync(dir).filter((n) => n.endsWith(".tmp"));
const stateOf = (pid: number) => {
  const text = readFileSync(`/proc/${pid}/stat`, "utf8");
  return text.slice(text.lastIndexOf(")") + 2).split(" ")[0];
};

/** A writer killed with its temp file staged whose parent does not reap it (a shell that became `sleep`). */
async function zombieWriter(home: string, session: string, content: string) {
  const args = ["--home", home, "add", session, "--role", "user", "--content", content];
  const quoted = args.map((a) => `'${a}'`).join(" ");
  const parent = Bun.spawn(["sh", "-c", `bun '${join(repoRoot, "src/index.ts")}' ${quoted} & exec sleep 60`], {
    env: { PATH: process.env.PATH!, HOME: home, TZ: "UTC", MEMVOY_TEST_FAULT: "after-history-staged" },
    stdout: "ignore",
    stderr: "ignore",
  });
  const dir = join(home, "sessions", session);
  const temp = await waitFor(() => (existsSync(dir) ? temps(dir)[0] : undefined), 20_000, "the staged temp file");
  const pid = Number(/\.(\d+)\.[a-z0-9]+\.tmp$/.exec(temp!)![1]);
  await waitFor(() => stateOf(pid) === "Z", 20_000, "the writer to die");
  return { dir, pid, parent };
}

test.skipIf(!procfs)(
  "a zombie writer's temp file is removed by the next writer, and reset leaves no copy",
  async () => {
    const home = tempHome();
    expect((await cli(["add", "z", "--role", "user", "--content", "first"], { home })).code).toBe(0);
    const { dir, pid, parent } = await zombieWriter(home, "z", "ZOMBIE-SECRET");
    try {
      expect(writerMayBeAlive(pid, Date.now())).toBe(false);
      // doctor (no lock taken) lists it as left by a writer that died.
      const doctor = await cli(["doctor"], { home });
      expect(doctor.stdout).toContain(".tmp");
      expect((await cli(["add", "z", "--role", "assistant", "--content", "next"], { home })).code).toBe(0);
      expect(temps(dir)).toEqual([]);
      expect(readFileSync(join(home, ".store", "write.lock"), "utf8")).toBe("");
    } finally {
      parent.kill();
    }
  },
);

test("reset and rm-message remove a dead writer's temp file the lock file no longer names", async () => {
  const home = tempHome();
  for (const s of ["r", "m"]) {
    await cli(["add", s, "--role", "user", "--content", "kept"], { home });
    const killed = await cli(["add", s, "--role", "user", "--content", `STALE-${s}`], {
      home,
      env: { MEMVOY_TEST_FAULT: "after-history-staged" },
    });
    expect(killed.code).not.toBe(0);
    writeFileSync(join(home, ".store", "write.lock"), ""); // a clean release since then hid the crash
    expect(temps(join(home, "sessions", s))).toHaveLength(1);
  }
  expect((await cli(["reset", "r"], { home })).code).toBe(0);
  expect(temps(join(home, "sessions", "r"))).toEqual([]);
  const id = (await cli(["add", "m", "--role", "assistant", "--content", "to remove"], { home })).stdout.trim();
  writeFileSync(join(home, ".store", "write.lock"), "");
  // The add above removed nothing (the lock file named no crash); rm-message does.
  expect(temps(join(home, "sessions", "m"))).toHaveLength(1);
  expect((await cli(["rm-message", id], { home })).code).toBe(0);
  expect(temps(join(home, "sessions", "m"))).toEqual([]);
  for (const s of ["r", "m"]) {
    const left = readdirSync(join(home, "sessions", s)).map((n) => readFileSync(join(home, "sessions", s, n), "utf8"));
    expect(left.join("")).not.toContain("STALE-");
  }
});

test.skipIf(!procfs)("a pid taken by a process that started after the temp file was written is not its writer", () => {
  const started = Date.now();
  expect(writerMayBeAlive(process.pid, 0)).toBe(true); // this process: always
  const child = Bun.spawn(["sleep", "30"]);
  try {
    expect(writerMayBeAlive(child.pid, Date.now())).toBe(true);
    expect(writerMayBeAlive(child.pid, started - 60_000)).toBe(false);
  } finally {
    child.kill();
  }
});

test("doctor names and --repair removes a dead writer's temp files beside the home's own files (http.json's holds the token)", async () => {
  const home = tempHome();
  expect((await cli(["add", "s1", "--role", "user", "--content", "hello"], { home })).code).toBe(0);
  const dead = Bun.spawnSync(["true"]).pid; // exited and reaped
  const names = [`.http.json.${dead}.k1ll3d.tmp`, `.daemon.state.json.${dead}.k1ll3d.tmp`];
  for (const name of names) writeFileSync(join(home, name), '{"token":"secret"}', { mode: 0o600 });
  const store = join(home, ".store", `.config-cache.json.${dead}.k1ll3d.tmp`);
  writeFileSync(store, "{}", { mode: 0o600 });
  const live = join(home, `.http.json.${process.pid}.wr1t1ng.tmp`); // a writer still running
  writeFileSync(live, "{}", { mode: 0o600 });
  const check = await cli(["doctor", "--json"], { home });
  expect(check.code).toBe(1);
  expect(JSON.parse(check.stdout).findings).toEqual([
    { problem: `2 temp file(s) left by a writer that died in ${home}: ${names.sort().join(", ")}` },
    {
      problem: `1 temp file(s) left by a writer that died in ${join(home, ".store")}: .config-cache.json.${dead}.k1ll3d.tmp`,
    },
  ]);
  expect((await cli(["doctor", "--repair"], { home })).code).toBe(0);
  for (const name of names) expect(existsSync(join(home, name))).toBe(false);
  expect(existsSync(store)).toBe(false);
  expect(existsSync(live)).toBe(true);
});
