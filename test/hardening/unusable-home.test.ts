// A home or temp folder that cannot be made or used: one line naming the path and what is wrong, exit 2, for every
// command alike (never a bare EACCES, ENOENT or ENOTDIR).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, chownSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { buildBinaryOnce, makeTempDir, removeTempDirs, runBinary } from "../fixture/binary.ts";
import { canMountTmpfs, mountTmpfs } from "./tmpfs.ts";

let bin = "";
beforeAll(async () => {
  bin = await buildBinaryOnce();
}, 600_000);
afterAll(removeTempDirs);

const WRITES = [
  ["add", "s1", "--role", "user", "--content", "hello"],
  ["errors", "record", "--tool", "npm", "--error", "ENOENT", "--fix", "npm ci"],
  ["demo"],
];

test("a home under a file: every command says which file is in the way, exit 2", async () => {
  const dir = makeTempDir("memvoy-unusable-");
  const file = join(dir, "notes.txt");
  writeFileSync(file, "x");
  const home = join(file, "memvoy");
  const line = `memvoy: cannot read config ${home}/config.toml: ${file} is a file, not a folder, and the home ${home} would lie under it\n`;
  for (const args of [
    ["sessions"],
    ["doctor"],
    ["config", "check"],
    ["search", "x"],
    ["doctor", "--repair"],
    ...WRITES.slice(0, 2),
  ]) {
    const r = await runBinary(bin, ["--home", home, ...args], { timeoutMs: 60_000 });
    expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 2, stderr: line });
  }
}, 120_000);

test("a home behind a symbolic link to nothing is named as such, exit 1 as for the home itself", async () => {
  const dir = makeTempDir("memvoy-unusable-");
  const link = join(dir, "mnt");
  symlinkSync(join(dir, "disk-not-mounted"), link);
  const home = join(link, "memvoy");
  const r = await runBinary(bin, ["--home", home, ...WRITES[0]!], { timeoutMs: 60_000 });
  expect({ code: r.code, stderr: r.stderr }).toEqual({
    code: 1,
    stderr: `memvoy: ${link} is a symbolic link to ${join(dir, "disk-not-mounted")}, which does not exist (a disk not mounted?); nothing was changed\n`,
  });
}, 60_000);

test.skipIf(!existsSync("/proc/self"))(
  "a home where no folder can be made (/proc): one line, exit 2",
  async () => {
    const r = await runBinary(bin, ["--home", "/proc/memvoy-home", ...WRITES[0]!], { timeoutMs: 60_000 });
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 2,
      stderr:
        "memvoy: cannot create the home /proc/memvoy-home: no folder can be made in /proc; give --home (or MEMVOY_HOME) a folder you may write to\n",
    });
  },
  60_000,
);

test.skipIf(!existsSync("/proc/self"))(
  "on a shared archive too, before the server is asked",
  async () => {
    const env = {
      MEMVOY_ARCHIVE_URL: "postgres://memvoy@127.0.0.1:1/memvoy",
      MEMVOY_VECTORS_URI: "s3://memvoy-vectors/home",
      AWS_ACCESS_KEY_ID: "id",
      AWS_SECRET_ACCESS_KEY: "secret",
    };
    const r = await runBinary(bin, ["--home", "/proc/memvoy-home", ...WRITES[0]!], { env, timeoutMs: 60_000 });
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 2,
      stderr:
        "memvoy: cannot create the home /proc/memvoy-home: no folder can be made in /proc; give --home (or MEMVOY_HOME) a folder you may write to\n",
    });
  },
  60_000,
);

test("TMPDIR naming no folder: demo and import --dry-run say so, exit 2", async () => {
  const dir = makeTempDir("memvoy-unusable-");
  const tmp = join(dir, "no-such-tmp");
  const line = `memvoy: cannot make a temporary folder in ${tmp} (TMPDIR): it does not exist; set TMPDIR to a folder you may write to\n`;
  const demo = await runBinary(bin, ["demo"], { env: { TMPDIR: tmp }, timeoutMs: 60_000 });
  expect({ code: demo.code, stderr: demo.stderr }).toEqual({ code: 2, stderr: line });
  const jsonl = join(dir, "in.jsonl");
  writeFileSync(jsonl, '{"role":"user","content":"hello"}\n');
  const home = join(dir, "new-home");
  const dry = await runBinary(bin, ["--home", home, "import", "jsonl", jsonl, "--dry-run"], {
    env: { TMPDIR: tmp },
    timeoutMs: 60_000,
  });
  expect({ code: dry.code, stderr: dry.stderr }).toEqual({ code: 2, stderr: line });
  expect(existsSync(home)).toBe(false);
}, 120_000);

test("TMPDIR naming no folder: a semantic search with the binary says so, not LanceDB's 'npm i' advice", async () => {
  const dir = makeTempDir("memvoy-unusable-");
  const home = join(dir, "home");
  const add = await runBinary(bin, ["--home", home, "add", "s1", "--role", "user", "--content", "the canary rollout"]);
  expect(add.code, add.stderr).toBe(0);
  const reindex = await runBinary(bin, ["--home", home, "reindex"], { timeoutMs: 60_000 });
  expect(reindex.code, reindex.stderr).toBe(0);
  const tmp = join(dir, "no-such-tmp");
  const r = await runBinary(bin, ["--home", home, "search", "canary", "--match", "semantic", "--local"], {
    env: { TMPDIR: tmp },
    timeoutMs: 60_000,
  });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(
    `cannot make a temporary folder in ${tmp} (TMPDIR): it does not exist; set TMPDIR to a folder you may write to`,
  );
  expect(r.stderr).not.toContain("npm");
}, 180_000);

// A temp folder mounted noexec (a hardened server's /tmp) takes the file but cannot run it: root only, for the mount.
test.skipIf(canMountTmpfs() !== undefined)(
  "TMPDIR on a file system mounted noexec: a semantic search with the binary says so, not LanceDB's 'npm i' advice",
  async () => {
    const fs = mountTmpfs(512 * 1024);
    try {
      expect(Bun.spawnSync(["mount", "-o", "remount,noexec", fs.dir]).exitCode).toBe(0);
      const dir = makeTempDir("memvoy-unusable-");
      const home = join(dir, "home");
      const add = await runBinary(bin, ["--home", home, "add", "s1", "--role", "user", "--content", "the canary"]);
      expect(add.code, add.stderr).toBe(0);
      const reindex = await runBinary(bin, ["--home", home, "reindex"], { timeoutMs: 60_000 });
      expect(reindex.code, reindex.stderr).toBe(0);
      const r = await runBinary(bin, ["--home", home, "search", "canary", "--match", "semantic", "--local"], {
        env: { TMPDIR: fs.dir },
        timeoutMs: 60_000,
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        `cannot load the vector store's native module: memvoy unpacks it into the temporary folder ${fs.dir} (TMPDIR), whose file system is mounted noexec; set TMPDIR to a folder where programs may run`,
      );
      expect(r.stderr).not.toContain("npm");
    } finally {
      fs.unmount();
    }
  },
  180_000,
);

// As root every folder is writable: the permission case runs as uid 65534 (nobody), skipped where it cannot.
const asNobody = process.getuid?.() === 0 && Bun.which("setpriv") !== null;
test.skipIf(!asNobody)(
  "a home whose parent, or itself, this user may not write: one line naming the folder",
  async () => {
    const dir = makeTempDir("memvoy-unusable-");
    chmodSync(dir, 0o755);
    chmodSync(dirname(bin), 0o755);
    chmodSync(bin, 0o755);
    const parent = join(dir, "locked");
    mkdirSync(parent, { mode: 0o755 });
    const home = join(parent, "memvoy");
    const run = (args: string[], env: Record<string, string> = {}) =>
      Bun.spawnSync(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", bin, ...args], {
        env: { PATH: "/usr/bin:/bin", HOME: dir, TMPDIR: dir, LANG: "C.UTF-8", ...env },
        cwd: dir,
      });
    const line = `memvoy: cannot create the home ${home}: permission denied on ${parent}; give --home (or MEMVOY_HOME) a folder you may write to\n`;
    for (const args of [...WRITES, ["--daemon"]]) {
      const r = run(["--home", home, ...args]);
      expect({ args, code: r.exitCode, stderr: r.stderr.toString() }).toEqual({ args, code: 2, stderr: line });
    }
    // A home folder this user may not enter, or one it may not write: named, never a bare EACCES.
    const closed = join(dir, "closed");
    mkdirSync(closed, { mode: 0o700 });
    for (const h of [closed, join(closed, "memvoy")]) {
      const r = run(["--home", h, "sessions"]);
      expect({ code: r.exitCode, stderr: r.stderr.toString() }).toEqual({
        code: 2,
        stderr: `memvoy: cannot read config ${h}/config.toml: permission denied on ${closed}\n`,
      });
    }
    const shut = join(dir, "read-only-home");
    mkdirSync(shut, { mode: 0o755 });
    // Empty, it holds no home yet: a read answers as for an empty home and makes nothing; a write is refused.
    const read = run(["--home", shut, "sessions"]);
    expect({ code: read.exitCode, stderr: read.stderr.toString() }).toEqual({ code: 0, stderr: "" });
    const write = run(["--home", shut, ...WRITES[0]!]);
    expect({ code: write.exitCode, stderr: write.stderr.toString() }).toEqual({
      code: 2,
      stderr: `memvoy: cannot open ${shut}/sessions: permission denied on its folder; memvoy writes to its home, even to read it\n`,
    });
    mkdirSync(join(shut, "sessions"));
    const store = run(["--home", shut, ...WRITES[0]!]);
    expect({ code: store.exitCode, stderr: store.stderr.toString() }).toEqual({
      code: 2,
      stderr: `memvoy: cannot open ${shut}/.store: permission denied on its folder; memvoy writes to its home, even to read it\n`,
    });
    const tmp = run(["demo"], { TMPDIR: parent });
    expect({ code: tmp.exitCode, stderr: tmp.stderr.toString() }).toEqual({
      code: 2,
      stderr: `memvoy: cannot make a temporary folder in ${parent} (TMPDIR): permission denied on ${parent}; set TMPDIR to a folder you may write to\n`,
    });
  },
  120_000,
);

test.skipIf(!asNobody)(
  "a home whose sessions/ or session folder this user may not write: one line naming the folder, exit 2, nothing stored",
  async () => {
    const dir = makeTempDir("memvoy-unusable-");
    chmodSync(dir, 0o755);
    chmodSync(dirname(bin), 0o755);
    chmodSync(bin, 0o755);
    const home = join(dir, "home");
    mkdirSync(home, { mode: 0o700 });
    chownSync(home, 65534, 65534);
    const run = (args: string[]) =>
      Bun.spawnSync(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", bin, "--home", home, ...args], {
        env: { PATH: "/usr/bin:/bin", HOME: dir, TMPDIR: dir, LANG: "C.UTF-8" },
        cwd: dir,
      });
    expect(run(["add", "s1", "--role", "user", "--content", "first"]).exitCode).toBe(0);
    const sessions = join(home, "sessions");
    chmodSync(sessions, 0o555);
    const fresh = run(["add", "s2", "--role", "user", "--content", "second"]);
    expect({ code: fresh.exitCode, stderr: fresh.stderr.toString() }).toEqual({
      code: 2,
      stderr: `memvoy: cannot make the folder ${sessions}/s2: ${sessions} takes no new folder (permission denied)\n`,
    });
    chmodSync(sessions, 0o700);
    chmodSync(join(sessions, "s1"), 0o555);
    const same = run(["add", "s1", "--role", "user", "--content", "third"]);
    expect(same.exitCode).toBe(2);
    expect(same.stderr.toString()).toBe(
      `memvoy: permission denied: EACCES: ${sessions}/s1 takes no new file (writing history.json needs one beside it)\n`,
    );
    chmodSync(join(sessions, "s1"), 0o700);
    const all = run(["history", "s1", "--all", "--json"]);
    expect((JSON.parse(all.stdout.toString()).messages as { content: string }[]).map((m) => m.content)).toEqual([
      "first",
    ]);
    expect(run(["sessions", "--json"]).stdout.toString()).not.toContain("s2");
  },
  120_000,
);

test.skipIf(!asNobody)(
  "reset, rm and rm-message in a folder this user may not write are refused before anything is removed, exit 2",
  async () => {
    const dir = makeTempDir("memvoy-unusable-");
    chmodSync(dir, 0o755);
    chmodSync(dirname(bin), 0o755);
    chmodSync(bin, 0o755);
    const home = join(dir, "home");
    mkdirSync(home, { mode: 0o700 });
    chownSync(home, 65534, 65534);
    const run = (args: string[]) =>
      Bun.spawnSync(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", bin, "--home", home, ...args], {
        env: { PATH: "/usr/bin:/bin", HOME: dir, TMPDIR: dir, LANG: "C.UTF-8" },
        cwd: dir,
      });
    expect(run(["add", "s", "--role", "user", "--content", "my password is hunter2"]).exitCode).toBe(0);
    const id = JSON.parse(run(["history", "s", "--json"]).stdout.toString()).messages[0].id as string;
    const sessions = join(home, "sessions");
    const contents = () =>
      (JSON.parse(run(["history", "s", "--all", "--json"]).stdout.toString()).messages as { content: string }[]).map(
        (m) => m.content,
      );
    for (const [folder, args] of [
      [join(sessions, "s"), ["rm-message", id]],
      [join(sessions, "s"), ["reset", "s"]],
      [join(sessions, "s"), ["rm", "s"]],
      [sessions, ["rm", "s"]],
    ] as const) {
      chmodSync(folder, 0o555);
      const r = run([...args]);
      chmodSync(folder, 0o700);
      expect({ args, code: r.exitCode, stderr: r.stderr.toString() }).toEqual({
        args,
        code: 2,
        stderr: `memvoy: ${args[0]} s: ${folder} may not be written by this user (permission denied); nothing was changed\n`,
      });
      // Nothing was removed, and nothing is left to finish: the next command reads the session whole.
      expect(contents()).toEqual(["my password is hunter2"]);
    }
  },
  120_000,
);
