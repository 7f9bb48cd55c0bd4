// The summary cron in a real daemon on a per-second schedule, against the fake Anthropic server.
import { Database } from "bun:sqlite";
import { afterAll, setDefaultTimeout, beforeAll, beforeEach, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, type FakeAnthropic, type FakeRequest } from "../fixture/fake-anthropic.ts";
import {
  cleanup,
  cli,
  daemonState,
  logText,
  startDaemon,
  tempHome,
  waitFor,
  waitRunning,
  type Daemon,
} from "../fixture/daemon-process.ts";
import { holdWriterLock } from "../fixture/writer-lock-holder.ts";

// Real processes (bun start-up, LanceDB) and back-off waits: give each test room.
setDefaultTimeout(60_000);

let fake: FakeAnthropic;
const SUMMARY = {
  key_decisions: ["Do: answer in short bullet points"],
  past_discussions: [],
  current_discussion: {
    topic: "deployment",
    description: "moving the service to the new cluster",
    perspectives: "",
    direction: "rollout next week",
  },
};

beforeAll(async () => {
  fake = await startFakeAnthropic();
});
afterAll(async () => {
  cleanup();
  await fake.stop();
});
beforeEach(() => {
  fake.reset();
  fake.respond(() => ({ json: SUMMARY, tag: "summary" }));
});

function summaryHome(extra = ""): string {
  const home = tempHome();
  writeFileSync(join(home, "config.toml"), `[summary]\ncron = "* * * * * *"\nmax_retries = 0\n${extra}`);
  return home;
}

const env = () => ({ ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url });

async function addExchange(home: string, session: string, words: string): Promise<void> {
  for (const [role, content] of [
    ["user", `question about ${words}`],
    ["assistant", `answer about ${words}`],
  ]) {
    const r = await cli(home, ["add", session, "--role", role!, "--content", content!], env());
    expect(r.code, r.stderr).toBe(0);
  }
}

/** The session's last summary run has finished (so the next one starts from a settled summary.json). */
function daemonIdleOn(home: string, session: string): boolean {
  const db = new Database(join(home, ".store", "history.db"), { readonly: true });
  try {
    const r = db.query("SELECT outcome FROM summary_runs WHERE session_id = ?").get(session) as {
      outcome: string;
    } | null;
    return r !== null && r.outcome !== "running";
  } finally {
    db.close();
  }
}

/** Runs of the session that summarized something (outcome ok), as the daemon log records them. */
const okRuns = (home: string, session: string) =>
  logText(home)
    .split("\n")
    .filter((l) => l.includes(`summary.done session=${session} `) && l.includes("outcome=ok")).length;
const callsFor = (marker: string) =>
  fake.requests.filter((r: FakeRequest) => r.messages.some((m) => m.content.includes(marker))).length;
const summaryPath = (home: string, s: string) => join(home, "sessions", s, "summary.json");

async function stop(d: Daemon): Promise<void> {
  d.proc.kill("SIGTERM");
  expect(await d.exited).toBe(0);
}

test("messages from another process are summarized within a few ticks; the mtime gate holds; temp- is skipped", async () => {
  const home = summaryHome();
  const d = startDaemon(home, env());
  await waitRunning(d);
  await addExchange(home, "alpha", "alphamarker");
  await addExchange(home, "temp-scratch", "tempmarker");
  // The run sets summary.json's mtime back to its start once the file is saved: read it after the run ends.
  await waitFor(
    () => existsSync(summaryPath(home, "alpha")) && daemonIdleOn(home, "alpha"),
    15_000,
    "alpha's summary run to end",
  );
  const alphaText = readFileSync(summaryPath(home, "alpha"), "utf8");
  expect(JSON.parse(alphaText)).toMatchObject({ key_decisions: SUMMARY.key_decisions });
  const alphaMtime = statSync(summaryPath(home, "alpha")).mtimeMs;

  // Later ticks: a new session gets its summary, alpha (untouched since) is not summarized again. A run that
  // began before the add's history.json write landed leaves alpha due once more: that run finds nothing new,
  // calls nothing and rewrites nothing but the gate's mtime.
  await addExchange(home, "beta", "betamarker");
  await waitFor(() => existsSync(summaryPath(home, "beta")), 15_000, "beta's summary");
  expect(callsFor("alphamarker")).toBe(1);
  expect(callsFor("betamarker")).toBe(1);
  expect(callsFor("tempmarker")).toBe(0);
  expect(existsSync(summaryPath(home, "temp-scratch"))).toBe(false);
  expect(readFileSync(summaryPath(home, "alpha"), "utf8")).toBe(alphaText);
  expect(okRuns(home, "alpha")).toBe(1);

  // New messages in alpha make it due again.
  await addExchange(home, "alpha", "alphamarker second");
  await waitFor(
    () =>
      callsFor("alphamarker second") === 1 &&
      okRuns(home, "alpha") === 2 &&
      statSync(summaryPath(home, "alpha")).mtimeMs > alphaMtime,
    15_000,
    "alpha's second summary",
  );
  const log = logText(home);
  expect(log).toMatch(/summary\.done session=alpha /);
  expect(log).not.toContain("session=temp-scratch");
  expect(log).not.toContain("alphamarker");
  await stop(d);
});

test("a failed LLM call is retried at the next tick and succeeds", async () => {
  const home = summaryHome();
  fake.push({ status: 500, message: "fake outage" });
  const d = startDaemon(home, env());
  await waitRunning(d);
  await addExchange(home, "gamma", "gammamarker");
  // Other jobs' lines (the embedding child's) may come in between: look at gamma's own lines.
  const retried =
    /summary\.fail session=gamma .*\n.*summary\.start session=gamma retry=true\n(?:.*\n)*?.*summary\.done session=gamma .*outcome=ok/;
  const gammaLines = () =>
    logText(home)
      .split("\n")
      .filter((l) => l.includes("session=gamma"))
      .join("\n");
  await waitFor(() => retried.test(gammaLines()), 15_000, "gamma's summary after a retry");
  expect(existsSync(summaryPath(home, "gamma"))).toBe(true);
  expect(callsFor("gammamarker")).toBe(2);
  const state = await waitFor(
    () => {
      const s = daemonState(home);
      return s?.jobs?.summaries?.lastResult === "ok" ? s : undefined;
    },
    10_000,
    "the summaries job to record its recovery",
  );
  expect(state.jobs.summaries.failures).toBe(1);
  expect(state.lastError).toMatchObject({ job: "summaries" });
  expect(state.lastError.message).toContain("gamma");
  const st = await cli(home, ["daemon", "status"]);
  expect(st.stdout).toContain("last error:");
  expect(st.stdout).toContain("gamma");
  await stop(d);
});

test("kill -9 during a run, then a restart: the lock is recovered, files are intact, the summary catches up", async () => {
  const home = summaryHome();
  fake.push({ hang: true });
  const d = startDaemon(home, env());
  await waitRunning(d);
  await addExchange(home, "delta", "deltamarker");
  await fake.waitForCalls(1, 15_000);
  d.proc.kill(9);
  await d.exited;
  expect(existsSync(summaryPath(home, "delta"))).toBe(false);
  JSON.parse(readFileSync(join(home, "sessions", "delta", "history.json"), "utf8"));

  const again = startDaemon(home, env());
  await waitRunning(again);
  await waitFor(() => existsSync(summaryPath(home, "delta")), 15_000, "delta's summary after the restart");
  expect(JSON.parse(readFileSync(summaryPath(home, "delta"), "utf8"))).toMatchObject({
    current_discussion: { topic: "deployment" },
  });
  const doctor = await cli(home, ["doctor", "--json"], env());
  expect(doctor.code, doctor.stdout).toBe(0);
  await stop(again);
});

test("SIGTERM during a hung LLM call: exit 0 within 5 s, summary.json unchanged", async () => {
  const home = summaryHome();
  const d = startDaemon(home, env());
  await waitRunning(d);
  await addExchange(home, "eps", "epsmarker");
  // Generous bounds: under load a tick, a worker and two `add` processes can take many seconds; the waits
  // poll, so an unloaded run is as fast as before.
  await waitFor(
    () => existsSync(summaryPath(home, "eps")) && daemonIdleOn(home, "eps"),
    60_000,
    "eps's first summary, its run finished",
  );
  const before = readFileSync(summaryPath(home, "eps"), "utf8");

  fake.respond(() => ({ hang: true }));
  const calls = fake.calls;
  await addExchange(home, "eps", "epsmarker again");
  await fake.waitForCalls(calls + 1, 60_000);
  const t = performance.now();
  d.proc.kill("SIGTERM");
  expect(await d.exited).toBe(0);
  expect(performance.now() - t).toBeLessThan(5000);
  expect(readFileSync(summaryPath(home, "eps"), "utf8")).toBe(before);
  expect(logText(home)).toContain("summary.abandoned session=eps");
});

test("daemon status shows the summaries job as running while a run lasts, and not once it ended", async () => {
  const home = summaryHome();
  const d = startDaemon(home, env());
  await waitRunning(d);
  const release = Promise.withResolvers<void>();
  fake.respond(() => ({ until: release.promise, then: { json: SUMMARY, tag: "summary" } }));
  await addExchange(home, "zeta", "zetamarker");
  await fake.waitForCalls(1, 60_000);
  const job = async () => {
    const r = await cli(home, ["daemon", "status", "--json"], env());
    return JSON.parse(r.stdout).jobs.find((j: { name: string }) => j.name === "summaries");
  };
  await waitFor(async () => (await job()).running === true, 15_000, "summaries shown as running");
  release.resolve();
  await waitFor(
    async () => {
      const j = await job();
      return j.running === false && j.lastResult === "ok";
    },
    15_000,
    "summaries shown as done",
  );
  await stop(d);
});

test("daemon status after a kill -9 during a run says that run was interrupted, not the result of the one before", async () => {
  const home = summaryHome();
  const d = startDaemon(home, env());
  await waitRunning(d);
  await addExchange(home, "iota", "iotamarker");
  await waitFor(() => existsSync(summaryPath(home, "iota")) && daemonIdleOn(home, "iota"), 60_000, "iota's summary");
  await waitFor(() => daemonState(home)?.jobs?.summaries?.lastResult === "ok", 15_000, "a run recorded as ok");
  fake.respond(() => ({ hang: true }));
  const calls = fake.calls;
  await addExchange(home, "iota", "iotamarker again");
  await fake.waitForCalls(calls + 1, 60_000);
  // The state file says so once the run has lasted a second.
  await waitFor(() => daemonState(home)?.jobs?.summaries?.running === true, 15_000, "the run shown as running");
  const startedAt = Date.parse(daemonState(home).jobs.summaries.runningSince);
  d.proc.kill(9);
  await d.exited;

  const r = await cli(home, ["daemon", "status", "--json"], env());
  expect(r.code).toBe(1);
  const job = JSON.parse(r.stdout).jobs.find((j: { name: string }) => j.name === "summaries");
  expect(job).toMatchObject({ running: false, interrupted: true, lastResult: "error" });
  expect(job.lastDetail).toContain("interrupted");
  expect(Date.parse(job.lastRun)).toBe(startedAt);
  const text = await cli(home, ["daemon", "status"], env());
  expect(text.stdout).toMatch(/^summaries .*interrupted: the daemon ended during this run$/m);
});

test("SIGTERM between chunks: the chunk already saved stays, complete; the hung one is abandoned", async () => {
  const home = summaryHome("chunk_chars = 1000\n");
  const d = startDaemon(home, env());
  await waitRunning(d);
  const first = { ...SUMMARY, current_discussion: { ...SUMMARY.current_discussion, topic: "chunk one" } };
  fake.respond((req) => (req.n === 1 ? { json: first, tag: "summary" } : { hang: true }));
  const long = "x".repeat(450);
  const lines = Array.from({ length: 6 }, (_, i) =>
    JSON.stringify({ role: i % 2 ? "assistant" : "user", content: `zetamarker part ${i} ${long}` }),
  ).join("\n");
  const proc = Bun.spawn(["bun", join(import.meta.dir, "../../src/index.ts"), "--home", home, "add", "zeta"], {
    stdin: new TextEncoder().encode(lines),
    env: { PATH: process.env.PATH!, ...env() },
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(await proc.exited).toBe(0);
  await fake.waitForCalls(2, 15_000);
  const t = performance.now();
  d.proc.kill("SIGTERM");
  expect(await d.exited).toBe(0);
  expect(performance.now() - t).toBeLessThan(5000);
  const saved = JSON.parse(readFileSync(summaryPath(home, "zeta"), "utf8"));
  expect(saved.current_discussion.topic).toBe("chunk one");
});

test("a run waiting for another process's writer lock leaves the daemon's HTTP API answering; its summary lands once the lock is free", async () => {
  const home = summaryHome();
  const answer = Promise.withResolvers<void>();
  fake.push({ until: answer.promise, then: { json: SUMMARY, tag: "summary" } });
  const d = startDaemon(home, env());
  await waitRunning(d);
  const httpFile = join(home, "http.json");
  await waitFor(() => existsSync(httpFile), 15_000, "http.json");
  const { url, token } = JSON.parse(readFileSync(httpFile, "utf8"));
  const health = () =>
    fetch(`${url}/v1/health`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(2000) });
  await addExchange(home, "theta", "thetamarker");
  await fake.waitForCalls(1, 15_000);

  // Another process (an import, a large add) holds the home's writer lock and its SQLite write transaction.
  const holder = await holdWriterLock(home);
  answer.resolve();
  await waitFor(() => fake.requests[0]!.status === 200, 15_000, "the summary answer to be sent");
  // The run now has its answer and waits for the lock to record it: the daemon still answers meanwhile.
  for (let i = 0; i < 5; i++) {
    expect((await health()).status).toBe(200);
    await Bun.sleep(100);
  }
  expect(holder.proc.exitCode).toBeNull();
  expect(existsSync(summaryPath(home, "theta"))).toBe(false);
  await holder.release();
  expect(holder.proc.exitCode).toBe(0);
  await waitFor(
    () => existsSync(summaryPath(home, "theta")) && daemonIdleOn(home, "theta"),
    15_000,
    "theta's summary once the lock is free",
  );
  expect(JSON.parse(readFileSync(summaryPath(home, "theta"), "utf8"))).toMatchObject({
    key_decisions: SUMMARY.key_decisions,
  });
  await stop(d);
});

test("a notice from the SDK (a deprecated model id) is logged once, not at every run", async () => {
  const home = summaryHome('model = "claude-sonnet-4-5"\n');
  const d = startDaemon(home, env());
  await waitRunning(d);
  for (const s of ["iota", "kappa"]) await addExchange(home, s, `${s}marker`);
  await waitFor(
    () => ["iota", "kappa"].every((s) => existsSync(summaryPath(home, s)) && daemonIdleOn(home, s)),
    30_000,
    "both summaries",
  );
  await addExchange(home, "iota", "iotamarker again");
  await waitFor(() => okRuns(home, "iota") === 2, 30_000, "iota's second summary");
  const warnings = logText(home)
    .split("\n")
    .filter((l) => l.includes("summary.warning"));
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toContain("claude-sonnet-4-5");
  await stop(d);
});
