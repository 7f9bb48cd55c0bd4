// Summaries in shared mode, against the fake Messages API: `summarize` on one host stores the summary in the
// archive and another host's files catch up when it takes the session's lock; the daily token budget is one
// for every host; `context` filters the summary with the decision model; two daemons on two hosts never
// summarize one session at once, and when the holder dies mid-call the other takes the job once its lease
// runs out, with one summary run recorded.
import { afterEach, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openSharedHome } from "../../src/app/shared/open-shared.ts";
import { cursorText } from "../../src/storage/history/cursor-file.ts";
import type { SharedHome } from "../../src/app/shared/shared-home.ts";
import { cleanup, logText, startDaemon, tempHome, waitFor, waitRunning } from "../fixture/daemon-process.ts";
import { startFakeAnthropic, type FakeAnthropic, type FakeRequest } from "../fixture/fake-anthropic.ts";
import { cli } from "../fixture/home.ts";
import { describePostgres } from "../fixture/postgres-server.ts";
import { sharedBackend } from "../fixture/shared-backend.ts";
import { current, pad, summaryStep, T0, transcriptEntries, transcriptOf } from "../fixture/summary-home.ts";

const describe = describePostgres();

/** A summary answer naming the transcript's first question, so a test can tell runs apart. */
function answer(req: FakeRequest) {
  const text = req.messages[0]?.content ?? "";
  const topic = /(\w+) question 0/.exec(text)?.[1] ?? "talk";
  return summaryStep({ key_decisions: [`Do: remember ${topic}`], current_discussion: current(topic) });
}

const isRelevance = (req: FakeRequest) => req.system.includes("relevant to the user's next request");

function exchanges(tag: string, n: number, startMs = T0) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const at = BigInt(startMs + 2000 * i) * 1_000_000n;
    out.push({ role: "user" as const, content: pad(`${tag} question ${i}`, 120), sendAt: at });
    out.push({ role: "assistant" as const, content: pad(`${tag} answer ${i}`, 160), sendAt: at + 1_000_000_000n });
  }
  return out;
}

describe("summaries on a shared archive", () => {
  let fake: FakeAnthropic;
  const opened: SharedHome[] = [];
  const shared = sharedBackend({
    beforeStop: () => {
      cleanup();
      return fake?.stop();
    },
  });

  beforeAll(async () => {
    fake = await startFakeAnthropic();
  });
  // Each open memory keeps a pool of connections: closed after each test, so the daemons find free ones.
  afterEach(async () => {
    for (const h of opened.splice(0)) await h.close().catch(() => {});
  });

  /** `n` homes (hosts) on one fresh archive and bucket prefix; `toml` opens each config.toml. */
  async function hosts(name: string, n: number, toml = "") {
    const url = await shared.pg.createDatabase(name);
    const env = {
      ...shared.s3.env,
      MEMVOY_ARCHIVE_URL: url,
      ANTHROPIC_API_KEY: fake.apiKey,
      ANTHROPIC_BASE_URL: fake.url,
      MEMVOY_SUMMARY_MAX_RETRIES: "0",
    };
    const homes = Array.from({ length: n }, () => tempHome());
    for (const h of homes) writeFileSync(join(h, "config.toml"), `${toml}\n${shared.s3.vectorsToml(name)}`);
    const open = async (home: string) => {
      const h = await openSharedHome({ home, env });
      opened.push(h);
      return h;
    };
    return { url, env, homes, open };
  }

  test("summarize on one host: the summary is in the archive, and another host's files catch up under its lock", async () => {
    fake.reset();
    fake.respond((req) => answer(req));
    const { env, homes, open } = await hosts("summarize", 2);
    const [a, b] = homes as [string, string];
    const hostA = await open(a);
    await hostA.add("team", exchanges("alpha", 3));

    const run = await cli(["summarize", "team", "--json"], { home: a, env });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout).sessions[0];
    expect(report).toMatchObject({ session: "team", outcome: "ok", chunksDone: 1, calls: 1, messages: 6 });
    expect(fake.calls).toBe(1);

    // The archive holds it: host B reads it (and its usage), and its files are rewritten from it.
    const view = await cli(["summary", "team", "--json"], { home: b, env });
    expect(view.code).toBe(0);
    const v = JSON.parse(view.stdout);
    expect(v.summary.key_decisions).toEqual(["Do: remember alpha"]);
    expect(v.lastRun).toMatchObject({ outcome: "ok", calls: 1 });
    expect(v.due).toBe(false);
    expect(v.usage.map((u: { purpose: string }) => u.purpose)).toEqual(["summary"]);
    const files = (home: string) =>
      ["summary.json", ".summary_cursor"].map((f) => readFileSync(join(home, "sessions", "team", f), "utf8"));
    expect(files(b)).toEqual(files(a));
    expect(JSON.parse(files(b)[0]!).current_discussion.topic).toBe("alpha");

    // New messages from host B: due again; host B summarizes from the exact position, on A's summary.
    const hostB = await open(b);
    await hostB.add("team", exchanges("beta", 2, T0 + 60_000));
    expect(await hostB.dueSessions()).toEqual(["team"]);
    const next = await hostB.summarize();
    expect(next.sessions).toMatchObject([{ session: "team", outcome: "ok", messages: 4 }]);
    expect(fake.requests[1]!.system).toContain("Do: remember alpha");
    expect(fake.requests[1]!.messages[0]!.content).not.toContain("alpha question");
    expect(await hostA.dueSessions()).toEqual([]);
    // Host A's files are stale until it takes the session's lock (here: `context`).
    expect(JSON.parse(files(a)[0]!).current_discussion.topic).toBe("alpha");
    await hostA.context("team");
    expect(files(a)).toEqual(files(b));
    expect(JSON.parse(files(a)[0]!).current_discussion.topic).toBe("beta");

    // Nothing new: up to date, no call.
    expect((await hostA.summarize("team")).sessions[0]!.outcome).toBe("up-to-date");
    expect(fake.calls).toBe(2);
    expect(await hostA.ctx.archive.counts()).toMatchObject({ usage: 2, summaryRuns: 1, summaries: 1 });
  }, 120_000);

  test("rm-message of a message a run in flight has read: the run saves nothing, and the next one goes without it", async () => {
    fake.reset();
    const { homes, open } = await hosts("rm_message_in_flight", 2);
    const [hostA, hostB] = [await open(homes[0]!), await open(homes[1]!)];
    await hostA.add("team", exchanges("first", 1));
    fake.push(summaryStep({ key_decisions: ["Do: keep the first plan"], current_discussion: current("first") }));
    expect((await hostA.summarize("team")).sessions[0]!.outcome).toBe("ok");
    const before = (await hostA.ctx.archive.getSummaryState("team"))!.summary;
    await hostA.add("team", [
      { role: "user", content: "oops, my key is sk-pasted-by-mistake", sendAt: "2026-05-01T10:00:00Z" },
      { role: "assistant", content: "Please rotate it.", sendAt: "2026-05-01T10:00:01Z" },
    ]);
    const answered = Promise.withResolvers<void>();
    fake.push({ until: answered.promise, then: summaryStep({ key_decisions: ["Do: use sk-pasted-by-mistake"] }) });
    const running = hostA.summarize("team");
    await fake.waitForCalls(2);
    // Removed on another host while host A's run waits for its answer.
    const pasted = (await hostB.history("team")).find((m) => m.content.includes("sk-pasted"))!;
    const removed = await hostB.rmMessage(pasted.id);
    expect([removed.summarized, removed.summaryRemoved]).toEqual([false, false]);
    answered.resolve();
    const r = (await running).sessions[0]!;
    expect([r.outcome, r.error]).toEqual([
      "failed",
      "a message of team was removed (rm-message) while this run went on; nothing was saved (the next run summarizes without it)",
    ]);
    expect((await hostA.ctx.archive.getSummaryState("team"))!.summary).toBe(before);
    expect(await hostA.dueSessions()).toEqual(["team"]);
    fake.push(summaryStep({ key_decisions: ["Do: rotate keys"] }));
    expect((await hostA.summarize("team")).sessions[0]!.outcome).toBe("ok");
    const sent = transcriptEntries(transcriptOf(fake.requests.at(-1)!.messages[0]!.content)).map((e) => e.text);
    expect(sent).toEqual(["Please rotate it."]);
  }, 120_000);

  test("rm-message on a host that never read the session: a message before the archive's cursor is reported as summarized", async () => {
    const { homes, open } = await hosts("covered_by_cursor", 2);
    const [hostA, hostB] = [await open(homes[0]!), await open(homes[1]!)];
    await hostA.add("team", exchanges("old", 1));
    await hostA.add("team", exchanges("new", 1, T0 + 60_000));
    // A summary whose cursor has no exact position (written by Agenvoy, carried over by migrate-archive).
    const summary = JSON.stringify({
      key_decisions: ["Do: x"],
      past_discussions: [],
      current_discussion: current("old"),
    });
    await hostA.ctx.archive.putSummaryState(
      "team",
      { summary, cursor: cursorText(BigInt(T0 + 1000) * 1_000_000n) },
      1n,
      null,
    );
    const [oldQuestion, , newQuestion] = await hostA.history("team");
    expect(existsSync(join(homes[1]!, "sessions", "team"))).toBe(false);
    expect((await hostB.rmMessage(oldQuestion!.id)).summarized).toBe(true);
    expect((await hostB.rmMessage(newQuestion!.id)).summarized).toBe(false);
  }, 120_000);

  test("an unreadable summary in the archive makes its session due, and the next run replaces it", async () => {
    fake.reset();
    fake.respond((req) => answer(req));
    const { env, homes, open } = await hosts("corrupt_summary", 2);
    const [hostA, hostB] = [await open(homes[0]!), await open(homes[1]!)];
    await hostA.add("team", exchanges("alpha", 2));
    expect((await hostA.summarize()).sessions).toMatchObject([{ session: "team", outcome: "ok" }]);
    expect(await hostA.dueSessions()).toEqual([]);
    const { cursor } = (await hostA.ctx.archive.getSummaryState("team"))!;
    await hostA.ctx.archive.putSummaryState("team", { summary: '{"key_decisions": ["Do: x"', cursor }, hostA.ctx.now());

    expect(await hostB.dueSessions()).toEqual(["team"]);
    const view = await cli(["summary", "team", "--json"], { home: homes[1]!, env });
    expect(JSON.parse(view.stdout)).toMatchObject({ state: "corrupt", due: true });
    expect((await hostB.summarize()).sessions).toMatchObject([{ session: "team", outcome: "ok", messages: 4 }]);
    const repaired = JSON.parse((await hostA.ctx.archive.getSummaryState("team"))!.summary);
    expect(repaired.key_decisions).toEqual(["Do: remember alpha"]);
    expect(await hostA.dueSessions()).toEqual([]);
    expect(await hostB.dueSessions()).toEqual([]);
  }, 120_000);

  test("a run's start is timed under the session's lock: a write another host makes under it has an earlier time", async () => {
    fake.reset();
    fake.respond((req) => answer(req));
    const { url, homes, open } = await hosts("start_under_lock", 2);
    const [hostA, hostB] = [await open(homes[0]!), await open(homes[1]!)];
    await hostA.add("team", exchanges("alpha", 2));
    const sql = new Bun.SQL(url, { max: 1 });
    try {
      let written = 0n;
      const running = await hostB.ctx.withSessionLock("team", async () => {
        // Host B is mid-write (it holds the lock, its time taken) when host A starts a run.
        const run = hostA.summarize("team");
        await waitFor(
          async () => (await sql`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`).length > 0,
          30_000,
          "host A waiting for the session's lock",
        );
        written = hostB.ctx.now();
        await hostB.ctx.archive.appendMessages(
          "team",
          [{ id: "late-1", role: "user", content: "one more question", sendAt: BigInt(T0 + 99_000) * 1_000_000n }],
          { now: written },
        );
        return { run }; // not the promise itself: the lock would be held until the run ends
      });
      expect((await running.run).sessions).toMatchObject([{ session: "team", outcome: "ok", messages: 5, waiting: 1 }]);
      const run = (await hostA.ctx.archive.getSummaryRun("team"))!;
      expect(run.startedAt).toBeGreaterThan(written);
    } finally {
      await sql.close();
    }
  }, 120_000);

  test("the daily token budget is one for every host", async () => {
    fake.reset();
    fake.respond((req) => answer(req));
    const { homes, open } = await hosts("budget", 2, "[summary]\ndaily_token_budget = 50");
    const [hostA, hostB] = [await open(homes[0]!), await open(homes[1]!)];
    await hostA.add("one", exchanges("gamma", 2));
    await hostB.add("two", exchanges("delta", 2));
    expect((await hostA.summarize("one")).sessions[0]!.outcome).toBe("ok");
    expect((await hostB.dailyBudget()).spent).toBe(true);
    const r = (await hostB.summarize("two")).sessions[0]!;
    expect(r.outcome).toBe("failed");
    expect(r.error).toContain("the daily token budget is spent");
    expect(fake.calls).toBe(1);
  }, 120_000);

  test("with a budget, LLM calls take turns across hosts (the budget lease): a second host's call waits for the first", async () => {
    fake.reset();
    const arrivals: number[] = [];
    const DELAY = 800;
    fake.respond((req) => {
      arrivals.push(performance.now());
      return { delayMs: DELAY, then: answer(req) };
    });
    const { homes, open } = await hosts("turns", 2, "[summary]\ndaily_token_budget = 1000000");
    const [hostA, hostB] = [await open(homes[0]!), await open(homes[1]!)];
    await hostA.add("a", exchanges("eta", 1));
    await hostB.add("b", exchanges("theta", 1));
    const [ra, rb] = await Promise.all([hostA.summarize("a"), hostB.summarize("b")]);
    expect([ra.sessions[0]!.outcome, rb.sessions[0]!.outcome]).toEqual(["ok", "ok"]);
    expect(arrivals).toHaveLength(2);
    // The second request is sent only once the first has been answered (and its tokens counted).
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(DELAY - 50);
    expect(await hostA.ctx.archive.leaseHolder("llm-budget", "*")).toBeUndefined();
  }, 120_000);

  test("context applies the relevance filter with the decision model, its usage in the archive", async () => {
    fake.reset();
    const toml = 'decision_model = "claude-haiku-5-5"\n[context]\nrelevance_timeout_ms = 60000';
    const { homes, open } = await hosts("relevance", 2, toml);
    const [hostA, hostB] = [await open(homes[0]!), await open(homes[1]!)];
    await hostA.add("r", exchanges("epsilon", 2));
    const summary = {
      key_decisions: ["Do: answer in English", "Don't: deploy on Fridays"],
      past_discussions: [{ topic: "database choice", description: "PostgreSQL", direction: "", last_discussed: "" }],
      current_discussion: current("release notes"),
    };
    await hostA.ctx.archive.putSummaryState("r", { summary: JSON.stringify(summary), cursor: "" }, 1n);
    fake.push({ json: { key_decisions: [0], past_discussions: [0], current_discussion: false } });
    const ctx = await hostB.context("r", "Which database did we pick?");
    expect(ctx.summaryFilter).toEqual({ outcome: "some", kept: 2, total: 4 });
    const block = ctx.messages.find((m) => m.kind === "summary")!.content;
    expect(block).toContain("database choice");
    expect(block).not.toContain("Fridays");
    expect(fake.calls).toBe(1);
    const req = fake.requests[0]!;
    expect(isRelevance(req)).toBe(true);
    expect(req.model).toBe("claude-haiku-5-5");
    expect(req.messages[0]!.content).toContain("Which database did we pick?");
    expect((await hostA.summary("r")).usage.map((u) => u.purpose)).toEqual(["relevance"]);
    // A failed check keeps every entry, as in the embedded mode.
    fake.push({ status: 500 });
    const kept = await hostA.context("r", "anything else?");
    expect(kept.summaryFilter).toMatchObject({ outcome: "failed", kept: 4, total: 4 });
  }, 120_000);

  for (const [what, removal] of [
    ["rm", (h: SharedHome) => h.remove("gone")],
    ["reset --all", (h: SharedHome) => h.reset("gone", { all: true })],
  ] as const)
    test(`${what} on one host while another host summarizes the session: the run saves nothing`, async () => {
      fake.reset();
      let removed!: () => void;
      const until = new Promise<void>((resolve) => (removed = resolve));
      fake.respond((req) => ({ until, then: answer(req) }));
      const { homes, open } = await hosts(`removed_${what.replace(/\W/g, "")}`, 2);
      const [hostA, hostB] = [await open(homes[0]!), await open(homes[1]!)];
      await hostA.add("gone", exchanges("iota", 3));
      const run = hostA.summarize("gone");
      await fake.waitForCalls(1, 60_000);
      await removal(hostB);
      removed();
      const report = (await run).sessions[0]!;
      expect(report.outcome).toBe("failed");
      expect(report.error).toContain("the summary of gone was removed");
      expect(await hostA.ctx.archive.getSummaryState("gone")).toBeUndefined();
      expect(await hostA.ctx.archive.getSummaryRun("gone")).toBeUndefined();
      for (const f of ["summary.json", ".summary_cursor"])
        expect(existsSync(join(homes[0]!, "sessions", "gone", f))).toBe(false);
      // The name used again: the new session starts with no summary.
      await hostB.add("gone", { role: "user", content: "a new session that reuses the name" });
      const context = await hostA.context("gone");
      expect(context.messages.map((m) => m.kind)).not.toContain("summary");
      // rm takes everything of the session: the call in flight is not charged to the new session of that name,
      // yet it counts toward today's tokens. reset --all keeps the session and its usage.
      expect((await hostA.summary("gone")).usage.map((u) => u.calls)).toEqual(what === "rm" ? [] : [1]);
      expect((await hostA.dailyBudget()).usedToday).toBe(fake.inputTokens + fake.outputTokens);
    }, 120_000);

  test("rm of a summarized session keeps its calls in today's tokens, under no session", async () => {
    fake.reset();
    fake.respond((req) => answer(req));
    const { homes, open } = await hosts("rm_keeps_usage", 1);
    const host = await open(homes[0]!);
    await host.add("paid", exchanges("kappa", 2));
    expect((await host.summarize("paid")).sessions[0]!.outcome).toBe("ok");
    const spent = fake.inputTokens + fake.outputTokens;
    await host.remove("paid");
    expect((await host.dailyBudget()).usedToday).toBe(spent);
    await host.add("paid", { role: "user", content: "a new session that reuses the name" });
    expect((await host.summary("paid")).usage).toEqual([]);
  }, 120_000);

  test("two daemons: one summarizes a session at a time; killed mid-call, the other takes the job after the lease runs out", async () => {
    fake.reset();
    // The first summary call hangs (the holder is killed while it is in flight); later ones answer.
    fake.push({ hang: true });
    fake.respond((req) => answer(req));
    const toml = [
      "[summary]",
      'cron = "* * * * * *"',
      "[http]",
      "enabled = false",
      "[daemon]",
      "embed_interval_ms = 60000",
      // No embedding in the daemons (an unreachable embedder fails at once): the builtin one computes in
      // the daemon's own process for seconds under load, which would delay lease renewals past 2 s.
      "[embedder]",
      'provider = "ollama"',
      'base_url = "http://127.0.0.1:9"',
      "max_retries = 0",
    ].join("\n");
    const { env, homes, open } = await hosts("daemons", 2, toml);
    const probe = await open(homes[0]!);
    await probe.add("job", exchanges("zeta", 2));
    const lease = { MEMVOY_ARCHIVE_LEASE_MS: "2000" };
    const daemons = homes.map((h) => startDaemon(h, { ...env, ...lease }));
    await Promise.all(daemons.map((d) => waitRunning(d, 60_000)));

    await fake.waitForCalls(1, 60_000);
    const holder = await waitFor(() => probe.ctx.archive.leaseHolder("summary", "job"), 30_000, "the lease holder");
    const pid = Number(/:(\d+)#/.exec(holder!.holder)?.[1]);
    const owner = daemons.find((d) => d.proc.pid === pid)!;
    const other = daemons.find((d) => d !== owner)!;
    expect(owner).toBeDefined();
    // The other daemon finds the session due and the lease taken: busy, and no second call.
    await waitFor(() => /summary\.done session=job .*outcome=busy/.test(logText(other.home)), 30_000, "a busy tick");
    expect(fake.calls).toBe(1);

    owner.proc.kill("SIGKILL");
    await owner.exited;
    const done = await waitFor(
      async () => {
        const run = await probe.ctx.archive.getSummaryRun("job");
        return run?.outcome === "ok" ? run : undefined;
      },
      60_000,
      "the other daemon's run",
    );
    expect(done!.calls).toBe(1);
    expect(fake.calls).toBe(2);
    expect(fake.requests.filter((r) => r.status === 200)).toHaveLength(1);
    const state = (await probe.ctx.archive.getSummaryState("job"))!;
    expect(state.version).toBe(1n);
    expect(JSON.parse(state.summary).current_discussion.topic).toBe("zeta");
    const usage = await probe.ctx.archive.usageTotals("job");
    expect(usage.map((u) => [u.purpose, u.calls])).toEqual([["summary", 1]]);
    await waitFor(() => /summary\.done session=job .*outcome=ok/.test(logText(other.home)), 30_000, "the done line");
    // Its lease is given back once the run ends.
    await waitFor(async () => (await probe.ctx.archive.leaseHolder("summary", "job")) === undefined, 30_000, "release");
    other.proc.kill("SIGTERM");
    expect(await other.exited).toBe(0);
  }, 180_000);
});
