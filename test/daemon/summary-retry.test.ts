// The summary cron's retries: a session whose run failed is retried at the next tick, but one removed since
// (rm on this host or another) is dropped from the retries, and does not stop the tick's other sessions.
import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { SummaryCronApi } from "../../src/app/maintenance-api.ts";
import { summaryJob } from "../../src/daemon/jobs/summaries.ts";
import { DaemonLog } from "../../src/daemon/log.ts";
import { UnknownSessionError } from "../../src/memory/session-admin.ts";
import { emptySessionReport } from "../../src/memory/summary/summary-report.ts";
import { removeTempHomes, tempHome, waitFor } from "../fixture/home.ts";

afterAll(removeTempHomes);

test("a failed session removed before its retry is dropped from the retries; the tick's other sessions run", async () => {
  const home = tempHome();
  const due = [["gone"], ["other"], []];
  const exists = new Set(["gone", "other"]);
  const runs: string[] = [];
  const api: SummaryCronApi = {
    dueSessions: () => due.shift() ?? [],
    dailyBudget: () => ({ budget: 0, usedToday: 0, spent: false, day: "2026-12-01" }),
    async summarize(session) {
      runs.push(session!);
      if (!exists.has(session!)) throw new UnknownSessionError({ session: session!, home });
      const failed = session === "gone";
      const report = emptySessionReport(session!, failed ? "failed" : "ok");
      if (failed) report.error = "the summary of gone was removed while this run went on; nothing was saved";
      return { sessions: [report] };
    },
  };
  const log = new DaemonLog({ path: join(home, "daemon.log"), maxBytes: 1 << 20 });
  const job = summaryJob(api, "* * * * *");
  const tick = () => job.run({ signal: new AbortController().signal, log });
  try {
    expect((await tick())!.detail).toBe("1 failed (retried next tick)");
    exists.delete("gone"); // removed (rm) before the next tick
    expect((await tick())!.detail!.split(", ").sort()).toEqual(["1 gone", "1 summarized"]);
    expect((await tick())!.detail).toBe("nothing due");
  } finally {
    log.close();
  }
  expect(runs.sort()).toEqual(["gone", "gone", "other"]);
  expect(readFileSync(join(home, "daemon.log"), "utf8")).toContain(
    'summary.gone session=gone note="the session was removed; it is not retried"',
  );
});

test("a tick that finds sessions of a long earlier tick says which are running and which wait in its queue", async () => {
  const home = tempHome();
  const due = ["a", "b", "c"];
  const started: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const api: SummaryCronApi = {
    dueSessions: () => due,
    dailyBudget: () => ({ budget: 0, usedToday: 0, spent: false, day: "2026-12-01" }),
    async summarize(session) {
      started.push(session!);
      await gate;
      return { sessions: [emptySessionReport(session!, "ok")] };
    },
  };
  const path = join(home, "daemon.log");
  const log = new DaemonLog({ path, maxBytes: 1 << 20 });
  const job = summaryJob(api, "* * * * *");
  const tick = () => job.run({ signal: new AbortController().signal, log });
  try {
    const first = tick();
    await waitFor(() => started.length >= 2, 10_000, "two summaries started");
    // Two sessions run at a time: a and b run, c waits in the first tick's queue.
    expect((await tick())!.detail).toBe("3 still running or queued by an earlier tick");
    release();
    expect((await first)!.detail).toBe("3 summarized");
  } finally {
    log.close();
  }
  const text = readFileSync(path, "utf8");
  for (const s of ["a", "b"])
    expect(text).toContain(`summary.skip session=${s} reason="its previous run is still going"`);
  expect(text).toContain(
    'summary.skip session=c reason="queued by an earlier tick that is still running: it runs there, after the sessions before it"',
  );
  expect(started).toEqual(["a", "b", "c"]);
});
