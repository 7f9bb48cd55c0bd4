// A SIGTERM (a service manager's stop) or a SIGHUP (the terminal closed) while a deletion the user confirmed waits for
// another process's writer lock: the compiled binary finishes it within the grace, or leaves it whole and says so.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tryLockFile } from "../../src/shared/file-lock.ts";
import { buildBinaryOnce, removeTempDirs, runBinary } from "../fixture/binary.ts";
import { TmuxSession } from "../fixture/tmux.ts";
import { makeHome, T } from "../fixture/tui-home.ts";
import { removeTempHomes } from "../fixture/home.ts";

let bin = "";
beforeAll(async () => {
  bin = await buildBinaryOnce();
}, 600_000);
afterAll(() => {
  removeTempDirs();
  removeTempHomes();
});

interface Run {
  home: string;
  tui: TmuxSession;
  pid: number;
  release: () => void;
}

/** The TUI on a fresh home, another process holding its writer lock. */
async function start(): Promise<Run> {
  const home = await makeHome();
  const tui = TmuxSession.start([bin, "--home", home]);
  await tui.waitFor("alpha-deploy", 30_000);
  const pgrep = Bun.spawnSync(["pgrep", "-f", `^${bin} --home ${home}$`], { stdout: "pipe" });
  const pid = Number(pgrep.stdout.toString().trim().split("\n")[0]);
  expect(pid).toBeGreaterThan(0);
  let held = tryLockFile(join(home, ".store", "write.lock"));
  expect(held).toBeDefined();
  const release = () => {
    held?.();
    held = undefined;
  };
  return { home, tui, pid, release };
}

/** zh-trip chosen and `key` (C-x remove, C-r reset) confirmed: it waits for the writer lock. */
async function confirmOnZhTrip(r: Run, key: string, doing: string): Promise<void> {
  r.tui.type("zh");
  await r.tui.waitFor("filter: zh");
  r.tui.keys(key);
  await r.tui.waitFor(" Confirm ");
  r.tui.keys("y");
  await r.tui.waitFor(`${doing} zh-trip: waiting for another memvoy process writing to this home`);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function gone(pid: number, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid) && Date.now() < deadline) await Bun.sleep(20);
  expect(alive(pid)).toBe(false);
}

async function sessions(home: string): Promise<{ id: string; messages: number }[]> {
  const r = await runBinary(bin, ["sessions", "--json", "--home", home]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

const tuiLog = (home: string) => (existsSync(join(home, "tui.log")) ? readFileSync(join(home, "tui.log"), "utf8") : "");

describe("a confirmed deletion under SIGTERM and SIGHUP", () => {
  test(
    "a SIGHUP or SIGTERM with nothing to finish ends the UI with 128 + the signal's number, as shells expect",
    async () => {
      for (const [signal, code] of [
        ["SIGHUP", 129],
        ["SIGTERM", 143],
      ] as const) {
        const r = await start();
        try {
          r.release();
          process.kill(r.pid, signal);
          expect(await r.tui.exited()).toEqual({ code, modes: ["icanon", "echo"] });
        } finally {
          r.tui.kill();
        }
      }
    },
    T,
  );

  test(
    "SIGTERM: the terminal is given back, the removal waiting for the writer lock finishes once it is free, exit 143",
    async () => {
      const r = await start();
      try {
        await confirmOnZhTrip(r, "C-x", "removing");
        process.kill(r.pid, "SIGTERM");
        await r.tui.waitFor("memvoy: SIGTERM: finishing the deletion you confirmed first (at most 5 s)");
        expect(r.tui.format("alternate_on")).toBe("0");
        r.release();
        expect(await r.tui.exited()).toEqual({ code: 143, modes: ["icanon", "echo"] });
        const ids = (await sessions(r.home)).map((s) => s.id);
        expect(ids).toContain("alpha-deploy");
        expect(ids).not.toContain("zh-trip");
      } finally {
        r.release();
        r.tui.kill();
      }
    },
    T,
  );

  test.each([
    ["C-x", "removing"],
    ["C-r", "resetting"],
  ])(
    "closing the terminal (SIGHUP, then EIO on every write): the confirmed %s (%s) still finishes, with no crash",
    async (key, doing) => {
      const r = await start();
      try {
        await confirmOnZhTrip(r, key, doing);
        // The writes that end the UI fail with EIO once the terminal is gone: memvoy goes on waiting all the same.
        r.tui.kill();
        r.release();
        await gone(r.pid);
        const zh = (await sessions(r.home)).find((s) => s.id === "zh-trip");
        if (doing === "removing") expect(zh).toBeUndefined();
        else expect(zh?.messages).toBe(0);
        expect(tuiLog(r.home)).toBe("");
      } finally {
        r.release();
        r.tui.kill();
      }
    },
    T,
  );

  test(
    "SIGTERM: an error record confirmed for deletion while another process writes is deleted once it is free",
    async () => {
      const r = await start();
      try {
        r.tui.keys("C-e");
        await r.tui.waitFor(/sql\s+failed/);
        r.tui.keys("d");
        await r.tui.waitFor("Delete error record");
        r.tui.keys("y");
        await r.tui.waitFor(/deleting error record [0-9a-f]{8}: waiting for another memvoy process/);
        process.kill(r.pid, "SIGTERM");
        await r.tui.waitFor("memvoy: SIGTERM: finishing the deletion you confirmed first");
        r.release();
        expect(await r.tui.exited()).toEqual({ code: 143, modes: ["icanon", "echo"] });
        const list = await runBinary(bin, ["errors", "list", "--json", "--home", r.home]);
        const records = JSON.parse(list.stdout).records as { tool: string }[];
        expect(records.map((x) => x.tool).sort()).toEqual(["bash", "http_get"]);
      } finally {
        r.release();
        r.tui.kill();
      }
    },
    T,
  );

  test(
    "SIGTERM while the lock stays held past the grace: the removal is never started, memvoy says so and exits 1",
    async () => {
      const r = await start();
      try {
        await confirmOnZhTrip(r, "C-x", "removing");
        process.kill(r.pid, "SIGTERM");
        const s = await r.tui.waitFor(/PROGRAM-EXITED=/, 15_000);
        expect(s.replace(/\n/g, "")).toContain(
          "memvoy: removing zh-trip was not done: another memvoy process still held this home's writer lock 5 s after the SIGTERM; nothing of it was changed",
        );
        expect(await r.tui.exited()).toEqual({ code: 1, modes: ["icanon", "echo"] });
        r.release();
        const zh = (await sessions(r.home)).find((x) => x.id === "zh-trip");
        expect(zh?.messages).toBe(2);
      } finally {
        r.release();
        r.tui.kill();
      }
    },
    T,
  );
});
