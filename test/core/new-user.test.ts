// What a new user runs into on the command line: --version --json, stdin text for add, unknown sessions for
// context and search, the reset wording, and daemon status times.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);
const version = JSON.parse(readFileSync(join(import.meta.dir, "../../package.json"), "utf8")).version;

test("--version --json prints {version}", async () => {
  for (const args of [
    ["--version", "--json"],
    ["--json", "--version"],
  ]) {
    const r = await cli(args);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ version });
  }
  expect((await cli(["--version"])).stdout).toBe(`memvoy ${version}\n`);
});

test("--version with the global options around it: --home DIR is accepted and nothing is created", async () => {
  const home = join(tempHome(), "not-made");
  for (const args of [
    ["--home", home, "--version"],
    ["-v", "--home", home],
    [`--home=${home}`, "--json", "-v"],
    ["--json", "--home", home, "--version"],
  ]) {
    const r = await cli(args);
    expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: "" });
    expect(r.stdout).toBe(
      args.includes("--json") ? `${JSON.stringify({ version }, null, 2)}\n` : `memvoy ${version}\n`,
    );
  }
  expect(existsSync(home)).toBe(false);
});

test("add from stdin with --role strips exactly one trailing newline", async () => {
  const home = tempHome();
  await cli(["add", "s", "--role", "user"], { home, stdin: "text\n" });
  await cli(["add", "s", "--role", "user"], { home, stdin: "two\n\n" });
  await cli(["add", "s", "--role", "user"], { home, stdin: "crlf\r\n" });
  await cli(["add", "s", "--role", "user"], { home, stdin: "none" });
  const h = JSON.parse((await cli(["history", "s", "--json"], { home })).stdout);
  expect(h.messages.map((m: { content: string }) => m.content)).toEqual(["text", "two\n", "crlf", "none"]);
});

test("plain text on stdin without --role hints at --role", async () => {
  const home = tempHome();
  const r = await cli(["add", "s"], { home, stdin: "just some words\n" });
  expect(r.code).toBe(2);
  expect(r.stderr.trim().split("\n")).toHaveLength(1);
  expect(r.stderr).toContain("stdin line 1: not valid JSON");
  expect(r.stderr).toContain("--role");
  // Broken JSONL is still reported as such, without the hint.
  const j = await cli(["add", "s"], { home, stdin: '{"role":"user","content":"x"\n' });
  expect(j.stderr).not.toContain("--role");
});

test("context of an unknown session: lenient, with newSession: true in JSON and a note in text", async () => {
  const home = tempHome();
  const j = await cli(["context", "nosuch", "--input", "hi", "--json"], { home });
  expect(j.code).toBe(0);
  expect(JSON.parse(j.stdout)).toMatchObject({ session: "nosuch", newSession: true });
  const t = await cli(["context", "nosuch", "--input", "hi"], { home });
  expect(t.code).toBe(0);
  expect(t.stdout).toContain("new session nosuch");
  await cli(["add", "known", "--role", "user", "--content", "x"], { home });
  expect(JSON.parse((await cli(["context", "known", "--json"], { home })).stdout).newSession).toBeUndefined();
});

test("search --session of an unknown session exits 2 with the error history gives: UnknownSessionError", async () => {
  const home = tempHome();
  await cli(["add", "known", "--role", "user", "--content", "deploy failed"], { home });
  const r = await cli(["search", "deploy", "--session", "nosuch"], { home });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('no such session "nosuch"');
  const json = await cli(["search", "deploy", "--session", "nosuch", "--json"], { home });
  const history = await cli(["history", "nosuch", "--json"], { home });
  expect(JSON.parse(json.stdout).error.code).toBe("UnknownSessionError");
  expect(JSON.parse(history.stdout).error.code).toBe("UnknownSessionError");
  expect((await cli(["search", "deploy", "--session", "known"], { home })).code).toBe(0);
});

test("reset of a session with no summary does not say the summary was kept", async () => {
  const home = tempHome();
  await cli(["add", "s", "--role", "user", "--content", "x"], { home });
  const r = await cli(["reset", "s"], { home });
  expect(r.code).toBe(0);
  expect(r.stdout).toBe("reset s: removed 1 message(s)\n");
});

test("daemon status --json gives its times as RFC 3339 with nanoseconds", async () => {
  const home = tempHome();
  mkdirSync(home, { recursive: true });
  writeFileSync(
    join(home, "daemon.state.json"),
    JSON.stringify({
      pid: 999999,
      home,
      version,
      startedAt: "2026-11-30T10:00:00.123Z",
      updatedAt: "2026-11-30T10:05:00.000Z",
      status: "stopped",
      stoppedAt: "2026-11-30T10:05:00.000Z",
      jobs: {
        summaries: {
          schedule: "*/15 * * * *",
          running: false,
          lastRun: "2026-11-30T10:00:01.000Z",
          lastDurationMs: 5,
          lastResult: "ok",
          lastDetail: null,
          lastError: null,
          runs: 1,
          failures: 0,
        },
      },
      lastError: null,
    }),
  );
  const r = await cli(["daemon", "status", "--json"], { home });
  const st = JSON.parse(r.stdout);
  const rfc = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/;
  expect(st.startedAt).toMatch(rfc);
  expect(st.startedAt).toBe("2026-11-30T10:00:00.123000000Z");
  expect(st.stoppedAt).toMatch(rfc);
  expect(st.jobs[0].lastRun).toMatch(rfc);
});
