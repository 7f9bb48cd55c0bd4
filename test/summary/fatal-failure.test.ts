// The session report carries the LLM failure that ended its run; a fatal one (a refused key) stops the batch.
import { afterEach, expect, test } from "bun:test";
import { chmodSync } from "node:fs";
import { join } from "node:path";
import { addExchanges, current, setup, summaryStep, T0, type Setup } from "../fixture/summary-home.ts";

let s: Setup;
afterEach(async () => s && (await s.close()));

test("a refused key ends the session with a fatal failure in its report, and the other due sessions are not run", async () => {
  s = await setup({ MEMVOY_SUMMARY_MAX_RETRIES: "0" });
  addExchanges(s.api, "s1", 1);
  addExchanges(s.api, "s2", 1);
  s.fake.push({ status: 401 });
  const { sessions } = await s.api.summarize();
  expect(sessions.map((r) => r.outcome)).toEqual(["failed", "skipped"]);
  expect(sessions[0]!.failure).toMatchObject({ kind: "auth", status: 401, fatal: true, attempts: 1 });
  expect(sessions[1]!.notes[0]).toStartWith("not run: ");
  expect(sessions[1]!.notes[0]).toContain("HTTP 401");
  expect(s.fake.calls).toBe(1);
});

test("a failure retrying can mend is reported as not fatal, and the batch goes on", async () => {
  s = await setup({ MEMVOY_SUMMARY_MAX_RETRIES: "0" });
  addExchanges(s.api, "s1", 1);
  addExchanges(s.api, "s2", 1);
  s.fake.push({ status: 500 }, summaryStep({ current_discussion: current("two") }));
  const { sessions } = await s.api.summarize();
  expect(sessions.map((r) => r.outcome)).toEqual(["failed", "ok"]);
  expect(sessions[0]!.failure).toMatchObject({ kind: "server", status: 500, fatal: false });
  expect(sessions[1]!.failure).toBeUndefined();
});

/** Make `dir` refuse new files: chattr +i as root (which chmod does not stop), chmod 0500 otherwise; undefined when impossible. */
function refuseNewFiles(dir: string): (() => void) | undefined {
  if (process.getuid?.() !== 0) {
    chmodSync(dir, 0o500);
    return () => chmodSync(dir, 0o700);
  }
  if (Bun.spawnSync(["chattr", "+i", dir]).exitCode !== 0) return undefined;
  return () => void Bun.spawnSync(["chattr", "-i", dir]);
}

test("a session folder that takes no new file fails the run before any model call, naming the folder", async () => {
  s = await setup();
  addExchanges(s.api, "s1", 1);
  s.fake.push(summaryStep({ current_discussion: current("one") }));
  expect((await s.api.summarize("s1")).sessions[0]!.outcome).toBe("ok");
  addExchanges(s.api, "s1", 1, { startMs: T0 + 60_000 });
  const dir = join(s.home, "sessions", "s1");
  const undo = refuseNewFiles(dir);
  if (!undo) return; // no way to refuse root a new file here
  let report: Awaited<ReturnType<typeof s.api.summarize>>["sessions"][number];
  try {
    report = (await s.api.summarize("s1")).sessions[0]!;
  } finally {
    undo();
  }
  expect(s.fake.calls).toBe(1);
  expect(report.outcome).toBe("failed");
  expect(report.error).toMatch(
    new RegExp(
      `^permission denied: E(?:PERM|ACCES): ${dir} takes no new file \\(writing summary\\.json needs one beside it\\)$`,
    ),
  );
  expect(report.notes).toEqual([]);
  s.fake.push(summaryStep({ current_discussion: current("two") }));
  expect((await s.api.summarize("s1")).sessions[0]!.outcome).toBe("ok");
  expect(s.fake.calls).toBe(2);
});

test("a session folder that takes no lock file fails that session only; the other due sessions are summarized", async () => {
  s = await setup();
  for (const id of ["a", "b", "c"]) addExchanges(s.api, id, 1);
  const undo = refuseNewFiles(join(s.home, "sessions", "a"));
  if (!undo) return; // no way to refuse root a new file here
  s.fake.push(summaryStep({ current_discussion: current("b") }), summaryStep({ current_discussion: current("c") }));
  let sessions: Awaited<ReturnType<typeof s.api.summarize>>["sessions"];
  try {
    sessions = (await s.api.summarize()).sessions;
  } finally {
    undo();
  }
  expect(sessions.map((r) => [r.session, r.outcome])).toEqual([
    ["a", "failed"],
    ["b", "ok"],
    ["c", "ok"],
  ]);
  expect(sessions[0]!.error).toMatch(/^permission denied: E(?:PERM|ACCES): .*\.summary\.lock/);
});
