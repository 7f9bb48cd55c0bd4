// The hourly error-memory sweep in a real daemon (here on a per-second schedule), run by its child process.
import { afterAll, setDefaultTimeout, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openMemory } from "../../src/app/open-memory.ts";
import {
  cleanup,
  logText,
  mappedFiles,
  startDaemon,
  tempHome,
  waitFor,
  waitRunning,
  workerPids,
} from "../fixture/daemon-process.ts";

// Real processes (bun start-up, LanceDB) and back-off waits: give each test room.
setDefaultTimeout(60_000);

afterAll(cleanup);

test("error sweep: expired error records are deleted on schedule, live ones stay", async () => {
  const home = tempHome();
  writeFileSync(join(home, "config.toml"), `[daemon]\nsweep_cron = "* * * * * *"\n`);
  const dayNs = 86_400n * 1_000_000_000n;
  const now = BigInt(Date.now()) * 1_000_000n;
  const old = openMemory({ home, env: {}, now: () => now - 100n * dayNs });
  await old.recordError({ tool: "git", error: "fatal: not a git repository", fix: "run it inside the checkout" });
  old.close();
  const fresh = openMemory({ home, env: {} });
  await fresh.recordError({
    tool: "npm",
    error: "ERESOLVE unable to resolve dependency tree",
    fix: "align the peer versions",
  });
  expect(fresh.listErrors().total).toBe(1);
  fresh.close();

  const d = startDaemon(home);
  await waitRunning(d);
  await waitFor(() => /job\.done job=error-sweep .*detail="1 expired record/.test(logText(home)), 15_000, "the sweep");
  const after = openMemory({ home, env: {} });
  const list = after.listErrors();
  after.close();
  expect(list.records.map((r) => r.tool)).toEqual(["npm"]);
  expect(workerPids(home, "error-sweep").length).toBeGreaterThanOrEqual(1);
  expect(mappedFiles(d.proc.pid)).not.toMatch(/lancedb/i);
  d.proc.kill("SIGTERM");
  expect(await d.exited).toBe(0);
});
