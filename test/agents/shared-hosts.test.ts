// Four homes standing for four hosts on one PostgreSQL archive and one bucket: concurrent writers to one
// session lose and duplicate nothing, every home's CLI reads the same session, and each home's files (caches)
// catch up with the other homes' writes. Commands that do not run in shared mode refuse with exit 2.
import { beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openSharedHome } from "../../src/app/shared/open-shared.ts";
import { idTombstoneHash } from "../../src/storage/ports/tombstone-hash.ts";
import { cli, tempHome } from "../fixture/home.ts";
import { processOutput } from "../fixture/process-output.ts";
import { sdkStdio } from "./mcp-client.ts";
import { entry } from "./support.ts";
import { describePostgres } from "../fixture/postgres-server.ts";
import { sharedBackend, type SharedEnv } from "../fixture/shared-backend.ts";

const WRITER = join(import.meta.dir, "../fixture/shared-writer.ts");
const HOSTS = 4;
const PER_HOST = 500;
const describe = describePostgres();

describe("four hosts on one shared archive", () => {
  const shared = sharedBackend();
  let url: string;
  let homes: string[];
  let env: SharedEnv;

  beforeAll(async () => {
    env = await shared.env("hosts");
    url = env.MEMVOY_ARCHIVE_URL;
    // A small history.json limit: compaction runs while the hosts write.
    homes = Array.from({ length: HOSTS }, () => shared.home("hosts", "\n[limits]\nmax_history_bytes = 20000\n"));
  });

  test(`${HOSTS} hosts x ${PER_HOST} messages to one session: none lost or duplicated, history --all identical everywhere`, async () => {
    const runs = homes.map((home, i) =>
      processOutput(
        Bun.spawn(["bun", WRITER, home, "team", `h${i}`, String(PER_HOST)], {
          env: { PATH: process.env.PATH!, HOME: home, ...env },
          stdout: "pipe",
          stderr: "pipe",
        }),
      ),
    );
    for (const r of await Promise.all(runs)) {
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ duplicates: 10 });
    }
    const views = await Promise.all(homes.map((home) => cli(["history", "team", "--all", "--json"], { home, env })));
    for (const v of views) expect(v.code).toBe(0);
    const first = JSON.parse(views[0]!.stdout) as { messages: { id: string; content: string; tier: string }[] };
    expect(first.messages).toHaveLength(HOSTS * PER_HOST);
    expect(new Set(first.messages.map((m) => m.id)).size).toBe(HOSTS * PER_HOST);
    expect(new Set(first.messages.map((m) => m.content)).size).toBe(HOSTS * PER_HOST);
    for (let i = 0; i < HOSTS; i++) {
      const own = first.messages.filter((m) => m.content.startsWith(`h${i} `)).map((m) => m.content);
      expect(own).toEqual(Array.from({ length: PER_HOST }, (_, k) => `h${i} message ${k}`));
    }
    expect(first.messages.some((m) => m.tier === "archive")).toBe(true);
    for (const v of views.slice(1)) expect(v.stdout).toBe(views[0]!.stdout);

    // Each host's history.json is a cache: after `context` on it, it holds the archive's recent tier.
    const contexts = await Promise.all(homes.map((home) => cli(["context", "team", "--json"], { home, env })));
    for (const c of contexts) expect(c.code).toBe(0);
    const caches = homes.map((h) => readFileSync(join(h, "sessions", "team", "history.json"), "utf8"));
    for (const c of caches.slice(1)) expect(c).toBe(caches[0]!);
    const recent = first.messages.filter((m) => m.tier === "recent").map((m) => m.id);
    expect((JSON.parse(caches[0]!) as { id: string }[]).map((m) => m.id)).toEqual(recent);

    const sessions = await cli(["sessions", "--json"], { home: homes[3]!, env });
    expect(JSON.parse(sessions.stdout)).toMatchObject([{ id: "team", messages: HOSTS * PER_HOST }]);
  }, 600_000);

  test("MCP in shared mode: what one host's server adds, another host's server reads", async () => {
    const [a, b] = await Promise.all(
      [homes[1]!, homes[2]!].map((home) => sdkStdio(["bun", entry, "mcp", "--home", home], env)),
    );
    try {
      const added = await a!.client.callTool({
        name: "add_messages",
        arguments: { session: "mcp", messages: [{ role: "user", content: "written over MCP on host one" }] },
      });
      expect(added.isError).toBeUndefined();
      const read = await b!.client.callTool({ name: "chat_history", arguments: { mode: "recent", session: "mcp" } });
      expect(read.isError).toBeUndefined();
      expect(JSON.stringify(read.structuredContent)).toContain("written over MCP on host one");
    } finally {
      await Promise.all([a?.close(), b?.close()]);
    }
  }, 120_000);

  test("a message removed on one host leaves another host's cache when that host next reads or lists the session", async () => {
    const [a, b] = homes as [string, string];
    const run = async (home: string, args: string[]) => {
      const r = await cli(args, { home, env });
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      return r.stdout.trim();
    };
    const sessions = ["gone-a", "gone-b"];
    const ids: string[] = [];
    for (const s of sessions) {
      await run(a, ["add", s, "--role", "user", "--content", "hello"]);
      ids.push(await run(a, ["add", s, "--role", "user", "--content", `${s}: the key is sk-live-REMOVEDTEXT42`]));
      await run(b, ["context", s]); // host B's agent read the session: its cache holds the message
    }
    for (const id of ids) await run(a, ["rm-message", id]);
    const cache = (s: string) => join(b, "sessions", s, "history.json");
    const holds = (s: string) => existsSync(cache(s)) && readFileSync(cache(s), "utf8").includes("REMOVEDTEXT42");
    expect(sessions.map(holds)).toEqual([true, true]);

    const doctor = await cli(["doctor"], { home: b, env });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(`gone-a: history.json holds 1 removed message(s) (${ids[0]})`);
    await run(b, ["history", "gone-a"]);
    expect(sessions.map(holds)).toEqual([false, true]);
    await run(b, ["sessions"]);
    expect(sessions.map(holds)).toEqual([false, false]);
    expect((await cli(["doctor"], { home: b, env })).stdout).not.toContain("removed message");

    // A whole session removed on host A: host B's folder goes with its next listing.
    await run(b, ["context", "gone-b"]);
    await run(a, ["rm", "gone-b"]);
    await run(b, ["sessions"]);
    expect(existsSync(join(b, "sessions", "gone-b"))).toBe(false);
  }, 120_000);

  test("a session or a summary removed on another host after its messages: host B's summary files go with its next listing", async () => {
    const [a, b] = homes as [string, string];
    const run = async (home: string, args: string[]) => {
      const r = await cli(args, { home, env });
      expect({ args, stderr: r.stderr, code: r.code }).toEqual({ args, stderr: "", code: 0 });
    };
    const admin = new Bun.SQL(url, { max: 1 });
    try {
      for (const s of ["kept-rm", "kept-reset"]) {
        await run(a, ["add", s, "--role", "user", "--content", "the plan"]);
        const summary = JSON.stringify({ summary: `${s}: the plan is SUMMARYTEXT99` });
        await admin`INSERT INTO session_summaries (session_id, summary, cursor, version, updated_at)
          VALUES (${s}, ${summary}, '2026-05-01T09:00:00Z', 1, 1)`;
        await run(a, ["reset", s]); // its messages go, its summary stays
        await run(b, ["context", s]); // host B's cache: the summary files, no history.json
      }
    } finally {
      await admin.close();
    }
    await run(b, ["sessions"]); // host B has checked its caches since those removals
    // A folder of host B's own that the archive never had (not copied by migrate-archive yet) is no cache of it.
    mkdirSync(join(b, "sessions", "kept-own"));
    writeFileSync(join(b, "sessions", "kept-own", "summary.json"), '{"summary":"never copied"}\n');
    const summaryHere = (s: string) => existsSync(join(b, "sessions", s, "summary.json"));
    expect([summaryHere("kept-rm"), summaryHere("kept-reset")]).toEqual([true, true]);
    await run(a, ["rm", "kept-rm"]);
    await run(a, ["reset", "kept-reset", "--all"]);
    await run(b, ["sessions"]);
    expect(existsSync(join(b, "sessions", "kept-rm"))).toBe(false);
    expect(summaryHere("kept-reset")).toBe(false);
    expect(summaryHere("kept-own")).toBe(true);
    rmSync(join(b, "sessions", "kept-own"), { recursive: true });
    expect((await cli(["doctor"], { home: b, env })).stdout).not.toContain("kept-");
  }, 120_000);

  test("rm-message cut short before its tombstone is written removes nothing; run again, the message stays out", async () => {
    const [a, b] = homes as [string, string];
    const id = (
      await cli(["add", "cut", "--role", "user", "--content", "token sk-live-CUTSHORT77"], { home: a, env })
    ).stdout.trim();
    const exported = (await cli(["export", "cut"], { home: a, env })).stdout;
    // The server refuses the id's tombstone (as a connection lost right then would leave it unwritten).
    const admin = new Bun.SQL(url, { max: 1 });
    const hash = idTombstoneHash(id);
    try {
      await admin.unsafe(`CREATE FUNCTION refuse_tombstone() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.hash = '${hash}' THEN RAISE EXCEPTION 'connection lost'; END IF; RETURN NEW; END $$`);
      await admin.unsafe(
        "CREATE TRIGGER refuse_tombstone BEFORE INSERT ON tombstones FOR EACH ROW EXECUTE FUNCTION refuse_tombstone()",
      );
      const cut = await cli(["rm-message", id], { home: a, env });
      expect(cut.code).toBe(1);
      // All or nothing: the message is still there, so the retry finds it.
      expect((await cli(["history", "cut", "--all"], { home: b, env })).stdout).toContain("CUTSHORT77");
    } finally {
      await admin.unsafe("DROP TRIGGER IF EXISTS refuse_tombstone ON tombstones");
      await admin.unsafe("DROP FUNCTION IF EXISTS refuse_tombstone()");
      await admin.close();
    }
    expect((await cli(["rm-message", id], { home: a, env })).code).toBe(0);
    const again = await cli(["import", "jsonl", "-"], { home: b, env, stdin: exported });
    expect(again.code, again.stderr).toBe(0);
    expect((await cli(["history", "cut", "--all"], { home: b, env })).stdout).not.toContain("CUTSHORT77");
  }, 120_000);

  test("after a removal on another host, listing the sessions checks this host's caches in a few queries", async () => {
    const many = await shared.pg.createDatabase("many_caches");
    const on = { ...env, MEMVOY_ARCHIVE_URL: many };
    const [a, b] = [tempHome(), tempHome()];
    for (const h of [a, b]) writeFileSync(join(h, "config.toml"), shared.s3.vectorsToml("many"));
    const SESSIONS = 300;
    const writer = await openSharedHome({ home: a, env: on });
    try {
      for (let i = 0; i < SESSIONS; i++) await writer.add(`c${i}`, { role: "user", content: `note ${i}` });
    } finally {
      await writer.close();
    }
    expect((await cli(["sessions"], { home: a, env: on })).code).toBe(0);
    const id = JSON.parse((await cli(["history", "c7", "--json"], { home: b, env: on })).stdout).messages[0].id;
    expect((await cli(["rm-message", id], { home: b, env: on })).code).toBe(0);
    const admin = new Bun.SQL(shared.pg.url, { max: 1 });
    await admin.unsafe("ALTER DATABASE many_caches SET log_statement = 'all'");
    await admin.close();
    const statements = () =>
      readFileSync(join(shared.pg.dir, "server.log"), "utf8")
        .split("\n")
        .filter((l) => / LOG: {2}(execute [^:]*|statement): /.test(l)).length;
    const before = statements();
    expect((await cli(["sessions"], { home: a, env: on })).code).toBe(0);
    expect(statements() - before).toBeLessThan(SESSIONS / 10);
    expect(existsSync(join(a, "sessions", "c7", "history.json"))).toBe(false); // its one message was removed
    expect(existsSync(join(a, "sessions", "c8", "history.json"))).toBe(true);
  }, 180_000);

  test("doctor checks this host's caches in a few queries, not three a session", async () => {
    const many = await shared.pg.createDatabase("doctor_caches");
    const on = { ...env, MEMVOY_ARCHIVE_URL: many };
    const home = shared.home("doctor-caches");
    const SESSIONS = 300;
    const writer = await openSharedHome({ home, env: on });
    try {
      for (let i = 0; i < SESSIONS; i++) await writer.add(`c${i}`, { role: "user", content: `note ${i}` });
    } finally {
      await writer.close();
    }
    writeFileSync(join(home, "sessions", "c3", "history.json"), "[{ truncated");
    const admin = new Bun.SQL(shared.pg.url, { max: 1 });
    await admin.unsafe("ALTER DATABASE doctor_caches SET log_statement = 'all'");
    await admin.close();
    const statements = () =>
      readFileSync(join(shared.pg.dir, "server.log"), "utf8")
        .split("\n")
        .filter((l) => / LOG: {2}(execute [^:]*|statement): /.test(l)).length;
    const before = statements();
    const r = await cli(["doctor"], { home, env: on });
    expect(statements() - before).toBeLessThan(SESSIONS / 10);
    expect(r.stdout).toContain(`this host's session caches checked: ${SESSIONS}\n`);
    expect(r.stdout).toContain("c3: cache differs from the archive: history.json\n");
    expect(r.code).toBe(1);
  }, 180_000);

  test("a shared archive with the vectors left in the home is refused with exit 2", async () => {
    const home = tempHome();
    const r = await cli(["history", "team"], { home, env: { MEMVOY_ARCHIVE_URL: url } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("[vectors] uri");
  }, 60_000);
});
