// The summary cursor convention: .summary_cursor is local time (Agenvoy's), rounded down; the exact
// position in SQLite survives a reset; untimed records reach Generate exactly once. Run as real processes
// with TZ=Asia/Taipei (UTC+8) where the timezone matters.
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openMemory } from "../../src/app/open-memory.ts";
import { startFakeAnthropic, type FakeAnthropic } from "../fixture/fake-anthropic.ts";
import { current, summaryStep, transcriptEntries, transcriptOf } from "../fixture/summary-home.ts";
import { processOutput } from "../fixture/process-output.ts";

const entry = resolve(import.meta.dir, "../../src/index.ts");
let fake: FakeAnthropic;
let home: string;
beforeAll(async () => (fake = await startFakeAnthropic()));
afterAll(() => fake.stop());
beforeEach(() => {
  fake.reset();
  fake.respond(() => summaryStep({ current_discussion: current("t") }));
  home = mkdtempSync(join(tmpdir(), "memvoy-cursor-"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

async function memvoy(args: string[], tz = "Asia/Taipei") {
  const proc = Bun.spawn(["bun", entry, "--home", home, ...args], {
    cwd: tmpdir(),
    env: {
      PATH: process.env.PATH!,
      HOME: tmpdir(),
      TZ: tz,
      ANTHROPIC_API_KEY: fake.apiKey,
      ANTHROPIC_BASE_URL: fake.url,
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  return processOutput(proc);
}

const ns = (iso: string) => BigInt(Date.parse(iso)) * 1_000_000n;
const sessionDir = (s: string) => join(home, "sessions", s);
const cursorOf = (s: string) => readFileSync(join(sessionDir(s), ".summary_cursor"), "utf8").trim();
const summarized = () =>
  fake.requests.flatMap((r) => transcriptEntries(transcriptOf(r.messages[0]!.content)).map((e) => e.text));

/** An Agenvoy session folder: integer-ns sendAt, no ids; a summary and a cursor as Agenvoy left them. */
function agenvoyHome(session: string, records: { role: string; content: string; sendAt?: bigint }[], cursor: string) {
  mkdirSync(sessionDir(session), { recursive: true });
  const raw = records.map((r) =>
    r.sendAt === undefined
      ? { role: r.role, content: r.content }
      : { role: r.role, content: r.content, sendAt: Number(r.sendAt) },
  );
  // JSON.stringify cannot write a 19-digit integer exactly: splice the digits in as text.
  let text = JSON.stringify(raw, null, 2);
  records.forEach(
    (r) => r.sendAt !== undefined && (text = text.replace(String(Number(r.sendAt)), r.sendAt.toString())),
  );
  writeFileSync(join(sessionDir(session), "history.json"), text);
  writeFileSync(
    join(sessionDir(session), "summary.json"),
    JSON.stringify({ key_decisions: ["Do: keep it short"], past_discussions: [], current_discussion: current("old") }),
  );
  writeFileSync(join(sessionDir(session), ".summary_cursor"), cursor);
}

test("an Agenvoy cursor is local time: with TZ=Asia/Taipei the messages after it are summarized, and the new cursor is local", async () => {
  agenvoyHome(
    "s",
    [
      { role: "user", content: "old question", sendAt: ns("2026-10-05T09:04:00Z") },
      { role: "assistant", content: "old answer", sendAt: ns("2026-10-05T09:05:00Z") },
      { role: "user", content: "new question", sendAt: ns("2026-10-05T10:05:00Z") },
      { role: "assistant", content: "new answer", sendAt: ns("2026-10-05T10:06:30.900Z") },
    ],
    "2026-10-05 17:05:00", // = 09:05Z in Taipei
  );
  const r = await memvoy(["summarize", "s"]);
  expect(r.code).toBe(0);
  expect(summarized()).toEqual(["new question", "new answer"]);
  // Written in the same convention: local time, rounded down to the second.
  expect(cursorOf("s")).toBe("2026-10-05 18:06:30");
  const shown = await memvoy(["summary", "s"]);
  expect(shown.stdout).toContain("2026-10-05 18:06:30 local");
  // Nothing new: nothing is summarized again (no repeat).
  fake.reset();
  writeFileSync(join(sessionDir("s"), "history.json"), readFileSync(join(sessionDir("s"), "history.json")));
  expect((await memvoy(["summarize", "s"])).code).toBe(0);
  expect(fake.calls).toBe(0);
});

test("a cursor in a DST gap (a local time the clocks skipped) stands before the gap: the messages after it are summarized", async () => {
  agenvoyHome(
    "s",
    [
      { role: "user", content: "before the gap", sendAt: ns("2026-03-08T06:50:00Z") }, // 01:50 EST
      { role: "assistant", content: "answered before", sendAt: ns("2026-03-08T06:51:00Z") },
      { role: "user", content: "after the gap", sendAt: ns("2026-03-08T07:10:00Z") }, // 03:10 EDT
      { role: "assistant", content: "answered after", sendAt: ns("2026-03-08T07:11:00Z") },
    ],
    "2026-03-08 02:30:00", // no such time in New York: Agenvoy's text comparison puts it between the two pairs
  );
  expect((await memvoy(["summarize", "s"], "America/New_York")).code).toBe(0);
  expect(summarized()).toEqual(["after the gap", "answered after"]);
  expect(cursorOf("s")).toBe("2026-03-08 03:11:00");
});

test("a cursor written elsewhere with messages in its second: none is skipped", async () => {
  agenvoyHome(
    "s",
    [
      { role: "user", content: "q1", sendAt: ns("2026-10-05T10:00:00.100Z") },
      { role: "assistant", content: "a1", sendAt: ns("2026-10-05T10:00:00.200Z") },
      { role: "user", content: "q2", sendAt: ns("2026-10-05T10:00:00.700Z") },
      { role: "assistant", content: "a2", sendAt: ns("2026-10-05T10:00:00.800Z") },
    ],
    "2026-10-05 18:00:00",
  );
  expect((await memvoy(["summarize", "s"])).code).toBe(0);
  expect(summarized()).toEqual(["q1", "a1", "q2", "a2"]);
});

test("after a time zone change the cursor is rewritten in the new zone: the last summarized message's time", async () => {
  const api = openMemory({ home, env: {}, drain: "off" });
  api.add("s", [
    { role: "user", content: "Q1", sendAt: "2026-10-05T10:05:00Z" },
    { role: "assistant", content: "A1", sendAt: "2026-10-05T10:06:00Z" },
  ]);
  api.close();
  expect((await memvoy(["summarize", "s"])).code).toBe(0);
  expect(cursorOf("s")).toBe("2026-10-05 18:06:00"); // Taipei
  const again = openMemory({ home, env: {}, drain: "off" });
  again.add("s", [
    { role: "user", content: "Q2", sendAt: "2026-10-05T10:30:00Z" },
    { role: "assistant", content: "A2", sendAt: "2026-10-05T10:31:00Z" },
  ]);
  again.close();
  fake.reset();
  fake.respond(() => summaryStep({ current_discussion: current("t") }));
  expect((await memvoy(["summarize", "s"], "UTC")).code).toBe(0);
  expect(summarized()).toEqual(["Q2", "A2"]);
  // Read as UTC, "18:06" would stand 7.5 hours after A2: a reader of the file would skip what came in between.
  expect(cursorOf("s")).toBe("2026-10-05 10:31:00");
});

test("same-second messages after a reset are summarized (the exact position survives the reset)", async () => {
  const api = openMemory({ home, env: { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url }, drain: "off" });
  try {
    api.add("s", [
      { role: "user", content: "Q1", sendAt: "2026-10-05T10:00:00.100Z" },
      { role: "assistant", content: "A1", sendAt: "2026-10-05T10:00:00.200Z" },
    ]);
    expect((await api.summarize("s")).sessions[0]!.outcome).toBe("ok");
    expect(summarized()).toEqual(["Q1", "A1"]);
    api.reset("s");
    api.add("s", [
      { role: "user", content: "Q2", sendAt: "2026-10-05T10:00:00.700Z" },
      { role: "assistant", content: "A2", sendAt: "2026-10-05T10:00:00.800Z" },
    ]);
    fake.reset();
    fake.respond(() => summaryStep({ current_discussion: current("t") }));
    const r = (await api.summarize("s")).sessions[0]!;
    expect(r.outcome).toBe("ok");
    expect(r.messages).toBe(2);
    expect(summarized()).toEqual(["Q2", "A2"]);
    fake.reset();
    expect((await api.summarize("s")).sessions[0]!.messages).toBe(0);
  } finally {
    api.close();
  }
});

test("a cursor that holds no time is not a missing one: the run starts after the exact position and skips nothing", async () => {
  const api = openMemory({ home, env: { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url }, drain: "off" });
  try {
    api.add("s", [
      { role: "user", content: "Q1", sendAt: "2026-10-05T10:00:00Z" },
      { role: "assistant", content: "A1", sendAt: "2026-10-05T10:00:01Z" },
    ]);
    expect((await api.summarize("s")).sessions[0]!.outcome).toBe("ok");
    api.add("s", [
      { role: "user", content: "Q2", sendAt: "2026-10-05T11:00:00Z" },
      { role: "assistant", content: "A2", sendAt: "2026-10-05T11:00:01Z" },
    ]);
    writeFileSync(join(sessionDir("s"), ".summary_cursor"), "2026-10-05T10:00:01Z");
    fake.reset();
    fake.respond(() => summaryStep({ current_discussion: current("t") }));
    const r = (await api.summarize("s")).sessions[0]!;
    expect(r.outcome).toBe("ok");
    expect(summarized()).toEqual(["Q2", "A2"]);
    expect(r.notes).toContain('.summary_cursor holds "2026-10-05T10:00:01Z", not YYYY-MM-DD HH:MM:SS');
    expect(cursorOf("s")).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  } finally {
    api.close();
  }
});

test("a cursor holding a long garbled text is quoted by its first 40 characters: summary, doctor and the run's note are one short line", async () => {
  const api = openMemory({ home, env: { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url }, drain: "off" });
  try {
    api.add("s", [
      { role: "user", content: "Q1", sendAt: "2026-10-05T10:00:00Z" },
      { role: "assistant", content: "A1", sendAt: "2026-10-05T10:00:01Z" },
    ]);
    const garbled = "x".repeat(40) + "y".repeat(4000);
    writeFileSync(join(sessionDir("s"), ".summary_cursor"), garbled);
    const quoted = `"${"x".repeat(40)}…"`;
    expect((await api.summary("s")).cursorProblem).toBe(`not YYYY-MM-DD HH:MM:SS: ${quoted}`);
    const doctor = await memvoy(["doctor"]);
    expect(doctor.stdout).toContain(`s: .summary_cursor holds no time (${quoted}, not YYYY-MM-DD HH:MM:SS)`);
    expect(doctor.stdout).not.toContain("yyy");
    const r = (await api.summarize("s")).sessions[0]!;
    expect(r.notes).toContain(`.summary_cursor holds ${quoted}, not YYYY-MM-DD HH:MM:SS`);
  } finally {
    api.close();
  }
});

test("a cursor past 2262 or before 1677 (no 64-bit nanosecond time) holds no time: the run starts after the exact position", async () => {
  const api = openMemory({ home, env: { ANTHROPIC_API_KEY: fake.apiKey, ANTHROPIC_BASE_URL: fake.url }, drain: "off" });
  try {
    api.add("s", [
      { role: "user", content: "Q1", sendAt: "2026-10-05T10:00:00Z" },
      { role: "assistant", content: "A1", sendAt: "2026-10-05T10:00:01Z" },
    ]);
    expect((await api.summarize("s")).sessions[0]!.outcome).toBe("ok");
    let hour = 11;
    for (const text of ["9999-12-31 23:59:59", "2262-04-12 00:00:00", "1600-01-01 00:00:00"]) {
      api.add("s", [
        { role: "user", content: `Q${hour}`, sendAt: `2026-10-05T${hour}:00:00Z` },
        { role: "assistant", content: `A${hour}`, sendAt: `2026-10-05T${hour}:00:01Z` },
      ]);
      writeFileSync(join(sessionDir("s"), ".summary_cursor"), text);
      fake.reset();
      fake.respond(() => summaryStep({ current_discussion: current("t") }));
      const r = (await api.summarize("s")).sessions[0]!;
      expect(r.error).toBeUndefined();
      expect(r.outcome).toBe("ok");
      expect(summarized()).toEqual([`Q${hour}`, `A${hour}`]);
      expect(r.notes).toContain(`.summary_cursor holds "${text}", not YYYY-MM-DD HH:MM:SS`);
      hour++;
    }
  } finally {
    api.close();
  }
});

test("untimed records before the cursor reach Generate exactly once", async () => {
  agenvoyHome(
    "s",
    [
      { role: "user", content: "untimed question" },
      { role: "assistant", content: "untimed answer" },
      { role: "user", content: "timed question", sendAt: ns("2026-10-05T09:00:00Z") },
      { role: "assistant", content: "timed answer", sendAt: ns("2026-10-05T09:00:01Z") },
    ],
    "2026-10-05 17:30:00", // after every timed record
  );
  expect((await memvoy(["summarize", "s"])).code).toBe(0);
  expect(summarized()).toEqual(["untimed question", "untimed answer"]);
  expect(cursorOf("s")).toBe("2026-10-05 17:30:00"); // untimed records never move the cursor
  // A new exchange: only it is summarized; the untimed records are not sent again.
  fake.reset();
  fake.respond(() => summaryStep({ current_discussion: current("t") }));
  const api = openMemory({ home, env: {}, drain: "off" });
  api.add("s", [
    { role: "user", content: "later question", sendAt: "2026-10-05T10:00:00Z" },
    { role: "assistant", content: "later answer", sendAt: "2026-10-05T10:00:01Z" },
  ]);
  api.close();
  expect((await memvoy(["summarize", "s"])).code).toBe(0);
  expect(summarized()).toEqual(["later question", "later answer"]);
});
