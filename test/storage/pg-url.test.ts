// An archive URL the PostgreSQL client refuses before it connects (a malformed %-escape, an option value it does
// not take) is a config error: one line naming user, host, port and database, exit 2, never the password; and
// a client error after the archive opened names the archive. No server is needed: nothing here connects.
import { afterAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describeError, exitCodeOf } from "../../src/shared/describe-error.ts";
import { openPgArchive } from "../../src/storage/postgres/open-pg-archive.ts";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";

const SECRET = "Sup3rSecretPw42";
const S3_KEYS = { AWS_ACCESS_KEY_ID: "k", AWS_SECRET_ACCESS_KEY: "s" };

afterAll(() => removeTempHomes());

function sharedHome(): string {
  const home = tempHome();
  writeFileSync(join(home, "config.toml"), '[vectors]\nuri = "s3://bucket/prefix"\nendpoint = "http://127.0.0.1:1"\n');
  return home;
}

test("an option value the client refuses: exit 2, one line naming the archive, no password", async () => {
  const url = `postgres://memvoy:${SECRET}@127.0.0.1:1/mem?sslmode=requir`;
  const err = await openPgArchive(url).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(exitCodeOf(err)).toBe(2);
  expect(describeError(err)).toStartWith("the PostgreSQL archive URL (memvoy@127.0.0.1:1/mem) is not valid: ");
  expect(describeError(err)).toContain("sslmode");

  const r = await cli(["sessions"], { home: sharedHome(), env: { ...S3_KEYS, MEMVOY_ARCHIVE_URL: url } });
  expect(r.code).toBe(2);
  expect(r.stderr.trim().split("\n")).toHaveLength(1);
  expect(r.stderr).toContain("memvoy@127.0.0.1:1/mem");
  expect(r.stderr).not.toContain(SECRET);
}, 60_000);

test("a malformed %-escape in the user, password or database is a config error, also for config check", async () => {
  const home = sharedHome();
  for (const url of [
    `postgres://memvoy:${SECRET}%zz@127.0.0.1:1/mem`,
    "postgres://mem%zzvoy@127.0.0.1:1/mem",
    "postgres://memvoy@127.0.0.1:1/mem%zz",
  ]) {
    for (const args of [["sessions"], ["config", "check"]]) {
      const r = await cli(args, { home, env: { ...S3_KEYS, MEMVOY_ARCHIVE_URL: url } });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        "archive.url (MEMVOY_ARCHIVE_URL): expected a postgres://user@host/db URL (this one does not parse)",
      );
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).not.toContain(SECRET);
    }
  }
  // A URL of the wrong form gets one message, not the same twice.
  const r = await cli(["config", "check"], { home, env: { MEMVOY_ARCHIVE_URL: "not a url" } });
  expect(r.code).toBe(2);
  expect(r.stderr.match(/archive\.url \(MEMVOY_ARCHIVE_URL\):/g)).toHaveLength(1);
}, 60_000);

test("the socket and query forms the client takes are accepted, and an error names where they point", async () => {
  const home = sharedHome();
  for (const [url, where] of [
    ["postgresql://memvoy@/mem?host=/tmp/memvoy-no-socket&port=1", "memvoy@/tmp/memvoy-no-socket:1/mem"],
    ["postgres:///mem?host=/tmp/memvoy-no-socket&port=1&user=memvoy", "memvoy@/tmp/memvoy-no-socket:1/mem"],
    ["postgres://memvoy@%2Ftmp%2Fmemvoy-no-socket:1/mem", "memvoy@/tmp/memvoy-no-socket:1/mem"],
    ["postgres://memvoy@127.0.0.1/mem?port=1", "memvoy@127.0.0.1:1/mem"],
  ]) {
    const env = { ...S3_KEYS, MEMVOY_ARCHIVE_URL: url! };
    const check = await cli(["config", "check"], { home, env });
    expect([check.code, check.stderr]).toEqual([0, ""]);
    const r = await cli(["sessions"], { home, env });
    expect(r.code).toBe(1);
    expect(r.stderr).toStartWith(`memvoy: cannot open the PostgreSQL archive at ${where}: `);
  }
}, 60_000);

test("spaces or a newline around the URL (a secret file's last line) are not part of it", async () => {
  const home = sharedHome();
  const env = { ...S3_KEYS, MEMVOY_ARCHIVE_URL: "postgres://memvoy@127.0.0.1:1/mem\n" };
  const check = await cli(["config", "check"], { home, env });
  expect([check.code, check.stderr]).toEqual([0, ""]);
  const r = await cli(["sessions"], { home, env });
  expect(r.code).toBe(1);
  expect(r.stderr).toStartWith("memvoy: cannot open the PostgreSQL archive at memvoy@127.0.0.1:1/mem: ");
  // A password stays refused in config.toml, spaces or not.
  const other = tempHome();
  writeFileSync(join(other, "config.toml"), `[archive]\nurl = " postgres://memvoy:${SECRET}@127.0.0.1:1/mem "\n`);
  const refused = await cli(["config", "check"], { home: other });
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain("archive.url includes a password");
  expect(refused.stderr).not.toContain(SECRET);
}, 60_000);

test("a client error after the archive opened (the server gone) names the PostgreSQL archive", async () => {
  const sql = new Bun.SQL("postgres://memvoy@127.0.0.1:1/mem", { max: 1, connectionTimeout: 5 });
  const err = await sql`SELECT 1`.then(
    () => undefined,
    (e: unknown) => e,
  );
  await sql.close().catch(() => {});
  expect(describeError(err)).toBe(
    "the PostgreSQL archive failed: connection refused (is the server running, and the host and port right?)",
  );
  const closed = Object.assign(new Error("Connection closed"), {
    name: "PostgresError",
    code: "ERR_POSTGRES_CONNECTION_CLOSED",
  });
  expect(describeError(closed)).toBe("the PostgreSQL archive failed: the server closed the connection");
  const shutdown = Object.assign(new Error("terminating connection due to administrator command"), {
    name: "PostgresError",
    code: "ERR_POSTGRES_SERVER_ERROR",
    errno: "57P01",
  });
  expect(describeError(shutdown)).toBe(
    "the PostgreSQL archive failed: terminating connection due to administrator command",
  );
});

test("behind a connection pooler in transaction mode: a prepared statement clash and a pool with no connection free say what to change", () => {
  // The errors Bun.sql gives through PgBouncer 1.18 in transaction mode, as seen there.
  const clash = Object.assign(new Error('prepared statement "P0" already exists'), {
    name: "PostgresError",
    code: "ERR_POSTGRES_SERVER_ERROR",
    errno: "42P05",
  });
  expect(describeError(clash)).toBe(
    'the PostgreSQL archive failed: prepared statement "P0" already exists: a connection pooler in transaction mode (PgBouncer before 1.21, or with max_prepared_statements = 0) mixes its clients\' prepared statements; add ?prepare=false to the archive URL',
  );
  const full = Object.assign(new Error("query_wait_timeout"), {
    name: "PostgresError",
    code: "ERR_POSTGRES_SERVER_ERROR",
    errno: "08P01",
  });
  expect(describeError(full)).toBe(
    "the PostgreSQL archive failed: the connection pooler had no server connection free (query_wait_timeout): raise its pool size (default_pool_size); a memvoy command holding a session lock uses two at once",
  );
});

test("a host that never lets a connection through is named as such, not as a connection a server closed", () => {
  // What Bun.sql throws when each attempt failed until its connection timeout: seen for an address that drops the
  // packets (10.255.255.1) and for a port whose listener hangs up at once.
  const failed = Object.assign(new Error("Connection closed before the connection was established"), {
    name: "PostgresError",
    code: "ERR_POSTGRES_CONNECTION_FAILED",
  });
  const text = describeError(failed);
  expect(text).not.toContain("Connection closed before");
  expect(text).toContain("no connection could be made");
  expect(text).toContain("check the host and port, and that no firewall drops the connection");
  // Another failure of that code keeps the client's own words.
  const other = Object.assign(new Error("TLS handshake failed"), {
    name: "PostgresError",
    code: "ERR_POSTGRES_CONNECTION_FAILED",
  });
  expect(describeError(other)).toContain("TLS handshake failed");
});

test("a host name that does not resolve is named as such, not as a refused connection", async () => {
  const url = `postgres://memvoy:${SECRET}@db-host-typo.invalid:5432/mem`;
  const r = await cli(["sessions"], { home: sharedHome(), env: { ...S3_KEYS, MEMVOY_ARCHIVE_URL: url } });
  expect({ code: r.code, stderr: r.stderr }).toEqual({
    code: 1,
    stderr:
      "memvoy: cannot open the PostgreSQL archive at memvoy@db-host-typo.invalid:5432/mem: the host name db-host-typo.invalid does not resolve (check the host in the URL)\n",
  });
  // A host that resolves, with nothing listening, is still a refused connection.
  const refused = await cli(["sessions"], {
    home: sharedHome(),
    env: { ...S3_KEYS, MEMVOY_ARCHIVE_URL: `postgres://memvoy:${SECRET}@localhost:1/mem` },
  });
  expect(refused.stderr).toContain("connection refused");
}, 60_000);

test("a password holding an @ and a #, / or ? as they are: exit 2, and no piece of it printed as a host or a path", async () => {
  for (const reserved of ["#", "/", "?"]) {
    const url = `postgres://memvoy:Sup3r@Hidden${reserved}Part42@127.0.0.1:1/mem`;
    for (const args of [["config", "show"], ["sessions"]]) {
      const r = await cli(args, { home: sharedHome(), env: { ...S3_KEYS, MEMVOY_ARCHIVE_URL: url } });
      expect({ reserved, args, code: r.code }).toEqual({ reserved, args, code: 2 });
      expect(r.stderr).toContain("a password's reserved characters are %-escaped: # as %23, / as %2F, ? as %3F");
      for (const piece of ["Sup3r", "Hidden", "Part42"]) expect(r.stdout + r.stderr).not.toContain(piece);
    }
  }
  // Escaped, the same password is taken; an @ in a query value without a password in the URL is left alone.
  for (const url of [
    "postgres://memvoy:Sup3r%40Hidden%2FPart42@127.0.0.1:1/mem",
    "postgres://memvoy@127.0.0.1:1/mem?application_name=me@laptop",
  ]) {
    const r = await cli(["sessions"], { home: sharedHome(), env: { ...S3_KEYS, MEMVOY_ARCHIVE_URL: url } });
    expect(r.stderr).toBe(
      "memvoy: cannot open the PostgreSQL archive at memvoy@127.0.0.1:1/mem: connection refused (is the server running, and the host and port right?)\n",
    );
  }
}, 60_000);

test("an IPv6 address with nothing listening is a refused connection, not a host name that does not resolve", async () => {
  const url = `postgresql://memvoy:${SECRET}@[::1]:1/mem`;
  const r = await cli(["sessions"], { home: sharedHome(), env: { ...S3_KEYS, MEMVOY_ARCHIVE_URL: url } });
  expect({ code: r.code, stderr: r.stderr }).toEqual({
    code: 1,
    stderr:
      "memvoy: cannot open the PostgreSQL archive at memvoy@[::1]:1/mem: connection refused (is the server running, and the host and port right?)\n",
  });
}, 60_000);

test("a URL with an empty user and a password names the host and database, never the password as a user", async () => {
  const url = `postgres://:${SECRET}@127.0.0.1:1/mem`;
  const r = await cli(["sessions"], { home: sharedHome(), env: { ...S3_KEYS, MEMVOY_ARCHIVE_URL: url } });
  expect(r.stderr).toStartWith("memvoy: cannot open the PostgreSQL archive at 127.0.0.1:1/mem: ");
  expect(r.stderr).not.toContain(SECRET);
  // An empty host stays the local socket's, as before.
  const local = await cli(["sessions"], {
    home: sharedHome(),
    env: { ...S3_KEYS, MEMVOY_ARCHIVE_URL: "postgres://memvoy@/mem?host=/nonexistent-socket-dir" },
  });
  expect(local.stderr).toStartWith(
    "memvoy: cannot open the PostgreSQL archive at memvoy@/nonexistent-socket-dir:5432/mem: ",
  );
}, 60_000);
