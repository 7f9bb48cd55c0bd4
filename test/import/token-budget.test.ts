// [summary] daily_token_budget stops LLM spend for the day; memvoy usage shows tokens by day, model and session.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";
import * as daemon from "../fixture/daemon-process.ts";
import { startFakeAnthropic, type FakeAnthropic } from "../fixture/fake-anthropic.ts";
import { current, summaryStep } from "../fixture/summary-home.ts";

let fake: FakeAnthropic;
beforeAll(async () => (fake = await startFakeAnthropic()));
afterAll(async () => {
  await fake.stop();
  removeTempHomes();
  daemon.cleanup();
});

describe("daily token budget", () => {
  test("with a budget of one call, a second call is never made; summarize and usage say so", async () => {
    const home = tempHome();
    writeFileSync(join(home, "config.toml"), "[summary]\ndaily_token_budget = 1\n");
    const env = { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url };
    for (const s of ["s1", "s2"]) {
      const jsonl =
        '{"role":"user","content":"shall we use Postgres?"}\n{"role":"assistant","content":"Yes, Postgres."}\n';
      expect((await cli(["add", s], { home, stdin: jsonl })).code).toBe(0);
    }
    fake.respond(() => summaryStep({ key_decisions: ["Do: use Postgres"], current_discussion: current("database") }));
    const r = await cli(["summarize"], { home, env });
    expect(fake.calls).toBe(1);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain("daily token budget is spent");
    const again = await cli(["summarize", "s2"], { home, env });
    expect(fake.calls).toBe(1);
    expect(again.stdout + again.stderr).toContain("daily_token_budget");

    const u = JSON.parse((await cli(["usage", "--json"], { home })).stdout);
    expect(u.budget).toMatchObject({ budget: 1, spent: true });
    expect(u.rows).toHaveLength(1);
    expect(u.rows[0]).toMatchObject({
      calls: 1,
      session: expect.stringMatching(/^s[12]$/),
      inputTokens: fake.inputTokens,
      outputTokens: fake.outputTokens,
    });
    const text = await cli(["usage"], { home });
    expect(text.stdout).toContain("budget spent");
  });

  test("rm of a summarized session keeps its calls in today's tokens: the budget is not given back", async () => {
    const home = tempHome();
    writeFileSync(join(home, "config.toml"), "[summary]\ndaily_token_budget = 1\n");
    const env = { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url };
    fake.reset();
    fake.respond(() => summaryStep({ key_decisions: ["Do: use Postgres"], current_discussion: current("database") }));
    for (const s of ["r1", "r2"]) {
      const jsonl = '{"role":"user","content":"which database?"}\n{"role":"assistant","content":"Postgres."}\n';
      expect((await cli(["add", s], { home, stdin: jsonl })).code).toBe(0);
    }
    expect((await cli(["summarize", "r1"], { home, env })).code).toBe(0);
    expect(fake.calls).toBe(1);
    const spent = fake.inputTokens + fake.outputTokens;
    expect((await cli(["rm", "r1"], { home })).code).toBe(0);
    const u = JSON.parse((await cli(["usage", "--json"], { home })).stdout);
    expect(u.budget).toMatchObject({ usedToday: spent, spent: true });
    expect(u.rows).toHaveLength(1);
    expect(u.rows[0]).toMatchObject({ calls: 1 });
    expect(u.rows[0].session).toBeUndefined();
    const again = await cli(["summarize", "r2"], { home, env });
    expect(again.stdout + again.stderr).toContain("daily token budget is spent");
    expect(fake.calls).toBe(1);
    // A new session of the removed one's name starts with no usage of its own.
    expect((await cli(["add", "r1", "--role", "user", "--content", "again"], { home })).code).toBe(0);
    expect(JSON.parse((await cli(["summary", "r1", "--json"], { home })).stdout).usage).toEqual([]);
  });

  test("two processes summarizing at once still make one call with a budget of one call", async () => {
    const home = tempHome();
    writeFileSync(join(home, "config.toml"), "[summary]\ndaily_token_budget = 1\n");
    const env = { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url };
    for (const s of ["p1", "p2"]) {
      const jsonl = '{"role":"user","content":"which queue?"}\n{"role":"assistant","content":"Use SQS."}\n';
      expect((await cli(["add", s], { home, stdin: jsonl })).code).toBe(0);
    }
    fake.reset();
    // The answer is slow, so the second process asks while the first call is in flight.
    fake.respond(() => ({
      delayMs: 1500,
      then: summaryStep({ key_decisions: ["Do: use SQS"], current_discussion: current("queue") }),
    }));
    const [a, b] = await Promise.all([
      cli(["summarize", "p1"], { home, env }),
      cli(["summarize", "p2"], { home, env }),
    ]);
    expect(fake.calls).toBe(1);
    expect([a.code, b.code].sort()).toEqual([0, 1]);
    expect(a.stdout + a.stderr + b.stdout + b.stderr).toContain("daily token budget is spent");
  });

  test("the daemon's summary cron stops at the budget: one call, then the log and daemon status say so", async () => {
    const home = daemon.tempHome();
    writeFileSync(
      join(home, "config.toml"),
      '[summary]\ncron = "* * * * * *"\nmax_retries = 0\ndaily_token_budget = 1\n',
    );
    const env = { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url };
    fake.reset();
    fake.respond(() => summaryStep({ key_decisions: ["Do: use Postgres"], current_discussion: current("database") }));
    for (const s of ["d1", "d2"]) {
      const jsonl = '{"role":"user","content":"shall we use Postgres?"}\n{"role":"assistant","content":"Yes."}\n';
      expect((await cli(["add", s], { home, stdin: jsonl })).code).toBe(0);
    }
    const d = daemon.startDaemon(home, env);
    await daemon.waitRunning(d);
    await daemon.waitFor(
      () => daemon.logText(home).includes("summary.budget_spent"),
      30_000,
      "the budget line in the log",
    );
    const status = await daemon.waitFor(
      async () => {
        const st = await daemon.cli(home, ["daemon", "status"]);
        return st.stdout.includes("daily token budget spent") ? st.stdout : undefined;
      },
      30_000,
      "daemon status to say the budget is spent",
    );
    expect(status).toContain("daily token budget spent");
    expect(fake.calls).toBe(1);
    d.proc.kill("SIGTERM");
    expect(await d.exited).toBe(0);
    expect(fake.calls).toBe(1);
  }, 120_000);
});
