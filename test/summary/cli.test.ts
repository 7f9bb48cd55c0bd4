// `memvoy summarize` and `memvoy summary` as real processes against the fake Messages API.
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openMemory } from "../../src/app/open-memory.ts";
import { startFakeAnthropic, type FakeAnthropic } from "../fixture/fake-anthropic.ts";
import { current, summaryStep } from "../fixture/summary-home.ts";
import { processOutput } from "../fixture/process-output.ts";
import { tryLockFile } from "../../src/shared/file-lock.ts";

const entry = resolve(import.meta.dir, "../../src/index.ts");
let fake: FakeAnthropic;
let home: string;
beforeAll(async () => (fake = await startFakeAnthropic()));
afterAll(() => fake.stop());
beforeEach(() => {
  fake.reset();
  home = mkdtempSync(join(tmpdir(), "memvoy-summary-cli-"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

async function memvoy(args: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn(["bun", entry, "--home", home, ...args], {
    cwd: tmpdir(),
    env: {
      PATH: process.env.PATH!,
      HOME: tmpdir(),
      TZ: "UTC",
      ANTHROPIC_API_KEY: fake.apiKey,
      ANTHROPIC_BASE_URL: fake.url,
      ...env,
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  return processOutput(proc);
}

/** Two messages in session s1, written in-process (no background embedding drain). */
function seed() {
  const api = openMemory({ home, env: {}, drain: "off" });
  api.add("s1", [
    { role: "user", content: "Shall we use Postgres?", sendAt: "2026-05-01T09:00:00Z" },
    { role: "assistant", content: "Yes, Postgres it is.", sendAt: "2026-05-01T09:00:05Z" },
  ]);
  api.close();
}

test("summarize shows progress per chunk on stderr and ends with what changed; summary --json shows it all", async () => {
  seed();
  fake.push(summaryStep({ key_decisions: ["Do: use Postgres"], current_discussion: current("database") }));
  const r = await memvoy(["summarize", "--progress"]);
  expect(r.code).toBe(0);
  expect(r.stderr).toContain("s1: 2 new message(s)");
  expect(r.stderr).toContain("s1: chunk 1/1 (");
  expect(r.stderr).toContain("s1: chunk 1/1 saved (");
  expect(r.stdout).toContain("s1: ok · 1/1 chunk(s) · 1 call(s)");
  expect(r.stdout).toContain("cursor 2026-05-01 09:00:05 local");
  expect(r.stdout).toContain("  + Do: use Postgres");
  expect(r.stdout).toContain("  current topic: (none) → database");

  const again = await memvoy(["summarize"]);
  expect([again.code, again.stdout.trim()]).toEqual([0, "nothing to summarize: no session is due"]);

  const view = await memvoy(["summary", "s1", "--json"]);
  expect(view.code).toBe(0);
  const v = JSON.parse(view.stdout);
  expect(v.summary.key_decisions).toEqual(["Do: use Postgres"]);
  expect(v.cursor).toBe("2026-05-01 09:00:05");
  expect(v.position.seq).toBe(2);
  expect(v.lastRun.outcome).toBe("ok");
  expect(v.lastRun.finishedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/);
  expect(v.lastRun.inputTokens).toBe(fake.requests[0]!.inputTokens);
  expect(v.usage).toEqual([
    {
      purpose: "summary",
      model: "claude-sonnet-5-5",
      calls: 1,
      inputTokens: fake.requests[0]!.inputTokens,
      outputTokens: fake.requests[0]!.outputTokens,
    },
  ]);
  expect(v.due).toBe(false);

  const text = await memvoy(["summary", "s1"]);
  expect(text.stdout).toContain("Key decisions\n  Do: use Postgres");
  expect(text.stdout).toContain("Cursor: 2026-05-01 09:00:05 local");
  expect(text.stdout).toContain("Last run:");
});

test("summarize shows the model's decisions and topics as text: escape sequences in them never reach the terminal", async () => {
  seed();
  fake.push(
    summaryStep({
      key_decisions: ["Do: use \x1b]0;owned\x07Postgres\x1b[2J"],
      past_discussions: [{ topic: "red\x1b[31m tape", description: "d", direction: "", last_discussed: "" }],
      current_discussion: current("db\x1b[5m"),
    }),
  );
  const r = await memvoy(["summarize", "s1"]);
  expect(r.code).toBe(0);
  expect(r.stdout).not.toContain("\x1b");
  expect(r.stdout).not.toContain("\x07");
  expect(r.stdout).toContain("  + Do: use Postgres\n");
  expect(r.stdout).toContain("  + topic: red tape\n");
  expect(r.stdout).toContain("  current topic: (none) → db\n");
});

test("summarize of every due session: one whose history.json is a link fails alone, named; the others are summarized", async () => {
  seed();
  const api = openMemory({ home, env: {}, drain: "off" });
  api.add("a-linked", [
    { role: "user", content: "Which queue?", sendAt: "2026-05-01T09:00:00Z" },
    { role: "assistant", content: "SQS.", sendAt: "2026-05-01T09:00:05Z" },
  ]);
  api.close();
  const file = join(home, "sessions", "a-linked", "history.json");
  renameSync(file, join(home, "outside.json"));
  symlinkSync(join(home, "outside.json"), file);
  fake.respond(() => summaryStep({ key_decisions: ["Do: use Postgres"], current_discussion: current("database") }));
  const r = await memvoy(["summarize", "--json"]);
  expect(r.code).toBe(1);
  const sessions = JSON.parse(r.stdout).sessions as { session: string; outcome: string; error?: string }[];
  expect(sessions.map((s) => [s.session, s.outcome])).toEqual([
    ["a-linked", "failed"],
    ["s1", "ok"],
  ]);
  expect(sessions[0]!.error).toContain(`${file} is a symbolic link`);
  // Named, the session is refused as every command refuses it.
  const named = await memvoy(["summarize", "a-linked"]);
  expect(named.code).toBe(2);
  expect(named.stderr).toContain(`${file} is a symbolic link`);
});

test("summarize of every due session: a folder where a session's lock or summary.json belongs fails that session alone, named", async () => {
  const api = openMemory({ home, env: {}, drain: "off" });
  for (const s of ["a-lock", "b-summary", "c-ok"])
    api.add(s, [
      { role: "user", content: "Which queue?", sendAt: "2026-05-01T09:00:00Z" },
      { role: "assistant", content: "SQS.", sendAt: "2026-05-01T09:00:05Z" },
    ]);
  api.close();
  mkdirSync(join(home, "sessions", "a-lock", ".summary.lock"));
  mkdirSync(join(home, "sessions", "b-summary", "summary.json"));
  fake.respond(() => summaryStep({ key_decisions: ["Do: use SQS"], current_discussion: current("queues") }));
  const r = await memvoy(["summarize", "--json"]);
  expect(r.code).toBe(1);
  const sessions = JSON.parse(r.stdout).sessions as {
    session: string;
    outcome: string;
    error?: string;
    notes: string[];
  }[];
  // summary.json a folder: not due (nothing newer than it), so only a-lock fails; c-ok is summarized all the same.
  expect(sessions.map((s) => [s.session, s.outcome])).toEqual([
    ["a-lock", "failed"],
    ["c-ok", "ok"],
  ]);
  expect(sessions[0]!.error).toBe(
    `${join(home, "sessions", "a-lock", ".summary.lock")} is a folder where memvoy keeps a file: move it aside`,
  );
  const named = await memvoy(["summarize", "b-summary", "--json"]);
  expect(named.code).toBe(1);
  const b = JSON.parse(named.stdout).sessions[0];
  expect([b.outcome, b.error]).toEqual([
    "failed",
    `${join(home, "sessions", "b-summary", "summary.json")} is a folder where memvoy keeps a file: move it aside`,
  ]);
  // The error says it all: no "unexpected" note beside it.
  expect([...sessions.flatMap((s) => s.notes), ...b.notes]).toEqual([]);
});

test("context with a folder where summary.json belongs leaves the summary out and says why; the turn still gets its messages", async () => {
  seed();
  mkdirSync(join(home, "sessions", "s1", "summary.json"));
  const r = await memvoy(["context", "s1", "--input", "and now?", "--json"]);
  expect([r.code, r.stderr]).toEqual([0, ""]);
  const ctx = JSON.parse(r.stdout);
  expect(ctx.messages.map((m: { kind: string }) => m.kind)).toEqual(["history", "history", "input"]);
  expect(ctx.summaryProblem).toBe(
    `${join(home, "sessions", "s1", "summary.json")} is a folder where memvoy keeps a file: move it aside`,
  );
});

test("summarize --json: one document; a failed chunk exits 1", async () => {
  seed();
  fake.push({ text: "no summary for you" });
  const r = await memvoy(["summarize", "s1", "--json"], { MEMVOY_SUMMARY_MAX_RETRIES: "0" });
  expect(r.code).toBe(1);
  const doc = JSON.parse(r.stdout);
  expect(doc.sessions[0].outcome).toBe("failed");
  expect(doc.sessions[0].error).toContain("chunk 1/1");
  expect(r.stderr).toBe("");
});

test("summarize SESSION finding another process summarizing it exits 1 (not summarized); a batch leaves it to that process", async () => {
  seed();
  const release = tryLockFile(join(home, "sessions", "s1", ".summary.lock"))!;
  try {
    const one = await memvoy(["summarize", "s1"]);
    expect([one.code, one.stdout]).toEqual([1, expect.stringContaining("s1: busy")]);
    const json = await memvoy(["summarize", "s1", "--json"]);
    expect([json.code, JSON.parse(json.stdout).sessions[0].outcome]).toEqual([1, "busy"]);
    const batch = await memvoy(["summarize"]);
    expect([batch.code, batch.stdout]).toEqual([0, expect.stringContaining("s1: busy")]);
  } finally {
    release();
  }
  expect(fake.calls).toBe(0);
});

test("a missing ANTHROPIC_API_KEY: one line on stderr, exit 2, nothing changed", async () => {
  seed();
  const before = readdirSync(join(home, "sessions", "s1")).sort();
  const r = await memvoy(["summarize"], { ANTHROPIC_API_KEY: "" });
  expect(r.code).toBe(2);
  expect(r.stdout).toBe("");
  expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(r.stderr).toStartWith("memvoy: ANTHROPIC_API_KEY is not set");
  expect(readdirSync(join(home, "sessions", "s1")).sort()).toEqual(before);
  const json = await memvoy(["summarize", "s1", "--json"], { ANTHROPIC_API_KEY: "" });
  expect(JSON.parse(json.stdout).error.code).toBe("MissingApiKeyError");
  expect((await memvoy(["summary", "s1", "--json"])).stdout).toContain('"lastRun": null');
  expect(fake.calls).toBe(0);
});

test("help, usage errors and an unknown session", async () => {
  const help = await memvoy(["summarize", "--help"]);
  expect(help.code).toBe(0);
  expect(help.stdout).toContain("YYYY-MM-DD HH:MM:SS");
  expect(help.stdout).toContain("local time");
  expect((await memvoy(["summary", "--help"])).stdout).toContain("Usage: memvoy summary SESSION");
  expect((await memvoy(["summary"])).code).toBe(2);
  const unknown = await memvoy(["summarize", "nope"]);
  expect([unknown.code, unknown.stderr.trim()]).toEqual([2, `memvoy: no such session "nope" in ${home}`]);
  expect((await memvoy(["summary", "../x"])).code).toBe(2);
  expect(existsSync(join(home, "sessions", "nope"))).toBe(false);
});
