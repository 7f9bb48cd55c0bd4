// stats, usage, doctor and errors sweep on a shared archive (PostgreSQL + vectors on the S3 test server):
// figures from the archive, the same on every host; doctor's checks and repairs; exit codes as embedded.
import { beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, tempHome, type CliResult } from "../fixture/home.ts";
import { describePostgres } from "../fixture/postgres-server.ts";
import { sharedBackend, type SharedEnv } from "../fixture/shared-backend.ts";
import { VECTOR_WRITE_JOB } from "../../src/storage/ports/lease-turn.ts";
import { openPgSharedArchive } from "../../src/storage/postgres/pg-shared-archive.ts";
import { openErrorVectors } from "../../src/storage/ports/vector-port.ts";

const describe = describePostgres();
const json = (r: { stdout: string }) => JSON.parse(r.stdout);

describe("administration commands on a shared archive", () => {
  const shared = sharedBackend();
  let url: string;
  let env: SharedEnv;
  let a: string;
  let b: string;

  beforeAll(async () => {
    env = await shared.env("admin");
    url = env.MEMVOY_ARCHIVE_URL;
    [a, b] = [shared.home("admin"), shared.home("admin")];
    const lines = Array.from({ length: 6 }, (_, i) =>
      JSON.stringify({ role: "user", content: `note ${i} on deploys` }),
    );
    expect((await cli(["add", "ops"], { home: a, env, stdin: lines.join("\n") })).code).toBe(0);
    expect((await cli(["add", "dev", "--role", "user", "--content", "hello"], { home: a, env })).code).toBe(0);
  }, 60_000);

  test("stats and usage read the archive: the same figures on another host, with what is shared and what is local", async () => {
    const archive = await openPgSharedArchive(url);
    await archive.insertUsage({
      at: BigInt(Date.now()) * 1_000_000n,
      session: "ops",
      purpose: "summary",
      model: "claude-test",
      inputTokens: 120,
      outputTokens: 30,
    });
    await archive.close();
    // A semantic search drains the embedding queue into the shared vectors.
    expect((await cli(["search", "deploys", "--match", "semantic"], { home: a, env })).code).toBe(0);
    const [sa, sb] = (await Promise.all([a, b].map((home) => cli(["stats", "--json"], { home, env })))) as [
      CliResult,
      CliResult,
    ];
    expect(sb.code).toBe(0);
    const s = json(sb);
    expect(s).toMatchObject({
      sessions: 2,
      tiers: {
        window: { messages: 7 },
        semantic: { vectors: 7, pending: 0 },
        archive: { messages: 7, archivedOnly: 0 },
      },
      errors: { records: 0 },
      tokens: { calls: 1, input: 120, output: 30 },
      shared: { vectors: expect.stringMatching(/^s3:\/\/.+/), figures: expect.arrayContaining(["sessions", "tiers"]) },
      local: { sessionCaches: 0 },
    });
    expect(s.shared.archive).not.toContain("password");
    expect(s.disk.archive).toBeGreaterThan(0);
    const other = json(sa);
    expect(other.tiers).toEqual(s.tiers);
    expect(other.local.sessionCaches).toBe(2); // host a wrote, so it holds the caches
    const text = await cli(["stats"], { home: b, env });
    expect(text.stdout).toContain("shared archive");
    const usage = await cli(["usage", "--json"], { home: b, env });
    expect(usage.code).toBe(0);
    expect(json(usage)).toMatchObject({
      rows: [{ model: "claude-test", session: "ops", calls: 1, inputTokens: 120, outputTokens: 30 }],
      budget: { usedToday: 150 },
    });
  }, 120_000);

  test("errors sweep deletes every host's expired records, one host at a time (the sweep lease)", async () => {
    const rec = ["errors", "record", "--tool", "make", "--error", "missing separator", "--fix", "use tabs"];
    expect((await cli(rec, { home: a, env })).code).toBe(0);
    const archive = await openPgSharedArchive(url);
    await archive.sql`UPDATE error_records SET expires_at = 1`;
    // Another host's daemon is sweeping: this one leaves it alone.
    const other = await archive.acquireLease("error-sweep", "*", "other-host:1", 60_000);
    expect(other).toBeDefined();
    const busy = await cli(["errors", "sweep", "--json"], { home: b, env });
    expect(busy.code).toBe(0);
    expect(json(busy)).toMatchObject({ removed: 0, busy: true, notes: [expect.stringContaining("other-host:1")] });
    expect((await archive.sql`SELECT count(*)::int AS n FROM error_records`)[0].n).toBe(1);
    if (other) await archive.releaseLease(other);
    await archive.close();
    const r = await cli(["errors", "sweep", "--json"], { home: b, env });
    expect(r.code).toBe(0);
    expect(json(r)).toMatchObject({ removed: 1 });
    expect(json(await cli(["errors", "list", "--json"], { home: a, env }))).toMatchObject({ total: 0 });
  }, 120_000);

  test("doctor: a stale cache and a stuck lease are found (exit 1), --repair fixes them (exit 0)", async () => {
    let r = await cli(["doctor", "--json"], { home: a, env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(json(r)).toMatchObject({
      ok: true,
      findings: [],
      sessions: 2,
      shared: { archive: { reachable: true }, vectors: { reachable: true, messageVectors: 7 }, caches: 2 },
    });
    const history = join(a, "sessions", "ops", "history.json");
    const good = readFileSync(history, "utf8");
    writeFileSync(history, "[{ truncated");
    const archive = await openPgSharedArchive(url);
    await archive.acquireLease("summary", "ops", "gone-host:1", 6 * 3_600_000);
    r = await cli(["doctor"], { home: a, env });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("ops: cache differs from the archive: history.json");
    expect(r.stdout).toContain("held by gone-host:1");
    r = await cli(["doctor", "--repair", "--json"], { home: a, env });
    expect(r.code).toBe(0);
    const report = json(r);
    expect(report.findings).toHaveLength(2);
    expect(report.findings.every((f: { repaired?: string }) => f.repaired)).toBe(true);
    expect(readFileSync(history, "utf8")).toBe(good);
    expect(await archive.leaseHolder("summary", "ops")).toBeUndefined();
    await archive.close();
    expect((await cli(["doctor"], { home: a, env })).code).toBe(0);
  }, 120_000);

  test("doctor: a cache behind another host's writes is no problem; one edited by hand still is", async () => {
    const c = shared.home("admin");
    expect((await cli(["add", "lag", "--role", "user", "--content", "from host c"], { home: c, env })).code).toBe(0);
    // Host a adds and a summary is saved: c's caches are behind.
    const add = await cli(["add", "lag", "--role", "assistant", "--content", "from host a"], { home: a, env });
    expect(add.code).toBe(0);
    const archive = await openPgSharedArchive(url);
    const summary = JSON.stringify({ key_decisions: ["Do: x"], past_discussions: [], current_discussion: null });
    await archive.putSummaryState("lag", { summary, cursor: "" }, 1n);
    await archive.close();
    let r = await cli(["doctor"], { home: c, env });
    expect(r.stdout).toContain("this host's session caches checked: 1\nall good\n");
    expect(r.code).toBe(0);
    const history = join(c, "sessions", "lag", "history.json");
    writeFileSync(history, readFileSync(history, "utf8").replace("from host c", "from host d"));
    r = await cli(["doctor"], { home: c, env });
    expect(r.stdout).toContain("lag: cache differs from the archive: history.json, summary.json, .summary_cursor");
    expect(r.code).toBe(1);
    expect((await cli(["doctor", "--repair"], { home: c, env })).code).toBe(0);
    expect(readFileSync(history, "utf8")).toContain("from host a");
    // A summary another host dropped (rm-message --drop-summary) is removed text, not a lag: still reported.
    const dropping = await openPgSharedArchive(url);
    expect(await dropping.forgetSummary("lag")).toBe(true);
    await dropping.close();
    r = await cli(["doctor"], { home: c, env });
    expect(r.stdout).toContain("lag: cache differs from the archive: summary.json, .summary_cursor");
    expect(r.code).toBe(1);
  }, 120_000);

  test("doctor: a schema behind this memvoy's is reported, and --migrate migrates it", async () => {
    const fresh = { ...env, MEMVOY_ARCHIVE_URL: await shared.pg.createDatabase("unmigrated") };
    let r = await cli(["doctor", "--json"], { home: b, env: fresh });
    expect(r.code).toBe(1);
    expect(json(r)).toMatchObject({ ok: false, shared: { archive: { schemaVersion: 0 } } });
    expect(r.stdout).toContain("doctor --migrate");
    r = await cli(["doctor", "--migrate", "--json"], { home: b, env: fresh });
    expect(r.code).toBe(0);
    const report = json(r);
    expect(report.shared.archive.schemaVersion).toBe(report.shared.archive.expectedVersion);
    expect(report.findings[0].repaired).toContain("migrated the schema from version 0");
    expect((await cli(["doctor"], { home: b, env: fresh })).code).toBe(0);
  }, 120_000);

  test("doctor: a stray file in sessions/ and a linked daemon.log on this host are named, --repair fixes them", async () => {
    const stray = join(a, "sessions", "notes.txt");
    writeFileSync(stray, "my notes", { mode: 0o600 });
    const victim = join(tempHome("memvoy-outside-"), "victim.txt");
    writeFileSync(victim, "precious");
    symlinkSync(victim, join(a, "daemon.log"));
    let r = await cli(["doctor", "--json"], { home: a, env });
    expect(r.code).toBe(1);
    expect(json(r).findings.map((f: { problem: string }) => f.problem.split(" is ")[0])).toEqual([
      join(a, "daemon.log"),
      stray,
    ]);
    r = await cli(["doctor", "--repair"], { home: a, env });
    expect(r.code).toBe(0);
    expect(readFileSync(victim, "utf8")).toBe("precious");
    expect(existsSync(stray)).toBe(false);
    expect((await cli(["doctor"], { home: a, env })).code).toBe(0);
  }, 120_000);

  test("a linked history.json on this host: history, search --session and export of that session refuse it alike", async () => {
    const outside = join(tempHome("memvoy-outside-"), "outside.json");
    writeFileSync(outside, "[]");
    mkdirSync(join(b, "sessions", "ops"), { recursive: true });
    const link = join(b, "sessions", "ops", "history.json");
    symlinkSync(outside, link);
    try {
      for (const args of [
        ["history", "ops"],
        ["search", "deploys", "--session", "ops"],
        ["export", "ops"],
      ]) {
        const r = await cli(args, { home: b, env });
        expect({ args, code: r.code }).toEqual({ args, code: 2 });
        expect(r.stderr).toContain(`${link} is a symbolic link`);
      }
    } finally {
      rmSync(link);
    }
  }, 120_000);

  test("doctor: an unreachable archive and a secret in config.toml are findings (exit 1), not crashes", async () => {
    const home = shared.home("admin", `\n# token sk-ant-api03-${"x".repeat(40)}\n`);
    const down = { ...env, MEMVOY_ARCHIVE_URL: "postgres://memvoy@127.0.0.1:1/none" };
    const r = await cli(["doctor", "--json"], { home, env: down });
    expect(r.code).toBe(1);
    const report = json(r);
    expect(report.shared.archive).toMatchObject({ reachable: false, target: "memvoy@127.0.0.1:1/none" });
    expect(report.findings.map((f: { problem: string }) => f.problem).join("\n")).toMatch(
      /config\.toml holds a secret[\s\S]*cannot be opened/,
    );
    expect(r.stdout).not.toContain("xxxxxxxxxx");
    // Repairing needs the archive: the advice says so instead of sending the user to --repair.
    for (const args of [["doctor"], ["doctor", "--repair"]]) {
      const text = await cli(args, { home, env: down });
      expect(text.code).toBe(1);
      expect(text.stdout.trim().split("\n").at(-1)).toBe(
        "problems found; nothing can be repaired while the shared archive cannot be reached",
      );
    }
  }, 120_000);

  test("doctor: what --repair cannot change (vectors unreachable, a secret in config.toml) is not sent to --repair", async () => {
    const home = tempHome();
    const unreachable = shared.s3.vectorsToml("admin").replace(/127\.0\.0\.1:\d+/, "127.0.0.1:1");
    writeFileSync(join(home, "config.toml"), `${unreachable}\n# token sk-ant-api03-${"x".repeat(40)}\n`);
    for (const args of [["doctor"], ["doctor", "--repair"]]) {
      const r = await cli(args, { home, env });
      expect(r.code).toBe(1);
      expect(r.stdout).toContain("the shared vectors at s3://");
      expect(r.stdout).toContain("config.toml holds a secret");
      expect(r.stdout.trim().split("\n").at(-1)).toBe(
        "problems left that --repair does not change; each says what to do",
      );
    }
  }, 120_000);

  test("recording an error again merges into its record signed under an older memvoy's rules", async () => {
    const errEnv = { ...env, MEMVOY_ARCHIVE_URL: await shared.pg.createDatabase("resign") };
    const rec = ["errors", "record", "--tool", "kubectl", "--error", "OOMKilled: limit 512Mi", "--fix", "raise it"];
    const first = await cli([...rec, "--json"], { home: a, env: errEnv });
    expect(first.code, first.stderr).toBe(0);
    // The signature an older memvoy made (it kept the unit of 512Mi), and no record of the rules it used.
    const sql = new Bun.SQL(errEnv.MEMVOY_ARCHIVE_URL!);
    await sql.unsafe("UPDATE error_records SET signature = 'oomkilled: limit <n>mi'");
    await sql.unsafe("DELETE FROM embed_state WHERE key = 'error_signature_rules'");
    await sql.close();
    const again = await cli([...rec, "--json"], { home: b, env: errEnv });
    expect(again.code, again.stderr).toBe(0);
    expect(json(again)).toMatchObject({ merged: true, record: { id: json(first).record.id, occurrences: 2 } });
    expect(json(await cli(["errors", "list", "--json"], { home: a, env: errEnv })).total).toBe(1);
  }, 120_000);

  test("a semantic search names what embeds the messages not indexed yet", async () => {
    const queuedUrl = await shared.pg.createDatabase("queued");
    const on = { ...env, MEMVOY_ARCHIVE_URL: queuedUrl };
    const [writer, reader] = [tempHome(), tempHome()];
    for (const h of [writer, reader]) writeFileSync(join(h, "config.toml"), shared.s3.vectorsToml("queued"));
    expect(
      (
        await cli(["add", "queued", "--role", "user", "--content", "the nightly backup ran late"], {
          home: writer,
          env: on,
        })
      ).code,
    ).toBe(0);
    const archive = await openPgSharedArchive(queuedUrl);
    const other = await archive.acquireLease(VECTOR_WRITE_JOB, "*", "other-host:7", 60_000);
    try {
      const r = await cli(["search", "backup", "--match", "semantic", "--json"], { home: reader, env: on });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).notes).toEqual([
        "1 message is not indexed yet: another process (other-host:7) is embedding them",
      ]);
    } finally {
      if (other) await archive.releaseLease(other);
      await archive.close();
    }
    const r = await cli(["search", "backup", "--match", "semantic", "--json"], { home: reader, env: on });
    expect(JSON.parse(r.stdout)).toMatchObject({ notIndexed: 0, notes: [] });
  }, 120_000);

  test("errors recorded on several hosts at once: every record said to be embedded has its vector", async () => {
    const errUrl = await shared.pg.createDatabase("errconc");
    const on = { ...env, MEMVOY_ARCHIVE_URL: errUrl };
    const hosts = [tempHome(), tempHome(), tempHome(), tempHome()];
    for (const h of hosts) writeFileSync(join(h, "config.toml"), shared.s3.vectorsToml("errconc"));
    const runs = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        cli(
          ["errors", "record", "--tool", "cargo", "--error", `borrow of moved value ${i} in m${i}`, "--fix", "clone"],
          { home: hosts[i % hosts.length]!, env: on },
        ),
      ),
    );
    expect(runs.map((r) => r.code)).toEqual(runs.map(() => 0));
    const archive = await openPgSharedArchive(errUrl);
    const store = await openErrorVectors(shared.s3.location("errconc"));
    try {
      const embedded = (await archive.exportRows("error_records"))
        .filter((r) => r.embedded_by !== null)
        .map((r) => String(r.id));
      const stored = new Set(await store.ids("builtin:v1:384"));
      expect(embedded.filter((id) => !stored.has(id))).toEqual([]);
    } finally {
      store.close();
      await archive.close();
    }
  }, 120_000);
});
