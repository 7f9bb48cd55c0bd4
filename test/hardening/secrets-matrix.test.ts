// Secrets matrix: a model or server error that quotes a secret (each kind below, the configured keys too)
// never reaches daemon.log, --verbose stderr, daemon status, the CLI's stderr or SQLite (summary_runs.error);
// a 401 body is never kept; config show masks URL userinfo and query tokens.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { openMemory } from "../../src/app/open-memory.ts";
import { redactSecrets } from "../../src/shared/redact.ts";
import { SECRETS } from "../error-memory/secrets.ts";
import { startFakeAnthropic, type FakeAnthropic } from "../fixture/fake-anthropic.ts";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";
import { cleanup, cli as daemonCli, startDaemon, waitFor, waitRunning } from "../fixture/daemon-process.ts";

// A configured key with no recognisable shape: only its value, from the environment, can find it.
const CONFIGURED_KEY = "plain-configured-key-7Hq2Lm9Zx";
const CASES = [
  ...SECRETS,
  {
    name: "password=",
    text: "login failed: password=hunter2-Correct-Horse for admin",
    secretParts: ["hunter2-Correct-Horse"],
    keep: ["login failed"],
  },
  {
    name: "configured key value",
    text: `upstream echoed the key ${CONFIGURED_KEY} back`,
    secretParts: [CONFIGURED_KEY],
    keep: ["upstream echoed"],
  },
];
const ALL_PARTS = CASES.flatMap((c) => c.secretParts);
const leaks = (text: string) => ALL_PARTS.filter((p) => text.includes(p));

let fake: FakeAnthropic;
beforeAll(async () => (fake = await startFakeAnthropic({ apiKey: CONFIGURED_KEY })));
afterAll(async () => {
  await fake.stop();
  removeTempHomes();
  cleanup();
});

function summaryRunError(home: string): string {
  const db = new Database(join(home, ".store", "history.db"), { readonly: true });
  try {
    return (db.query("SELECT error FROM summary_runs").all() as { error: string | null }[])
      .map((r) => r.error ?? "")
      .join("\n");
  } finally {
    db.close();
  }
}

describe("one redaction function", () => {
  for (const c of CASES) {
    test(`${c.name}: gone from redactSecrets' output, the words around it kept`, () => {
      const out = redactSecrets(c.text, [CONFIGURED_KEY]).text;
      for (const p of c.secretParts) expect(out).not.toContain(p);
      for (const k of c.keep) expect(out).toContain(k);
    });
  }
});

describe("summary errors quoting a secret", () => {
  const env = () => ({
    ANTHROPIC_API_KEY: CONFIGURED_KEY,
    ANTHROPIC_BASE_URL: fake.url,
    MEMVOY_SUMMARY_MAX_RETRIES: "0",
  });
  for (const c of CASES) {
    test(`${c.name}: a 500 body and a no-JSON answer quoting it stay out of the report and summary_runs`, async () => {
      const home = tempHome();
      const api = openMemory({ home, env: env(), drain: "off" });
      try {
        api.add("s1", [
          { role: "user", content: "hello" },
          { role: "assistant", content: "hi" },
        ]);
        fake.push({ status: 500, message: c.text });
        const first = await api.summarize("s1");
        fake.push({ text: `Sorry, I cannot. ${c.text}` });
        const second = await api.summarize("s1");
        const reported = JSON.stringify([first, second]);
        expect(first.sessions[0]!.outcome).toBe("failed");
        expect(second.sessions[0]!.outcome).toBe("failed");
        expect(leaks(reported)).toEqual([]);
        expect(leaks(summaryRunError(home))).toEqual([]);
        expect(leaks(JSON.stringify(api.summary("s1"), (_k, v) => (typeof v === "bigint" ? String(v) : v)))).toEqual(
          [],
        );
      } finally {
        api.close();
      }
    });
  }

  test("the body of an auth failure is never kept, even when it echoes the key", async () => {
    const home = tempHome();
    const api = openMemory({ home, env: { ...env(), ANTHROPIC_API_KEY: "wrong-key-but-echoed-XYZ123" }, drain: "off" });
    try {
      api.add("s1", [
        { role: "user", content: "hello" },
        { role: "assistant", content: "hi" },
      ]);
      const r = await api.summarize("s1");
      expect(r.sessions[0]!.error).toContain("401");
      expect(r.sessions[0]!.error).not.toContain("invalid x-api-key");
      expect(summaryRunError(home)).not.toContain("invalid x-api-key");
    } finally {
      api.close();
    }
  });

  test("an answer with no JSON that quotes the conversation: no message text in the report or summary_runs", async () => {
    const home = tempHome();
    const api = openMemory({ home, env: env(), drain: "off" });
    try {
      api.add("s1", [
        { role: "user", content: "my diary: the PRIVATE-DIARY-LINE nobody may read" },
        { role: "assistant", content: "noted" },
      ]);
      fake.push({ text: "You wrote: my diary: the PRIVATE-DIARY-LINE nobody may read" });
      const r = await api.summarize("s1");
      expect(r.sessions[0]!.outcome).toBe("failed");
      expect(r.sessions[0]!.error).toContain("held no JSON (");
      expect(JSON.stringify(r)).not.toContain("PRIVATE-DIARY-LINE");
      expect(summaryRunError(home)).not.toContain("PRIVATE-DIARY-LINE");
    } finally {
      api.close();
    }
  });

  test("the CLI's stderr and --json output carry no secret", async () => {
    const home = tempHome();
    await cli(["add", "s1", "--role", "user", "--content", "hello"], { home });
    await cli(["add", "s1", "--role", "assistant", "--content", "hi"], { home });
    fake.push({ status: 500, message: CASES.map((c) => c.text).join(" | ") });
    const r = await cli(["summarize", "s1"], { home, env: env() });
    expect(r.code).toBe(1);
    expect(leaks(r.stdout + r.stderr)).toEqual([]);
  });
});

test("daemon.log, --verbose stderr and daemon status carry no secret", async () => {
  const home = tempHome();
  await daemonCli(home, ["add", "s1", "--role", "user", "--content", "hello"]);
  await daemonCli(home, ["add", "s1", "--role", "assistant", "--content", "hi"]);
  fake.respond(() => ({ status: 500, message: CASES.map((c) => c.text).join(" | ") }));
  const env = {
    ANTHROPIC_API_KEY: CONFIGURED_KEY,
    ANTHROPIC_BASE_URL: fake.url,
    MEMVOY_SUMMARY_CRON: "* * * * * *",
    MEMVOY_SUMMARY_MAX_RETRIES: "0",
  };
  const d = startDaemon(home, env, ["--verbose"]);
  try {
    await waitRunning(d);
    await waitFor(
      () => readFileSync(join(home, "daemon.log"), "utf8").includes("summary.fail"),
      30_000,
      "a failed summary run",
    );
    const status = await daemonCli(home, ["daemon", "status"], env);
    const statusJson = await daemonCli(home, ["daemon", "status", "--json"], env);
    const summary = await daemonCli(home, ["summary", "s1", "--json"], env);
    expect(statusJson.stdout).toContain("summaries");
    expect(leaks(readFileSync(join(home, "daemon.log"), "utf8"))).toEqual([]);
    expect(leaks(d.stderr())).toEqual([]);
    expect(leaks(status.stdout + status.stderr + statusJson.stdout)).toEqual([]);
    expect(leaks(summary.stdout)).toEqual([]);
    expect(leaks(summaryRunError(home))).toEqual([]);
  } finally {
    fake.respond(undefined);
    d.proc.kill("SIGTERM");
    await d.exited;
  }
});

test("config show masks URL userinfo and query tokens", async () => {
  const home = tempHome();
  const env = {
    MEMVOY_EMBEDDER_PROVIDER: "openai",
    MEMVOY_EMBEDDER_BASE_URL: "http://user:pw-Secret-99@host.example/v1?api_key=qk-Secret-42&model=x",
  };
  for (const args of [
    ["config", "show"],
    ["config", "show", "--json"],
  ]) {
    const r = await cli(args, { home, env });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("pw-Secret-99");
    expect(r.stdout).not.toContain("qk-Secret-42");
    expect(r.stdout).toContain("host.example/v1");
  }
});

test("error memory: a configured key's value quoted in a record never reaches SQLite or the answer, nor a search's query", async () => {
  const home = tempHome();
  const env = { VOYAGE_API_KEY: CONFIGURED_KEY, MY_SERVICE_TOKEN: "tok-Value-31337" };
  const r = await cli(
    [
      "errors",
      "record",
      "--tool",
      "curl",
      "--error",
      `401 from the proxy: key ${CONFIGURED_KEY} refused`,
      "--cause",
      "the token tok-Value-31337 expired",
      "--fix",
      "rotate the key",
      "--json",
    ],
    { home, env },
  );
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout).redacted).toContain("configured-key");
  expect(r.stdout).not.toContain(CONFIGURED_KEY);
  expect(r.stdout).not.toContain("tok-Value-31337");
  const files = readdirSync(home, { recursive: true, withFileTypes: true })
    .filter((f) => f.isFile())
    .map((f) => readFileSync(join(f.parentPath, f.name)).toString("latin1"))
    .join("\n");
  expect(files).toContain("rotate the key");
  expect(files).not.toContain(CONFIGURED_KEY);
  expect(files).not.toContain("tok-Value-31337");
  const found = await cli(["errors", "search", `key ${CONFIGURED_KEY} refused`, "--json"], { home, env });
  expect(found.code).toBe(0);
  expect(JSON.parse(found.stdout).hits.map((h: { fix: string }) => h.fix)).toEqual(["rotate the key"]);
});
