// A home that does not exist on a shared archive (MEMVOY_ARCHIVE_URL set, a mistyped --home): the commands that
// only read, or change nothing, answer as from a home that holds only caches, and create nothing on this host.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildBinaryOnce, makeTempDir, removeTempDirs, runBinary } from "../fixture/binary.ts";
import { describePostgres } from "../fixture/postgres-server.ts";
import { sharedBackend } from "../fixture/shared-backend.ts";
import { cursorText } from "../../src/storage/history/cursor-file.ts";
import { openPgSharedArchive } from "../../src/storage/postgres/pg-shared-archive.ts";

const describe = describePostgres();

describe("a missing home on a shared archive", () => {
  const shared = sharedBackend();
  let bin = "";
  let env: Record<string, string>;
  let dir = "";
  let other = ""; // a home of this host that holds caches only

  beforeAll(async () => {
    bin = await buildBinaryOnce();
    const base = await shared.env("missing");
    const url = base.MEMVOY_ARCHIVE_URL;
    env = {
      ...base,
      MEMVOY_VECTORS_URI: `s3://${shared.s3.bucket}/missing`,
      MEMVOY_VECTORS_ENDPOINT: shared.s3.endpoint,
      MEMVOY_VECTORS_ALLOW_HTTP: "true",
      MEMVOY_VECTORS_READ_CONSISTENCY_MS: "0",
    };
    dir = makeTempDir("memvoy-missing-shared-");
    other = join(dir, "other");
    mkdirSync(join(other, "sessions"), { recursive: true, mode: 0o700 });
    const writer = join(dir, "writer");
    const lines = ["deploy on fridays", "never on mondays"].map((content, i) =>
      JSON.stringify({ role: i % 2 ? "assistant" : "user", content, sendAt: `2026-01-01T00:00:0${i}Z` }),
    );
    const add = await runBinary(bin, ["--home", writer, "add", "ops"], { env, stdin: lines.join("\n") });
    expect(add.code, add.stderr).toBe(0);
    const archive = await openPgSharedArchive(url);
    const summary = JSON.stringify({
      key_decisions: ["Do: deploy on fridays"],
      past_discussions: [],
      current_discussion: { topic: "deploys", description: "about deploys", perspectives: "", direction: "" },
    });
    const cursor = cursorText(BigInt(Date.now() - 60_000) * 1_000_000n);
    await archive.putSummaryState("ops", { summary, cursor }, 1n, null);
    await archive.close();
  }, 240_000);
  afterAll(() => removeTempDirs());

  test("reads, refusals and removals of nothing answer as from a home of caches, and create nothing", async () => {
    const missing = join(dir, "typo", "memvoy");
    const cwd = makeTempDir("memvoy-cwd-");
    const cases = [
      ["sessions"],
      ["history", "ops"],
      ["context", "ops"],
      ["summary", "ops"],
      ["summary", "ops", "--json"],
      ["search", "deploy"],
      ["export", "--all"],
      ["usage"],
      ["errors", "list"],
      ["errors", "search", "ECONNREFUSED"],
      ["add", "ops", "--role", "bogus", "--content", "x"],
      ["errors", "record", "--tool", "git", "--error", "", "--fix", "f"],
      ["rm-message", "01M958DV054FZMVYYPN5NMMAES"],
      ["rm", "nope"],
      ["reset", "nope"],
      ["summarize", "nope"],
      ["errors", "rm", "abc123"],
      ["errors", "sweep"],
      ["import", "auto"],
      // An import whose files hold nothing to store: an empty export, another tool's JSONL.
      ["import", "jsonl", join(dir, "empty.jsonl")],
      ["import", "jsonl", join(dir, "foreign.jsonl")],
    ];
    writeFileSync(join(dir, "empty.jsonl"), "");
    writeFileSync(join(dir, "foreign.jsonl"), '{"foo":1}\n');
    const seen: unknown[] = [];
    const expected: unknown[] = [];
    for (const args of cases) {
      const run = (home: string) => runBinary(bin, ["--home", home, ...args], { env, cwd, timeoutMs: 60_000 });
      const [a, b] = [await run(other), await run(missing)];
      const answer = (r: typeof a) => ({ code: r.code, stdout: r.stdout, stderr: r.stderr.replaceAll(missing, other) });
      seen.push({
        args,
        ...answer(b),
        stdout: b.stdout.replaceAll(missing, other),
        created: existsSync(join(dir, "typo")),
      });
      expected.push({ args, ...answer(a), created: false });
      rmSync(join(dir, "typo"), { recursive: true, force: true });
    }
    expect(seen).toEqual(expected);
  }, 600_000);

  test("doctor says the home does not exist yet and creates it not; summarize makes it only once it runs", async () => {
    const missing = join(dir, "memvoy-hoem");
    const r = await runBinary(bin, ["--home", missing, "doctor"], { env, timeoutMs: 60_000 });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
    expect(r.stdout).toContain(
      `${missing} does not exist yet: the first write (memvoy add, import or demo) creates it`,
    );
    expect(existsSync(missing)).toBe(false);
    // No API key: refused before anything changes, and nothing made.
    const refused = await runBinary(bin, ["--home", missing, "summarize", "ops"], { env, timeoutMs: 60_000 });
    expect(refused.code).toBe(2);
    expect(existsSync(missing)).toBe(false);
    // A run keeps this host's summary files: the home is made then (the summary covers every message: no call).
    const keyed = { ...env, ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: "http://127.0.0.1:9" };
    const ran = await runBinary(bin, ["--home", missing, "summarize", "ops"], { env: keyed, timeoutMs: 60_000 });
    expect({ code: ran.code, stdout: ran.stdout }).toEqual({ code: 0, stdout: expect.stringContaining("up-to-date") });
    expect(existsSync(join(missing, "sessions", "ops", "summary.json"))).toBe(true);
  }, 120_000);

  test("an import makes the home with its first message stored, and keeps this host's cache of the session there", async () => {
    const missing = join(dir, "memvoy-import");
    const exported = [
      JSON.stringify({ type: "session", id: "imported" }),
      JSON.stringify({
        type: "message",
        id: "01M958DV054FZMVYYPN5NMMAET",
        session: "imported",
        role: "user",
        content: "kept",
        sendAt: "2026-01-01T00:00:00Z",
      }),
    ];
    const r = await runBinary(bin, ["--home", missing, "import", "jsonl", "-"], {
      env,
      stdin: `${exported.join("\n")}\n`,
      timeoutMs: 60_000,
    });
    expect({ code: r.code, stdout: r.stdout.trim() }).toEqual({
      code: 0,
      stdout: "jsonl: 1 file (0 unchanged), 1 session, added 1 message",
    });
    expect(existsSync(join(missing, "sessions", "imported", "history.json"))).toBe(true);
  }, 120_000);
});
