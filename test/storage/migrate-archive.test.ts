// memvoy migrate-archive: a home's SQLite archive copied into PostgreSQL, killed mid-way and resumed,
// verified; the target only from config or environment; no URL, a password in config.toml or a busy
// target is a one-line exit 2; no secret printed.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cursorKey } from "../../src/app/migrate-archive.ts";
import { nowNs } from "../../src/shared/time.ts";
import { VECTOR_WRITE_JOB } from "../../src/storage/ports/lease-turn.ts";
import { openPgArchive } from "../../src/storage/postgres/open-pg-archive.ts";
import { openPgSharedArchive } from "../../src/storage/postgres/pg-shared-archive.ts";
import { openSqliteArchive } from "../../src/storage/sqlite/sqlite-archive.ts";
import { openMessageVectors, type VectorLocation } from "../../src/storage/ports/vector-port.ts";
import { cli, openTemp, removeTempHomes, tempHome, waitFor } from "../fixture/home.ts";
import { describePostgres, startPostgres, type PgServer } from "../fixture/postgres-server.ts";
import { S3RVER_KEYS, startS3Server, type S3Server } from "../fixture/s3-server.ts";

const NOW = 1_790_000_000_000_000_000n;
const SECRET = "Sup3rSecretPw42";

/** A home with archived and recent messages in three sessions, a summary, usage, an error record and a summary run. */
function buildHome(perSession: number): string {
  const { home, api } = openTemp({ env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "6000" }, drain: "off", now: () => NOW });
  for (const s of ["alpha", "beta", "gamma"]) {
    for (let at = 0; at < perSession; at += 100)
      api.add(
        s,
        Array.from({ length: Math.min(100, perSession - at) }, (_, i) => ({
          role: (at + i) % 2 ? ("assistant" as const) : ("user" as const),
          content: `${s} message ${at + i} about deploying 數據庫 servers`,
          sendAt: NOW - BigInt(perSession - at - i) * 1_000_000_000n,
        })),
      );
  }
  api.close();
  writeFileSync(join(home, "sessions", "alpha", "summary.json"), '{"summary":"alpha so far"}\n');
  writeFileSync(join(home, "sessions", "alpha", ".summary_cursor"), "2026-09-21 10:00:00\n");
  return home;
}

async function addExtras(home: string): Promise<void> {
  const a = openSqliteArchive(join(home, ".store", "history.db"));
  await a.insertUsage({ at: NOW, session: "alpha", purpose: "summary", model: "m", inputTokens: 10, outputTokens: 3 });
  await a.startSummaryRun("alpha", NOW);
  await a.insertError(
    "e0f1",
    { tool: "bash", signature: "sig", error: "boom", cause: null, fix: "retry", outcome: "resolved", keywords: [] },
    NOW,
    NOW + 1_000_000_000_000n,
  );
  await a.close();
}

/** Message vectors of two embedders in `where`: 300 rows of 4 dims and 20 rows of 2 dims. */
async function fillVectors(where: VectorLocation): Promise<void> {
  const store = await openMessageVectors(where);
  for (const [embedder, dim, rows] of [
    ["a:1:4", 4, 300],
    ["b:1:2", 2, 20],
  ] as const) {
    const t = (await store.table(embedder, dim, { create: true }))!;
    await t.append(
      Array.from({ length: rows }, (_, i) => ({
        id: `v${i}`,
        seq: BigInt(i + 1),
        session: "alpha",
        sendAt: NOW,
        role: "user",
        content: "",
        vector: Float32Array.from({ length: dim }, (_, d) => Math.sin(i + d) + 1.5),
      })),
    );
    t.close();
  }
  store.close();
}

/** Rows per embedder table in `where` (0 for a table not there). */
async function vectorCounts(where: VectorLocation): Promise<number[]> {
  const store = await openMessageVectors(where);
  try {
    const out: number[] = [];
    for (const [embedder, dim] of [
      ["a:1:4", 4],
      ["b:1:2", 2],
    ] as const) {
      const t = await store.table(embedder, dim);
      out.push(t ? await t.count() : 0);
      t?.close();
    }
    return out;
  } finally {
    store.close();
  }
}

const describe = describePostgres();

describe("migrate-archive", () => {
  let server: PgServer;
  beforeAll(async () => {
    server = await startPostgres();
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    removeTempHomes();
  });

  const withSecret = (url: string) => url.replace("://memvoy-pg@", `://memvoy-pg:${SECRET}@`);

  test("no archive URL: one line, exit 2; --help explains where the target comes from", async () => {
    const home = tempHome();
    const r = await cli(["migrate-archive"], { home });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n").length).toBe(1);
    expect(r.stderr).toContain("MEMVOY_ARCHIVE_URL");
    const help = await cli(["migrate-archive", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("[archive]");
    expect(help.stdout).toContain("resum");
    expect((await cli(["migrate-archive", "postgres://x@y/z"], { home })).code).toBe(2);
  }, 60_000);

  test("a password in config.toml is refused with exit 2 and never printed", async () => {
    const home = tempHome();
    writeFileSync(join(home, "config.toml"), `[archive]\nurl = "${withSecret(server.url)}"\n`);
    for (const args of [["migrate-archive"], ["config", "show"], ["config", "check"]]) {
      const r = await cli(args, { home });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("password");
      expect(r.stdout + r.stderr).not.toContain(SECRET);
    }
  }, 60_000);

  test("copies a home, killed after a batch, resumed, verified; the same messages on both sides", async () => {
    const home = buildHome(400);
    await addExtras(home);
    const url = await server.createDatabase("migrate_full");
    const env = { MEMVOY_ARCHIVE_URL: withSecret(url) };
    const killed = await cli(["migrate-archive", "--batch", "150"], {
      home,
      env: { ...env, MEMVOY_TEST_FAULT: "after-copy-batch" },
    });
    expect(killed.code).not.toBe(0);
    const partial = await openPgArchive(url);
    expect(await partial.countMessages()).toBe(150);
    await partial.close();

    const r = await cli(["migrate-archive", "--batch", "150", "--json"], { home, env });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ done: true, resumed: true, total: 1200, copied: 1050, summaries: 1, vectors: "local" });
    expect(out.counts).toMatchObject({
      messages: 1200,
      sessions: 3,
      errors: 1,
      usage: 1,
      summaryRuns: 1,
      summaries: 1,
    });
    expect(r.stdout + r.stderr).not.toContain(SECRET);

    const src = openSqliteArchive(join(home, ".store", "history.db"));
    const dst = await openPgArchive(url);
    try {
      expect(await dst.exportMessages(0n, 10_000)).toEqual(await src.exportMessages(0n, 10_000));
      expect(await dst.listSessions()).toEqual(await src.listSessions());
      for (const s of ["alpha", "beta", "gamma"]) expect(await dst.startOf(s)).toEqual(await src.startOf(s));
      expect((await dst.listMessages("alpha", { archivedOnly: true })).length).toBeGreaterThan(0);
      expect(await dst.getSummaryState("alpha")).toMatchObject({
        summary: '{"summary":"alpha so far"}\n',
        // The instant in UTC: the home's file held it in the migrating host's local time (UTC here).
        cursor: "2026-09-21T10:00:00Z",
      });
      expect(await dst.getSummaryRun("alpha")).toEqual(await src.getSummaryRun("alpha"));
      expect((await dst.errorBySignature("BASH", "sig"))?.id).toBe("e0f1");
      // Messages still waiting for a vector wait in the target's queue too, so its drain embeds them.
      expect(await src.queuedCount()).toBeGreaterThan(0);
      expect(await dst.queuedCount()).toBe(await src.queuedCount());
      const due = async (a: typeof src | typeof dst) =>
        (await a.dueEmbeddings(NOW * 2n, 10_000)).map((q) => q.message.id).sort();
      expect((await due(src)).length).toBe(await src.queuedCount());
      expect(await due(dst)).toEqual(await due(src));
    } finally {
      await src.close();
      await dst.close();
    }

    // Run again: nothing new to copy, still verified; new messages in the home are copied incrementally.
    const again = await cli(["migrate-archive", "--json"], { home, env });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ copied: 0, done: true });
    const { api } = openTemp({ home, env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "6000" }, drain: "off" });
    api.add("delta", { role: "user", content: "one more" });
    api.close();
    const more = await cli(["migrate-archive"], { home, env });
    expect(more.code).toBe(0);
    expect(more.stdout).toContain("copied 1 message (1201 in the archive, 4 sessions");
  }, 300_000);

  test("a message holding a NUL character (adopted from an older history.json) is copied with U+FFFD in its place", async () => {
    const home = tempHome();
    mkdirSync(join(home, "sessions", "agv"), { recursive: true });
    writeFileSync(
      join(home, "sessions", "agv", "history.json"),
      '[\n{"role":"user","content":"tab\\u0000separated","sendAt":"2026-05-01T10:00:00Z","sender":"bo\\u0000b"},\n' +
        '{"role":"assistant","content":"ok","sendAt":"2026-05-01T10:00:01Z"}\n]\n',
    );
    expect((await cli(["history", "agv"], { home })).code).toBe(0); // adopted into the archive as it is
    const url = await server.createDatabase("migrate_nul");
    const r = await cli(["migrate-archive"], { home, env: { MEMVOY_ARCHIVE_URL: url } });
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 0,
      stderr:
        "memvoy: 1 message held a NUL character, which PostgreSQL text cannot hold: copied with U+FFFD in its place\n",
    });
    expect(r.stdout).toContain("copied 2 messages (2 in the archive, 1 session,");
    const target = await openPgArchive(url);
    const copied = await target.listMessages("agv");
    await target.close();
    expect(copied.map((m) => [m.content, m.sender])).toEqual([
      ["tab\uFFFDseparated", "bo\uFFFDb"],
      ["ok", undefined],
    ]);
  }, 60_000);

  test("a home whose own archive was never copied is refused in shared mode (exit 2) until migrate-archive runs", async () => {
    const s3: S3Server = await startS3Server();
    try {
      const home = buildHome(10);
      appendFileSync(join(home, "config.toml"), `\n${s3.vectorsToml("uncopied")}`);
      const env = { MEMVOY_ARCHIVE_URL: await server.createDatabase("migrate_uncopied"), ...s3.env };
      const summary = join(home, "sessions", "alpha", "summary.json");
      for (const args of [["sessions"], ["context", "alpha"], ["add", "alpha", "--role", "user", "--content", "x"]]) {
        const r = await cli(args, { home, env });
        expect({ args, code: r.code }).toEqual({ args, code: 2 });
        expect(r.stderr).toStartWith(`memvoy: ${home} holds its own archive (.store/history.db), never copied into`);
        expect(r.stderr).toContain("Run memvoy migrate-archive to copy it there first");
      }
      // Nothing of the home was taken for a stale cache: its summary is still there to be copied.
      expect(readFileSync(summary, "utf8")).toBe('{"summary":"alpha so far"}\n');
      expect((await cli(["migrate-archive"], { home, env })).code).toBe(0);
      const after = await cli(["summary", "alpha", "--json"], { home, env });
      expect(after.code).toBe(0);
      expect(readFileSync(summary, "utf8")).toBe('{"summary":"alpha so far"}\n');
      expect((await cli(["sessions"], { home, env })).stdout).toContain("alpha");
      // An archive a command made before the home was shared, that holds nothing, has nothing to lose: no refusal.
      const { home: bare, api } = openTemp();
      api.close();
      expect(readFileSync(join(bare, ".store", "history.db")).length).toBeGreaterThan(0);
      appendFileSync(join(bare, "config.toml"), `\n${s3.vectorsToml("bare")}`);
      const fresh = await cli(["add", "beta", "--role", "user", "--content", "first on the shared archive"], {
        home: bare,
        env,
      });
      expect({ code: fresh.code, stderr: fresh.stderr }).toEqual({ code: 0, stderr: "" });
    } finally {
      await s3.stop();
    }
  }, 120_000);

  test("a home of many sessions is copied and checked in a few dozen queries, not a few per session", async () => {
    const { home, api } = openTemp({ drain: "off", now: () => NOW });
    const SESSIONS = 300;
    for (let i = 0; i < SESSIONS; i++) api.add(`s${i}`, { role: "user", content: `note ${i}` });
    api.close();
    for (const i of [0, 7, 42])
      writeFileSync(join(home, "sessions", `s${i}`, "summary.json"), `{"summary":"s${i} so far"}\n`);
    await addExtras(home);
    const url = await server.createDatabase("migrate_many");
    const env = { MEMVOY_ARCHIVE_URL: url };
    expect((await cli(["migrate-archive"], { home, env })).code).toBe(0);
    const admin = new Bun.SQL(server.url, { max: 1 });
    await admin.unsafe("ALTER DATABASE migrate_many SET log_statement = 'all'");
    await admin.close();
    const log = join(server.dir, "server.log");
    const statements = () =>
      readFileSync(log, "utf8")
        .split("\n")
        .filter((l) => / LOG: {2}(execute [^:]*|statement): /.test(l)).length;
    const before = statements();
    const again = await cli(["migrate-archive", "--json"], { home, env });
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ done: true, counts: { sessions: SESSIONS, summaries: 3 } });
    const ran = statements() - before;
    expect(ran).toBeGreaterThan(0);
    expect(ran).toBeLessThan(SESSIONS / 3);
  }, 300_000);

  test("run again after rm, reset --all, rm-message and an error sweep in the home: the target loses what the home removed", async () => {
    const home = buildHome(10);
    await addExtras(home);
    const url = await server.createDatabase("migrate_removals");
    const env = { MEMVOY_ARCHIVE_URL: url };
    expect((await cli(["migrate-archive"], { home, env })).code).toBe(0);

    const src = openSqliteArchive(join(home, ".store", "history.db"));
    const gamma = await src.listMessages("gamma");
    await src.close();
    for (const args of [
      ["rm", "beta"],
      ["reset", "--all", "alpha"],
      ["rm-message", gamma[3]!.id],
      ["add", "gamma", "--role", "user", "--content", "gamma after the removal"],
      ["errors", "sweep"], // the record expired: swept here
    ])
      expect((await cli(args, { home })).code).toBe(0);
    // A summary another host wrote in the archive since is not the home's to drop.
    const live = await openPgArchive(url);
    await live.putSummaryState("gamma", { summary: '{"summary":"gamma, written elsewhere"}', cursor: "" }, nowNs());
    await live.close();

    const r = await cli(["migrate-archive"], { home, env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("copied 1 message (10 in the archive, 2 sessions, 0 summaries");

    const dst = await openPgArchive(url);
    const home2 = openSqliteArchive(join(home, ".store", "history.db"));
    try {
      const texts = (await dst.exportMessages(0n, 10_000)).map((m) => m.content);
      expect(texts.filter((t) => /^(alpha|beta) /.test(t))).toEqual([]);
      expect(texts).not.toContain(gamma[3]!.content);
      expect(texts).toContain("gamma after the removal");
      expect(await dst.exportMessages(0n, 10_000)).toEqual(await home2.exportMessages(0n, 10_000));
      expect((await dst.listSessions()).map((s) => s.id)).toEqual(["alpha", "gamma"]);
      expect(await dst.getSummaryState("alpha")).toBeUndefined();
      expect(await dst.getSummaryRun("alpha")).toBeUndefined();
      expect((await dst.getSummaryState("gamma"))?.summary).toContain("written elsewhere");
      expect(await dst.startOf("alpha")).toEqual(await home2.startOf("alpha"));
      expect(await dst.countMessages("beta")).toBe(0);
      expect(await dst.errorBySignature("BASH", "sig")).toBeUndefined();
    } finally {
      await dst.close();
      await home2.close();
    }
    const again = await cli(["migrate-archive", "--json"], { home, env });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      copied: 0,
      done: true,
      counts: { messages: 10, sessions: 2, errors: 0 },
    });
  }, 300_000);

  test("run again after rm of a session and a new one of the same name: the old session's usage leaves the target", async () => {
    const home = buildHome(4);
    await addExtras(home);
    const url = await server.createDatabase("migrate_rm_again");
    const env = { MEMVOY_ARCHIVE_URL: url };
    expect((await cli(["migrate-archive"], { home, env })).code).toBe(0);
    for (const args of [
      ["rm", "alpha"],
      ["add", "alpha", "--role", "user", "--content", "a new alpha"],
    ])
      expect((await cli(args, { home })).code).toBe(0);
    const r = await cli(["migrate-archive"], { home, env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("copied 1 message (");
    const dst = await openPgArchive(url);
    try {
      expect(await dst.usageTotals("alpha")).toEqual([]);
      expect(await dst.countMessages("alpha")).toBe(1);
    } finally {
      await dst.close();
    }
  }, 300_000);

  test("run again after hosts recorded errors, usage and summaries in the target: theirs stay, the home's are added", async () => {
    const home = buildHome(4);
    await addExtras(home);
    const url = await server.createDatabase("migrate_host_rows");
    const env = { MEMVOY_ARCHIVE_URL: url };
    expect((await cli(["migrate-archive"], { home, env })).code).toBe(0);
    const fields = (tool: string, error: string, fix: string) => ({
      tool,
      signature: error,
      error,
      cause: null,
      fix,
      outcome: "resolved" as const,
      keywords: [],
    });
    const far = nowNs() + 1_000_000_000_000_000n;
    // Hosts in shared mode: two error records (one of an error the home records too), a call, a run.
    const live = await openPgArchive(url);
    await live.insertError(
      "0d0c",
      fields("docker", "permission denied on the socket", "join the docker group"),
      NOW,
      far,
    );
    await live.insertError("0917", fields("git", "not a git repository", "run git init"), NOW, far);
    await live.insertUsage({
      at: nowNs(),
      session: "beta",
      purpose: "summary",
      model: "m",
      inputTokens: 7,
      outputTokens: 1,
    });
    await live.startSummaryRun("beta", nowNs());
    // A host summarized alpha since (the home has not): its summary and run are newer than the home's.
    await live.putSummaryState("alpha", { summary: '{"summary":"alpha, newer from a host"}', cursor: "" }, nowNs());
    await live.startSummaryRun("alpha", nowNs());
    const hostRun = await live.getSummaryRun("alpha");
    await live.close();
    // The home, meanwhile: its own records and a call, taking the keys the hosts' rows took there.
    const local = openSqliteArchive(join(home, ".store", "history.db"));
    await local.insertError("ca60", fields("cargo", "borrow of moved value", "clone it first"), NOW, far);
    await local.insertError("6170", fields("git", "not a git repository", "cd into the repository"), NOW, far);
    await local.insertUsage({
      at: NOW,
      session: "gamma",
      purpose: "summary",
      model: "m",
      inputTokens: 3,
      outputTokens: 1,
    });
    await local.close();

    const r = await cli(["migrate-archive"], { home, env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const fixes = async () => {
      const dst = await openPgArchive(url);
      try {
        const rows = await dst.exportRows("error_records");
        return [rows.map((e) => `${e.tool}: ${e.fix}`).sort(), (await dst.usageTotals("beta")).length];
      } finally {
        await dst.close();
      }
    };
    // One record per error: the home's git record is the one kept.
    const all = [
      "bash: retry",
      "cargo: clone it first",
      "docker: join the docker group",
      "git: cd into the repository",
    ];
    expect(await fixes()).toEqual([all, 1]);
    const dst = await openPgArchive(url);
    expect((await dst.getSummaryState("alpha"))?.summary).toContain("newer from a host");
    expect(await dst.getSummaryRun("alpha")).toEqual(hostRun);
    await dst.close();
    // A later run after errors rm in the home removes the home's record only, not the hosts' rows.
    expect((await cli(["errors", "rm", "ca60"], { home })).code).toBe(0);
    const again = await cli(["migrate-archive"], { home, env });
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    expect(await fixes()).toEqual([all.filter((f) => !f.startsWith("cargo")), 1]);
  }, 300_000);

  test("with [vectors] on S3 the vectors follow the messages; a kill mid-way resumes, the ids are verified", async () => {
    const s3: S3Server = await startS3Server();
    try {
      const home = buildHome(50);
      await fillVectors({ kind: "local", dir: join(home, ".store", "lance") });
      appendFileSync(join(home, "config.toml"), `\n${s3.vectorsToml("migrated")}`);
      const env = { MEMVOY_ARCHIVE_URL: await server.createDatabase("migrate_vectors"), ...s3.env };
      const killed = await cli(["migrate-archive", "--json"], {
        home,
        env: { ...env, MEMVOY_TEST_FAULT: "after-vector-batch" },
      });
      expect(killed.code).not.toBe(0);
      const partial = await vectorCounts(s3.location("migrated"));
      const before = partial[0]! + partial[1]!;
      expect(before).toBeGreaterThan(0);
      expect(before).toBeLessThan(320);
      // The killed copy held the shared vectors' write lease; the next run of this home takes it back.
      const target = await openPgArchive(env.MEMVOY_ARCHIVE_URL);
      expect((await target.leaseHolder(VECTOR_WRITE_JOB, "*"))?.holder).toStartWith("migrate-archive:");

      const r = await cli(["migrate-archive", "--json"], { home, env });
      expect(r.code).toBe(0);
      expect(await target.leaseHolder(VECTOR_WRITE_JOB, "*")).toBeUndefined();
      await target.close();
      const out = JSON.parse(r.stdout);
      expect(out).toMatchObject({ done: true, resumed: true, copied: 0, total: 150 });
      expect(out.vectors.copied).toBe(320 - before);
      expect(await vectorCounts(s3.location("migrated"))).toEqual([300, 20]);
      expect(r.stdout + r.stderr).not.toContain(s3.env.AWS_SECRET_ACCESS_KEY);

      const again = await cli(["migrate-archive"], { home, env });
      expect(again.code).toBe(0);
      expect(again.stdout).toContain("vectors: 0 copied");
    } finally {
      await s3.stop();
    }
  }, 300_000);

  test("the vector store down: the messages are copied, and the one line says the vectors are not and what to do", async () => {
    const home = buildHome(20);
    await fillVectors({ kind: "local", dir: join(home, ".store", "lance") });
    appendFileSync(
      join(home, "config.toml"),
      '\n[vectors]\nuri = "s3://bucket/p"\nendpoint = "http://127.0.0.1:1"\nallow_http = true\n',
    );
    const url = await server.createDatabase("migrate_store_down");
    const r = await cli(["migrate-archive"], { home, env: { MEMVOY_ARCHIVE_URL: url, ...S3RVER_KEYS } });
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toStartWith("memvoy: the messages are copied, the vectors are not: cannot open the vector store");
    expect(lines[0]).toEndWith(
      "run memvoy migrate-archive again once the vector store answers (it copies only what is missing)",
    );
    const target = await openPgArchive(url);
    try {
      expect(await target.countMessages()).toBe(60);
    } finally {
      await target.close();
    }
  }, 120_000);

  test("one run per home at a time; the vector copy waits for the write lease a drain elsewhere holds", async () => {
    const s3: S3Server = await startS3Server();
    const home = buildHome(50);
    await fillVectors({ kind: "local", dir: join(home, ".store", "lance") });
    appendFileSync(join(home, "config.toml"), `\n${s3.vectorsToml("turns")}`);
    const url = await server.createDatabase("migrate_turns");
    const env = { MEMVOY_ARCHIVE_URL: url, ...s3.env };
    const target = await openPgArchive(url);
    try {
      // Another run of this home holds its lock: this one stops at once, one line, exit 2, nothing copied.
      const key = cursorKey(join(home, ".store", "history.db"));
      const busy = await target.withSessionLock(key, () => cli(["migrate-archive"], { home, env }));
      expect(busy.code).toBe(2);
      expect(busy.stderr.trim().split("\n")).toHaveLength(1);
      expect(busy.stderr).toContain("another memvoy migrate-archive of");
      expect(await target.countMessages()).toBe(0);

      const drain = (await target.acquireLease(VECTOR_WRITE_JOB, "*", "another-host:7#drain", 120_000))!;
      const run = cli(["migrate-archive", "--json"], { home, env });
      await waitFor(async () => (await target.countMessages()) === 150, 60_000, "the messages copied");
      await Bun.sleep(1000);
      expect(await vectorCounts(s3.location("turns"))).toEqual([0, 0]);
      await target.releaseLease(drain);
      const r = await run;
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).vectors.copied).toBe(320);
      expect(await vectorCounts(s3.location("turns"))).toEqual([300, 20]);
    } finally {
      await target.close();
      await s3.stop();
    }
  }, 300_000);

  test("run again after hosts wrote to the target: refused with exit 2 before anything changes", async () => {
    const home = buildHome(10);
    const url = await server.createDatabase("migrate_written");
    const env = { MEMVOY_ARCHIVE_URL: url };
    expect((await cli(["migrate-archive"], { home, env })).code).toBe(0);
    const shared = await openPgArchive(url);
    try {
      await shared.appendMessages("elsewhere", [{ id: "x1", role: "user", content: "from a host", sendAt: NOW }], {
        now: NOW,
      });
      expect((await cli(["add", "alpha", "--role", "user", "--content", "written here later"], { home })).code).toBe(0);
      const before = await shared.counts();
      const r = await cli(["migrate-archive"], { home, env });
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain(
        'written since this home\'s last run, by memvoy in shared mode (messages this home did not copy, the first in session "elsewhere")',
      );
      expect(await shared.counts()).toEqual(before);
      // The later message took no seq of the archive's, and the resume cursor did not move past it.
      const a = openSqliteArchive(join(home, ".store", "history.db"));
      const later = (await a.listMessages("alpha", { newestFirst: true, limit: 1 }))[0]!;
      await a.close();
      expect(later.content).toBe("written here later");
      expect(await shared.messagesById([later.id])).toEqual([]);
      expect(JSON.parse((await shared.getMeta(cursorKey(join(home, ".store", "history.db"))))!).cursor).toBe("30");
    } finally {
      await shared.close();
    }
  }, 120_000);

  test("run again after a host removed a session in the target: refused with exit 2, the session not brought back", async () => {
    const home = buildHome(10);
    const url = await server.createDatabase("migrate_removed_there");
    const env = { MEMVOY_ARCHIVE_URL: url };
    expect((await cli(["migrate-archive"], { home, env })).code).toBe(0);
    const shared = await openPgSharedArchive(url);
    try {
      // What `memvoy rm beta` does on a host in shared mode.
      await shared.removeSessionMessages("beta", NOW);
      await shared.removeSession("beta");
      const r = await cli(["migrate-archive"], { home, env });
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain("(10 removal(s) this home did not make)");
      expect((await shared.listSessions()).map((s) => s.id)).toEqual(["alpha", "gamma"]);
    } finally {
      await shared.close();
    }
  }, 120_000);

  test("a target holding messages from elsewhere is refused with exit 2", async () => {
    const url = await server.createDatabase("migrate_busy");
    const other = await openPgArchive(url);
    await other.appendMessages("x", [{ id: "x1", role: "user", content: "x", sendAt: NOW }], { now: NOW });
    await other.close();
    const home = buildHome(10);
    const r = await cli(["migrate-archive"], { home, env: { MEMVOY_ARCHIVE_URL: url } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("already holds 1 messages");
  }, 120_000);

  test("a user or database the server does not know: a config error (exit 2), one line, no password", async () => {
    const home = buildHome(5);
    const base = new URL(server.url);
    const shared = tempHome();
    writeFileSync(join(shared, "config.toml"), '[vectors]\nuri = "s3://bucket/p"\nendpoint = "http://127.0.0.1:1"\n');
    for (const target of [
      `postgres://nobody:${SECRET}@${base.host}/postgres`,
      `postgres://memvoy-pg:${SECRET}@${base.host}/no_such_db`,
    ]) {
      const runs = [
        await cli(["migrate-archive"], { home, env: { MEMVOY_ARCHIVE_URL: target } }),
        await cli(["sessions"], {
          home: shared,
          env: { MEMVOY_ARCHIVE_URL: target, AWS_ACCESS_KEY_ID: "k", AWS_SECRET_ACCESS_KEY: "s" },
        }),
      ];
      for (const r of runs) {
        expect(r.code).toBe(2);
        expect(r.stderr.trim().split("\n").length).toBe(1);
        expect(r.stderr).toMatch(/role "nobody" does not exist|database "no_such_db" does not exist/);
        expect(r.stderr).toContain("check the user, database and password");
        expect(r.stderr).not.toContain(SECRET);
      }
    }
  }, 60_000);

  test("a password in the URL, in the userinfo or as ?password=, wins over PGPASSWORD (as with libpq)", async () => {
    const admin = new Bun.SQL(server.url, { max: 1 });
    const base = new URL(server.url);
    try {
      await admin.unsafe(`CREATE ROLE pw_user LOGIN PASSWORD '${SECRET}'`);
      await admin.unsafe("CREATE DATABASE pw_db OWNER pw_user");
      // Password authentication for that role only (the first matching line of pg_hba.conf wins).
      const hba = join(server.dir, "data", "pg_hba.conf");
      writeFileSync(hba, `host all pw_user 127.0.0.1/32 scram-sha-256\n${readFileSync(hba, "utf8")}`);
      await admin`SELECT pg_reload_conf()`;
      for (const url of [
        `postgres://pw_user:${SECRET}@${base.host}/pw_db`,
        `postgres://pw_user@${base.host}/pw_db?password=${SECRET}`,
      ]) {
        const archive = await openPgArchive(url, { env: { PGPASSWORD: "an-old-password" } });
        await archive.close();
      }
      const fromEnv = await openPgArchive(`postgres://pw_user@${base.host}/pw_db`, { env: { PGPASSWORD: SECRET } });
      await fromEnv.close();
    } finally {
      await admin.close();
    }
  }, 60_000);

  test("an unreachable server: one line naming host, port and database, no password", async () => {
    const home = buildHome(5);
    const r = await cli(["migrate-archive"], {
      home,
      env: { MEMVOY_ARCHIVE_URL: `postgres://memvoy-pg:${SECRET}@127.0.0.1:1/none` },
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n").length).toBe(1);
    expect(r.stderr).toContain("127.0.0.1:1/none");
    expect(r.stderr).not.toContain(SECRET);
  }, 60_000);
});
