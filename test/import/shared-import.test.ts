// Import, export and reindex on a shared archive (PostgreSQL + vectors on S3): the archive is the source of
// truth, every home sees what one imported, two homes importing one source duplicate nothing, export reads
// the archive and round-trips byte for byte, reindex rebuilds the shared vectors under the drain's lease, and
// the daemon's live capture takes one import lease per source.
import { beforeAll, expect, test } from "bun:test";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openSharedHome } from "../../src/app/shared/open-shared.ts";
import type { SharedHome } from "../../src/app/shared/shared-home.ts";
import { sharedImportJob, sharedMaintenanceJob } from "../../src/daemon/jobs/shared-jobs.ts";
import { DaemonLog } from "../../src/daemon/log.ts";
import { CC_SESSION_C, writeClaudeProjects } from "../fixture/import/claude-code.ts";
import { GEM_ID, writeGeminiHome } from "../fixture/import/gemini.ts";
import { GITHUB_TOKEN, TITLED, UNTITLED, writeTitledProjects } from "../fixture/import/titled-projects.ts";
import { cli, openTemp, tempHome } from "../fixture/home.ts";
import { describePostgres } from "../fixture/postgres-server.ts";
import { sharedBackend } from "../fixture/shared-backend.ts";
import { importWith } from "./support.ts";

const describe = describePostgres();

describe("import, export and reindex on a shared archive", () => {
  const opened: SharedHome[] = [];
  const shared = sharedBackend({
    beforeStop: async () => {
      for (const h of opened) await h.close().catch(() => {});
    },
  });
  let dbs = 0;
  /** The embedded import of the same fixture, to compare with. */
  let projects: string;
  let embedded: { home: string; report: Awaited<ReturnType<typeof importWith>>; export: string };
  /** A shared home with the fixture imported (by the first test). */
  let first: { home: string; env: Record<string, string> };

  /** A new database, and `n` homes (standing for hosts) configured for it and one vector prefix. */
  async function sharedHomes(n: number) {
    const name = `imports_${++dbs}`;
    const env = await shared.env(name);
    const homes = Array.from({ length: n }, () => {
      const home = tempHome("memvoy-shared-import-");
      writeFileSync(join(home, "config.toml"), shared.s3.vectorsToml(name));
      return home;
    });
    return { env, homes };
  }

  async function open(home: string, env: Record<string, string>): Promise<SharedHome> {
    const h = await openSharedHome({ home, env });
    opened.push(h);
    return h;
  }

  const rows = async (h: SharedHome, session: string) =>
    (await h.history(session, { all: true })).map((m) => [m.id, m.role, m.content, m.sendAt.toString()]);

  beforeAll(async () => {
    projects = writeClaudeProjects(tempHome("cc-src-"));
    const { home, api } = openTemp({ drain: "off" });
    const report = await importWith(api, "claude-code", [projects]);
    api.close();
    const exported = await cli(["export", "--all"], { home });
    expect(exported.code).toBe(0);
    embedded = { home, report, export: exported.stdout };
  }, 180_000);

  test("claude-code into a shared home: the archive holds what the embedded import holds, a second home reads it, again adds nothing", async () => {
    const { env, homes } = await sharedHomes(2);
    const [a, b] = homes as [string, string];
    first = { home: a, env };
    const r = await cli(["import", "claude-code", projects, "--json"], { home: a, env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const [report] = (JSON.parse(r.stdout) as { sources: (typeof embedded.report)[] }).sources;
    expect(report!.messages).toEqual(embedded.report.messages);
    expect(report!.sessions).toBe(embedded.report.sessions);
    expect(report!.redacted).toBe(embedded.report.redacted);
    expect(report!.skippedCount).toBe(embedded.report.skippedCount);
    expect(report!.messages.added).toBeGreaterThan(10);

    // Another home (host) reads every session from the archive: the same ids, texts, times and titles.
    const other = await open(b, env);
    const { api: local } = openTemp({ home: embedded.home, drain: "off" });
    try {
      const sessions = local.sessions().map(({ id, messages, title, source, project, parent }) => ({
        id,
        messages,
        title,
        source,
        project,
        parent,
      }));
      const shared = (await other.sessions()).map(({ id, messages, title, source, project, parent }) => ({
        id,
        messages,
        title,
        source,
        project,
        parent,
      }));
      expect(shared.sort((x, y) => x.id.localeCompare(y.id))).toEqual(
        sessions.sort((x, y) => x.id.localeCompare(y.id)),
      );
      for (const s of sessions) {
        const want = local.history(s.id, { all: true }).map((m) => [m.id, m.role, m.content, m.sendAt.toString()]);
        expect(await rows(other, s.id)).toEqual(want);
        // The importing home's history.json is the archive's recent tier, byte for byte the embedded file.
        const file = (home: string) => readFileSync(join(home, "sessions", s.id, "history.json"), "utf8");
        expect(file(a)).toBe(file(embedded.home));
      }
    } finally {
      local.close();
    }
    expect(existsSync(join(a, ".store", "history.db"))).toBe(false);
    // Imported sessions wait for [import] summarize = true: not due for the cron, nor in `summary`.
    expect(await other.dueSessions()).toEqual([]);
    expect((await other.summary(`cc-${CC_SESSION_C}`)).due).toBe(false);

    // Again: every file unchanged, nothing added.
    const again = await cli(["import", "claude-code", projects, "--json"], { home: a, env });
    const [second] = (JSON.parse(again.stdout) as { sources: (typeof embedded.report)[] }).sources;
    expect(second!.messages.added).toBe(0);
    expect(second!.files.unchanged).toBe(second!.files.found);
  }, 180_000);

  test("the same source imported from two homes at once: every message once", async () => {
    const { env, homes } = await sharedHomes(2);
    const runs = await Promise.all(
      homes.map((home) => cli(["import", "claude-code", projects, "--json"], { home, env })),
    );
    const reports = runs.map((r) => {
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      return (JSON.parse(r.stdout) as { sources: (typeof embedded.report)[] }).sources[0]!;
    });
    // Each message was added by exactly one of them; the other found it there.
    expect(reports[0]!.messages.added + reports[1]!.messages.added).toBe(embedded.report.messages.added);
    const h = await open(homes[0]!, env);
    const total = (await h.sessions()).reduce((n, s) => n + s.messages, 0);
    expect(total).toBe(embedded.report.messages.added);
    const e = await cli(["export", "--all"], { home: homes[1]!, env });
    expect(e.stdout).toBe(embedded.export);
  }, 180_000);

  test("export reads the archive; export → import into another shared archive or an embedded home → export: the same bytes", async () => {
    const exported = await cli(["export", "--all"], { home: first.home, env: first.env });
    expect(exported.code).toBe(0);
    expect(exported.stdout).toBe(embedded.export);
    const file = join(tempHome("memvoy-export-"), "all.jsonl");
    writeFileSync(file, exported.stdout);

    const { env, homes } = await sharedHomes(1);
    const into = await cli(["import", "jsonl", file], { home: homes[0]!, env });
    expect(into.code).toBe(0);
    const back = await cli(["export", "--all"], { home: homes[0]!, env });
    expect(back.stdout).toBe(exported.stdout);

    const plain = tempHome("memvoy-plain-");
    expect((await cli(["import", "jsonl", file], { home: plain })).code).toBe(0);
    expect((await cli(["export", "--all"], { home: plain })).stdout).toBe(exported.stdout);

    // A named session and a time range read the archive the same way.
    const one = `cc-${CC_SESSION_C}`;
    const named = await cli(["export", one, "--since", "2000-01-01"], { home: first.home, env: first.env });
    expect(named.stdout).toBe((await cli(["export", one, "--since", "2000-01-01"], { home: embedded.home })).stdout);
    const missing = await cli(["export", "no-such-session"], { home: first.home, env: first.env });
    expect(missing.code).toBe(2);
  }, 180_000);

  test("an export holding empty text and a NUL character (records adopted from an older history.json) is imported whole", async () => {
    const plain = tempHome("memvoy-adopted-");
    mkdirSync(join(plain, "sessions", "agv"), { recursive: true });
    writeFileSync(
      join(plain, "sessions", "agv", "history.json"),
      '[\n{"role":"user","content":"tab\\u0000separated","sendAt":"2026-05-01T10:00:00Z"},\n' +
        '{"role":"assistant","content":"","sendAt":"2026-05-01T10:00:01Z"},\n' +
        '{"role":"user","content":"third","sendAt":"2026-05-01T10:00:02Z"}\n]\n',
    );
    const exported = (await cli(["export", "agv"], { home: plain })).stdout;
    expect(exported).toContain('"content":""');
    const { env, homes } = await sharedHomes(1);
    const r = await cli(["import", "jsonl", "-"], { home: homes[0]!, env, stdin: exported });
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 0,
      stdout: "jsonl: 1 file (0 unchanged), 1 session, added 3 messages\n",
      stderr: "",
    });
    // PostgreSQL text cannot hold the NUL: U+FFFD stands in its place; the rest comes back exactly.
    const back = await cli(["export", "agv"], { home: homes[0]!, env });
    expect(back.stdout).toBe(exported.replace("\\u0000", "\uFFFD"));
    const again = await cli(["import", "jsonl", "-"], { home: homes[0]!, env, stdin: exported });
    expect(again.stdout).toBe("jsonl: 1 file (0 unchanged), 1 session, added 0 messages (3 already present)\n");
  }, 60_000);

  test("import jsonl of an export whose session ids were edited names the lines another session holds", async () => {
    const { env, homes } = await sharedHomes(1);
    const home = homes[0]!;
    for (const content of ["hello", "hi"])
      expect((await cli(["add", "orig", "--role", "user", "--content", content], { home, env })).code).toBe(0);
    const edited = (await cli(["export", "orig"], { home, env })).stdout.replaceAll('"orig"', '"copy"');
    const r = await cli(["import", "jsonl", "-"], { home, env, stdin: edited });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("jsonl: 1 file (0 unchanged), 0 sessions, added 0 messages, 2 records skipped\n");
    expect(r.stderr).toContain("skipped (stdin):2: message ");
    expect(r.stderr).toContain(" is already in session orig (a message id is unique across sessions)");
  }, 60_000);

  test("a streamed reply grows across passes and a removed message stays out, as in the embedded home", async () => {
    const { env, homes } = await sharedHomes(2);
    const dir = join(tempHome("cc-stream-"), "projects", "-home-dev-stream");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${STREAM}.jsonl`);
    writeFileSync(file, `${PROMPT}\n${reply(["s-2", "s-1", "10:00:03", "It backs off."])}`);
    const h = await open(homes[0]!, env);
    expect((await importWith(h, "claude-code", [file])).messages).toMatchObject({ added: 2, extended: 0 });
    appendFileSync(file, reply(["s-3", "s-2", "10:00:05", "Then it gives up."]));
    expect((await importWith(h, "claude-code", [file])).messages).toMatchObject({ added: 0, extended: 1 });
    const session = `cc-${STREAM}`;
    const other = await open(homes[1]!, env);
    const stored = await other.history(session, { all: true });
    expect(stored.map((m) => m.content)).toEqual(["Explain the retry loop", "It backs off.\n\nThen it gives up."]);
    const cache = JSON.parse(readFileSync(join(homes[0]!, "sessions", session, "history.json"), "utf8"));
    expect(cache.map((m: { content: string }) => m.content)).toEqual(stored.map((m) => m.content));
    const hits = await other.search({ query: "gives", match: "keyword" });
    expect(hits.hits.map((x) => x.message.id)).toEqual([stored[1]!.id]);

    // Removed on one host, imported again (from the start) on the other: kept out by the archive's tombstone.
    await h.rmMessage(stored[0]!.id);
    writeFileSync(file, `${readFileSync(file, "utf8")}\n`);
    const r = await importWith(other, "claude-code", [file], { since: 0n });
    expect(r.messages).toMatchObject({ added: 0, tombstoned: 1 });
    expect((await other.history(session, { all: true })).map((m) => m.id)).toEqual([stored[1]!.id]);
  }, 120_000);

  test("titles: redacted like the messages; gone with the message or the reset that removes the text they were taken from", async () => {
    const { env, homes } = await sharedHomes(2);
    const projects = writeTitledProjects(tempHome("titles-src-"));
    const h = await open(homes[0]!, env);
    await importWith(h, "claude-code", [projects]);
    const titleOf = async (id: string) => (await h.ctx.archive.sessionMeta(id))?.title;
    expect(await titleOf(TITLED)).toBe("Pushing with [REDACTED:stripe-key]");
    expect(await titleOf(UNTITLED)).toBe("use token [REDACTED:github-token] to push the release");
    const [first] = await h.history(UNTITLED, { all: true });
    await h.rmMessage(first!.id);
    expect(await titleOf(UNTITLED)).toBeUndefined();
    // Another host reads the transcripts from the start: the removed prompt stays out, and the title taken from it.
    const other = await open(homes[1]!, env);
    expect((await importWith(other, "claude-code", [projects])).messages).toMatchObject({ added: 0, tombstoned: 1 });
    expect(await titleOf(UNTITLED)).toBeUndefined();
    await h.reset(TITLED);
    expect(await titleOf(TITLED)).toBe("Pushing with [REDACTED:stripe-key]");
    const fresh = await sharedHomes(1);
    const kept = await open(fresh.homes[0]!, fresh.env);
    await importWith(kept, "claude-code", [projects], { keepSecrets: true });
    expect((await kept.ctx.archive.sessionMeta(UNTITLED))?.title).toContain(GITHUB_TOKEN);
    await kept.reset(UNTITLED);
    expect((await kept.ctx.archive.sessionMeta(UNTITLED))?.title).toBeUndefined();
    // The cluster serves a few connections only: the other tests need theirs.
    for (const x of [h, other, kept]) await x.close();
  }, 120_000);

  test("a Gemini rewind removes the rewound messages from the archive, and the next pass brings nothing back", async () => {
    const { env, homes } = await sharedHomes(2);
    const { home: gemini, chatFile } = writeGeminiHome(tempHome("gem-src-"));
    const h = await open(homes[0]!, env);
    const o = { env: { GEMINI_CLI_HOME: gemini } };
    await importWith(h, "gemini", [], o);
    appendFileSync(
      chatFile,
      `${JSON.stringify({ $rewindTo: "m6" })}\n${JSON.stringify({ id: "m9", timestamp: "2026-08-01T07:03:00.000Z", type: "user", content: "never mind" })}\n`,
    );
    expect((await importWith(h, "gemini", [], o)).messages).toMatchObject({ added: 1, removed: 2 });
    const other = await open(homes[1]!, env);
    const texts = (await other.history(`gem-${GEM_ID}`, { all: true })).map((m) => m.content);
    expect(texts).toEqual(["list the open ports", "Ports 22 and 8080 are open.", "never mind"]);
    // Another host reading the whole chat from the start adds nothing back: the archive's tombstones decide.
    expect((await importWith(other, "gemini", [chatFile])).messages.added).toBe(0);
    expect(await h.ctx.archive.pendingVectorDeletes(10)).toEqual({ ids: [], before: [] });
  }, 120_000);

  test("reindex rebuilds the shared vectors under the drain's lease; with the lease held elsewhere it waits its turn", async () => {
    const h = await open(first.home, first.env);
    const recent = (await h.sessions()).length > 0 ? await recentCount(h) : 0;
    const r = await cli(["reindex", "--json"], { home: first.home, env: first.env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { embedded: number; remaining: number; busy: boolean };
    expect(report).toMatchObject({ embedded: recent, remaining: 0, busy: false });
    expect(await h.ctx.archive.queuedCount()).toBe(0);
    const table = await h.ctx.vectors.table();
    expect(await table!.count()).toBe(recent);
    const found = await h.search({ query: "checkout test flaky", match: "semantic", limit: 3 });
    expect(found.hits.length).toBeGreaterThan(0);

    // Another host's drain holds the lease: `reindex --pending` does not wait, and says so.
    const lease = await h.ctx.archive.acquireLease("vector-write", "*", "another-host:1", 60_000);
    expect(lease).toBeDefined();
    try {
      const busy = await cli(["reindex", "--pending", "--json"], { home: first.home, env: first.env });
      expect(JSON.parse(busy.stdout)).toMatchObject({ busy: true, embedded: 0 });
    } finally {
      await h.ctx.archive.releaseLease(lease!);
    }
  }, 180_000);

  test("the nightly upkeep of the shared vectors runs under the drain's lease, and skips while another host holds it", async () => {
    const h = await open(first.home, first.env);
    const table = await h.ctx.vectors.table();
    const rows = await table!.count();
    expect(rows).toBeGreaterThan(0);
    const log = new DaemonLog({ path: join(first.home, "daemon.log"), maxBytes: 1 << 20 });
    const ctx = { signal: new AbortController().signal, log };
    const done = await sharedMaintenanceJob(h, "30 3 * * *").run(ctx);
    expect(done).toMatchObject({ detail: expect.stringMatching(new RegExp(`^vectors: ${rows} rows`)) });
    expect(done?.errors).toBeUndefined();
    expect(await table!.count()).toBe(rows);
    expect((await h.search({ query: "checkout test flaky", match: "semantic", limit: 3 })).hits.length).toBeGreaterThan(
      0,
    );
    const lease = await h.ctx.archive.acquireLease("vector-write", "*", "another-host:1", 60_000);
    try {
      const busy = await h.maintainVectors({ waitMs: 0 });
      expect(busy).toMatchObject({ done: false, note: "another drain kept the table busy" });
    } finally {
      await h.ctx.archive.releaseLease(lease!);
    }
  }, 180_000);

  test("live capture in shared mode: one import lease per source, so two daemons never import it at once", async () => {
    const { env, homes } = await sharedHomes(1);
    const root = tempHome("cc-live-");
    writeClaudeProjects(root);
    const h = await open(homes[0]!, env);
    const log = new DaemonLog({ path: join(homes[0]!, "daemon.log"), maxBytes: 1 << 20 });
    const job = sharedImportJob(h, "* * * * *", ["claude-code"], { CLAUDE_CONFIG_DIR: root }, 0);
    const ctx = { signal: new AbortController().signal, log };
    try {
      const lease = await h.ctx.archive.acquireLease("import", "source:claude-code", "another-host:1", 60_000);
      expect(await h.importTurn("claude-code", 0)).toBeUndefined();
      const skipped = await job.run(ctx);
      expect(skipped).toMatchObject({ detail: "claude-code: another daemon is importing (next tick)" });
      expect(await h.sessions()).toEqual([]);
      await h.ctx.archive.releaseLease(lease!);
      const done = await job.run(ctx);
      expect(done).toMatchObject({ worked: true, errors: [] });
      const total = (await h.sessions()).reduce((n, s) => n + s.messages, 0);
      expect(total).toBe(embedded.report.messages.added);
      // The lease was given back after the pass.
      expect(await h.ctx.archive.leaseHolder("import", "source:claude-code")).toBeUndefined();
    } finally {
      log.close();
    }
  }, 120_000);
});

async function recentCount(h: SharedHome): Promise<number> {
  let n = 0;
  for (const s of await h.sessions()) n += (await h.ctx.archive.listMessages(s.id, { recentOnly: true })).length;
  return n;
}

const STREAM = "0b0c0d0e-4444-4f00-8a00-00000000cafe";
const PROMPT = JSON.stringify({
  type: "user",
  uuid: "s-1",
  parentUuid: null,
  sessionId: STREAM,
  cwd: "/home/dev/stream",
  version: "2.1.3",
  timestamp: "2026-06-01T10:00:00.000Z",
  message: { role: "user", content: "Explain the retry loop" },
});

/** One block of a reply streamed as records sharing message.id and requestId. */
function reply([uuid, parent, time, text]: [string, string, string, string]): string {
  return `${JSON.stringify({
    type: "assistant",
    uuid,
    parentUuid: parent,
    sessionId: STREAM,
    cwd: "/home/dev/stream",
    version: "2.1.3",
    requestId: "req_stream_1",
    timestamp: `2026-06-01T${time}.000Z`,
    message: { id: "msg_stream_1", role: "assistant", model: "claude-sonnet-4-5", content: [{ type: "text", text }] },
  })}\n`;
}
