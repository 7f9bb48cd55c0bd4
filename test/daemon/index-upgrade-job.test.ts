// The daemon's index upgrade job: `daemon status` (the state file) shows it running with how far it has got,
// then its outcome, on a home with the old keyword index.
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { MaintenanceApi } from "../../src/app/maintenance-api.ts";
import { indexUpgradeJob } from "../../src/daemon/jobs/index-upgrade.ts";
import { DaemonLog } from "../../src/daemon/log.ts";
import { Scheduler } from "../../src/daemon/scheduler.ts";
import { newDaemonState, readState, type JobState } from "../../src/daemon/state.ts";
import { openTemp, removeTempHomes } from "../fixture/home.ts";
import { toOldIndex } from "../fixture/old-schema.ts";
import { holdWriterLock } from "../fixture/writer-lock-holder.ts";

afterAll(removeTempHomes);

test("the index upgrade job says how far it has got while it runs, then its outcome", async () => {
  const { home, api: writer } = openTemp();
  for (let i = 0; i < 30; i++)
    writer.add(
      `s${i % 3}`,
      Array.from({ length: 100 }, (_, k) => ({ role: "user" as const, content: `note ${i}-${k} about the rollout` })),
    );
  writer.close();
  toOldIndex(home);

  const { api } = openTemp({ home });
  const seen: JobState[] = [];
  const job = () => readState(home)!.jobs["index-upgrade"]!;
  // The real upgrade; each of its steps looks at the state file as `daemon status` would.
  const watched: MaintenanceApi = Object.assign(Object.create(api), {
    upgradeIndex: (o: Parameters<MaintenanceApi["upgradeIndex"]>[0] = {}) =>
      api.upgradeIndex({
        ...o,
        progress: (done, total) => {
          seen.push(job());
          o.progress?.(done, total);
        },
      }),
  });
  const state = newDaemonState(home, "test");
  const log = new DaemonLog({ path: join(home, "daemon.log"), maxBytes: 1 << 20 });
  const scheduler = new Scheduler(home, state, log, new AbortController().signal);
  try {
    scheduler.addLoop(indexUpgradeJob(watched));
    expect(await scheduler.settle(30_000)).toBe(true);
  } finally {
    log.close();
    api.close();
  }

  expect(seen.length).toBeGreaterThan(1);
  // Saved as soon as it starts: running, with the archive's messages (not the upgrade's passes over them).
  expect(seen[0]!.running).toBe(true);
  expect(seen[0]!.progress).toMatch(/^\d+% of 3000 messages$/);
  const end = job();
  expect(end.running).toBe(false);
  expect(end.progress).toBeNull();
  expect(end.lastResult).toBe("ok");
  expect(end.lastDetail).toStartWith("done: ");
  // It runs once, at start: `daemon status` must not call it continuous (nor give it a next run).
  expect(end.schedule).toBe("at start");
}, 60_000);

test("the upgrade waits for another process's writer lock without blocking: the daemon running it keeps serving", async () => {
  const { home, api: writer } = openTemp({ drain: "off" });
  for (let i = 0; i < 3; i++)
    writer.add(
      `s${i}`,
      Array.from({ length: 50 }, (_, k) => ({ role: "user" as const, content: `note ${i}-${k}` })),
    );
  writer.close();
  toOldIndex(home);
  const { api } = openTemp({ home, drain: "off" });
  try {
    // An import holds the lock (it gives up by itself after 8 s); the upgrade's steps wait for it to let go.
    const holder = await holdWriterLock(home, 8000);
    const upgrading = api.upgradeIndex();
    const t = performance.now();
    await Bun.sleep(200);
    // The event loop ran on: a timer fired on time (a busy wait in SQLite would hold it until the lock is free).
    expect(performance.now() - t).toBeLessThan(2000);
    expect(holder.proc.exitCode).toBeNull();
    await holder.release();
    expect((await upgrading).done).toBe(true);
  } finally {
    api.close();
  }
}, 60_000);
