// The session report carries the LLM failure that ended its run; a fatal one (a refused key) stops the batch.
import { afterEach, expect, test } from "bun:test";
import { addExchanges, current, setup, summaryStep, type Setup } from "../fixture/summary-home.ts";

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
