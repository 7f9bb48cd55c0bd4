// Shared mode's PostgreSQL connections: a one-shot command opens only those its work needs (one, and one more
// while it holds a session lock), so many commands at once fit in the server's max_connections; a server with
// no connection free is named in one line that says which limit to raise; opening a current archive reads its
// schema version and writes nothing.
import { beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { cli } from "../fixture/home.ts";
import { describePostgres } from "../fixture/postgres-server.ts";
import { sharedBackend, type SharedEnv } from "../fixture/shared-backend.ts";

const describe = describePostgres();
const MAX_CONNECTIONS = 12;

describe("PostgreSQL connections of a one-shot command", () => {
  const shared = sharedBackend({ postgres: { maxConnections: MAX_CONNECTIONS, logConnections: true } });
  let home: string;
  let env: SharedEnv;
  let url: string;

  /** Connections the server authorized to the test's database so far (every one is logged). */
  const authorized = () =>
    readFileSync(join(shared.pg.dir, "server.log"), "utf8")
      .split("\n")
      .filter((l) => l.includes("connection authorized:") && l.includes(" database=conns")).length;
  /** How many connections `memvoy ARGS` opened, with its result. */
  const counted = async (args: string[]) => {
    const before = authorized();
    const r = await cli(args, { home, env });
    return { ...r, opened: authorized() - before };
  };

  beforeAll(async () => {
    env = await shared.env("conns");
    url = env.MEMVOY_ARCHIVE_URL;
    home = shared.home("conns");
    const first = await cli(["add", "s", "--role", "user", "--content", "deploy the api server"], { home, env });
    expect(first.stderr).toBe("");
  }, 60_000);

  test("add opens two connections (the session lock's and the work's); reads open one", async () => {
    const add = await counted(["add", "s", "--role", "assistant", "--content", "deployed to staging"]);
    expect(add.code).toBe(0);
    expect(add.opened).toBe(2);
    for (const args of [["search", "deploy"], ["history", "s"], ["sessions"]]) {
      const r = await counted(args);
      expect(r.code).toBe(0);
      expect({ args, opened: r.opened }).toEqual({ args, opened: 1 });
    }
  }, 120_000);

  test("five commands at once fit in max_connections = 12", async () => {
    const runs = await Promise.all([
      cli(["add", "s", "--role", "user", "--content", "one"], { home, env }),
      cli(["add", "t", "--role", "user", "--content", "two"], { home, env }),
      cli(["search", "deploy"], { home, env }),
      cli(["history", "s"], { home, env }),
      cli(["sessions"], { home, env }),
    ]);
    expect(runs.map((r) => `${r.code} ${r.stderr}`)).toEqual(runs.map(() => "0 "));
  }, 120_000);

  test("no connection free: one line naming max_connections, exit 1", async () => {
    const held: InstanceType<typeof Bun.SQL>[] = [];
    /** Take connections until the server refuses one (a command's backend still exiting frees one later). */
    const fill = async () => {
      for (;;) {
        const c = new Bun.SQL(shared.pg.url, { max: 1 });
        try {
          await c`SELECT 1`;
          held.push(c);
        } catch (err) {
          await c.close();
          if ((err as { errno?: string }).errno !== "53300") throw err;
          return;
        }
      }
    };
    try {
      let r = { code: 0, stdout: "", stderr: "" };
      for (let tries = 0; r.code === 0 && tries < 20; tries++) {
        await fill();
        r = await cli(["search", "deploy"], { home, env });
      }
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `memvoy: cannot open the PostgreSQL archive at ${url.replace("postgres://", "")}: the server has no connection free (sorry, too many clients already): raise max_connections on the server, or run fewer memvoy processes at once\n`,
      );
    } finally {
      await Promise.all(held.map((c) => c.close()));
    }
  }, 120_000);

  test("a role's connection limit reached: the line names the role's CONNECTION LIMIT", async () => {
    const admin = new Bun.SQL(shared.pg.url, { max: 1 });
    try {
      await admin`CREATE ROLE capped LOGIN CONNECTION LIMIT 0`;
    } finally {
      await admin.close();
    }
    const capped = url.replace(/\/\/[^@]+@/, "//capped@");
    const r = await cli(["sessions"], { home, env: { ...env, MEMVOY_ARCHIVE_URL: capped } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `the server has no connection free (too many connections for role "capped"): raise the role's CONNECTION LIMIT (ALTER ROLE), or run fewer memvoy processes at once\n`,
    );
  }, 120_000);

  test("opening a current archive writes nothing; a newer schema is still refused", async () => {
    const fresh = await shared.pg.createDatabase("migrated");
    const on = { ...env, MEMVOY_ARCHIVE_URL: fresh };
    const home2 = shared.home("migrated");
    expect((await cli(["sessions"], { home: home2, env: on })).code).toBe(0); // migrates
    const db = new Bun.SQL(fresh, { max: 1 });
    try {
      // xmin changes with every write of the row (an UPDATE to the same value too).
      const row = async () => (await db`SELECT xmin::text AS x, version FROM memvoy_schema`)[0];
      const before = await row();
      for (const args of [["sessions"], ["search", "deploy"], ["add", "s", "--role", "user", "--content", "hi"]])
        expect((await cli(args, { home: home2, env: on })).code).toBe(0);
      expect(await row()).toEqual(before);
      await db`UPDATE memvoy_schema SET version = 99`;
      const r = await cli(["sessions"], { home: home2, env: on });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`the PostgreSQL archive has schema version 99; this memvoy knows ${before.version}`);
    } finally {
      await db.close();
    }
  }, 120_000);

  test("a user the database does not let create or read memvoy's tables: one line saying what to grant, exit 2", async () => {
    const admin = new Bun.SQL(shared.pg.url, { max: 1 });
    try {
      await admin`CREATE ROLE guest LOGIN`;
    } finally {
      await admin.close();
    }
    const other = await shared.pg.createDatabase("not_guests");
    const grant =
      "(memvoy creates and migrates its own tables: connect as the database's owner, or grant guest CREATE on its schema and the privileges on memvoy's tables)";
    // A database without memvoy's tables (PostgreSQL 15 lets only the owner create in public), then one with them.
    for (const [target, denied] of [
      [other, "permission denied for schema public"],
      [url, "permission denied for table memvoy_schema"],
    ] as const) {
      const asGuest = target.replace(/\/\/[^@]+@/, "//guest@");
      const r = await cli(["sessions"], { home, env: { ...env, MEMVOY_ARCHIVE_URL: asGuest } });
      const where = asGuest.replace("postgres://", "");
      expect({ code: r.code, stderr: r.stderr }).toEqual({
        code: 2,
        stderr: `memvoy: cannot open the PostgreSQL archive at ${where}: ${denied} ${grant}\n`,
      });
    }
  }, 120_000);
});
