// A file where memvoy keeps a folder (sessions/, .store, a session folder) or a folder where it keeps a file
// (history.json): the command names the path in the way, instead of a bare ENOTDIR / EEXIST / EISDIR; and a
// write that failed on such a session does not stop the writes to the others.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openMemory } from "../../src/app/open-memory.ts";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

const add = (session: string, content = "hello") => ["add", session, "--role", "user", "--content", content];

test("a file in place of sessions/, .store or a session folder is named, and so is a folder in place of history.json", async () => {
  for (const name of ["sessions", ".store"]) {
    const home = tempHome();
    writeFileSync(join(home, name), "not a folder");
    const r = await cli(add("s1"), { home });
    expect({ name, code: r.code, stderr: r.stderr.trim() }).toEqual({
      name,
      code: 1,
      stderr: `memvoy: ${join(home, name)} is a file where memvoy keeps a folder: move it aside`,
    });
  }
  for (const args of [add("notes"), ["reset", "notes"]]) {
    const home = tempHome();
    expect((await cli(add("s1"), { home })).code).toBe(0);
    writeFileSync(join(home, "sessions", "notes"), "a stray file");
    const r = await cli(args, { home });
    expect({ args, stderr: r.stderr.trim() }).toEqual({
      args,
      stderr: `memvoy: ${join(home, "sessions", "notes")} is a file where memvoy keeps a folder: move it aside`,
    });
  }
  const home = tempHome();
  expect((await cli(add("s1"), { home })).code).toBe(0);
  const file = join(home, "sessions", "s1", "history.json");
  rmSync(file);
  mkdirSync(file);
  const r = await cli(add("s1"), { home });
  expect(r.stderr.trim()).toBe(`memvoy: ${file} is a folder where memvoy keeps a file: move it aside`);
  expect(r.code).toBe(1);
});

test("a write that failed on a session with a file in the way does not stop later writes to other sessions", async () => {
  const home = tempHome();
  expect((await cli(add("s1", "first"), { home })).code).toBe(0);
  writeFileSync(join(home, "sessions", "notes"), "a stray file");
  expect((await cli(add("notes"), { home })).code).toBe(1);
  const r = await cli(add("s1", "second"), { home });
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
  expect((await cli(add("s2", "third"), { home })).code).toBe(0);
  const s1 = JSON.parse((await cli(["history", "s1", "--json"], { home })).stdout).messages;
  expect(s1.map((m: { content: string }) => m.content)).toEqual(["first", "second"]);
});

test("a stray file at sessions/<id> is named by every command on that session, never read as an empty session nor deleted", async () => {
  const home = tempHome();
  expect((await cli(add("s1"), { home })).code).toBe(0);
  const stray = join(home, "sessions", "notes.txt");
  writeFileSync(stray, "my own notes");
  for (const args of [
    ["history", "notes.txt"],
    ["history", "notes.txt", "--all"],
    ["context", "notes.txt"],
    ["rm", "notes.txt"],
  ]) {
    const r = await cli(args, { home });
    expect({ args, code: r.code, stderr: r.stderr.trim() }).toEqual({
      args,
      code: 1,
      stderr: `memvoy: ${stray} is a file where memvoy keeps a folder: move it aside`,
    });
  }
  for (const args of [
    ["export", "notes.txt"],
    ["search", "hello", "--session", "notes.txt"],
  ]) {
    const r = await cli(args, { home });
    expect({ args, code: r.code }).toEqual({ args, code: 2 });
    expect(r.stderr).toContain('session "notes.txt"');
  }
  expect(readFileSync(stray, "utf8")).toBe("my own notes");
});

test("a home or .store that is a link to a folder that is not there (a disk not mounted) is named as such", async () => {
  const gone = join(tempHome("memvoy-gone-"), "not-mounted", "store");
  const home = tempHome();
  symlinkSync(gone, join(home, ".store"));
  const linkedHome = join(tempHome(), "home");
  symlinkSync(gone, linkedHome);
  for (const [h, link] of [
    [home, join(home, ".store")],
    [linkedHome, linkedHome],
  ] as const) {
    const r = await cli(add("s1"), { home: h });
    expect({ link, code: r.code, stderr: r.stderr.trim() }).toEqual({
      link,
      code: 1,
      stderr: `memvoy: ${link} is a symbolic link to ${gone}, which does not exist (a disk not mounted?); nothing was changed`,
    });
  }
  expect(existsSync(gone)).toBe(false);
});

test("a named pipe where memvoy keeps a session file or config.toml is named; no command waits on it", async () => {
  const home = tempHome();
  expect((await cli(add("s1"), { home })).code).toBe(0);
  const mkfifo = (path: string) => expect(Bun.spawnSync(["mkfifo", path]).exitCode).toBe(0);
  for (const name of ["history.json", "summary.json", ".summary_cursor"]) {
    const path = join(home, "sessions", "s1", name);
    rmSync(path, { force: true });
    mkfifo(path);
    for (const args of [add("s1"), ["summary", "s1"]]) {
      const r = await cli(args, { home });
      expect({ name, args, code: r.code, stderr: r.stderr.trim() }).toEqual({
        name,
        args,
        code: 1,
        stderr: `memvoy: ${path} is not a regular file (a named pipe, socket or device): move it aside`,
      });
    }
    const doctor = await cli(["doctor"], { home });
    expect(doctor.stdout).toContain(`s1: ${path} is not a regular file`);
    rmSync(path);
  }
  const config = join(home, "config.toml");
  mkfifo(config);
  const r = await cli(["history", "s1"], { home });
  expect({ code: r.code, stderr: r.stderr.trim() }).toEqual({
    code: 2,
    stderr: `memvoy: cannot read config ${config}: not a regular file (a folder, named pipe, socket or device)`,
  });
}, 60_000);

test("a home that is a file (--home naming config.toml itself) is named as such: exit 2, nothing written", async () => {
  const file = join(tempHome(), "config.toml");
  writeFileSync(file, "[limits]\n");
  for (const args of [["sessions"], ["history", "s1"], ["stats"]]) {
    const r = await cli(args, { home: file });
    expect({ args, code: r.code, stderr: r.stderr }).toEqual({
      args,
      code: 2,
      stderr: `memvoy: cannot read config ${join(file, "config.toml")}: the home ${file} is a file, not a folder\n`,
    });
  }
  expect(readFileSync(file, "utf8")).toBe("[limits]\n");
});

test("a folder in place of summary.json or the cursor is named by summary, and doctor reports each such folder as a finding", async () => {
  for (const name of ["summary.json", ".summary_cursor"]) {
    const home = tempHome();
    expect((await cli(add("s1"), { home })).code).toBe(0);
    const path = join(home, "sessions", "s1", name);
    rmSync(path, { force: true });
    mkdirSync(path, { mode: 0o700 });
    const r = await cli(["summary", "s1"], { home });
    expect({ name, code: r.code, stderr: r.stderr.trim() }).toEqual({
      name,
      code: 1,
      stderr: `memvoy: ${path} is a folder where memvoy keeps a file: move it aside`,
    });
  }
  const home = tempHome();
  expect((await cli(add("s1"), { home })).code).toBe(0);
  expect((await cli(add("s2"), { home })).code).toBe(0);
  const history = join(home, "sessions", "s1", "history.json");
  const summary = join(home, "sessions", "s2", "summary.json");
  rmSync(history);
  mkdirSync(history, { mode: 0o700 });
  mkdirSync(summary, { mode: 0o700 });
  const r = await cli(["doctor", "--json"], { home });
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 1, stderr: "" });
  expect(JSON.parse(r.stdout).findings).toEqual([
    { session: "s1", problem: `${history} is a folder where memvoy keeps a file: move it aside`, manual: true },
    { session: "s2", problem: `${summary} is a folder where memvoy keeps a file: move it aside`, manual: true },
  ]);
});

test("a folder in place of .store/history.db or its -wal file is named, not 'unable to open database file'", async () => {
  for (const name of ["history.db", "history.db-wal"]) {
    const home = tempHome();
    expect((await cli(add("s1"), { home })).code).toBe(0);
    const path = join(home, ".store", name);
    rmSync(path, { force: true });
    mkdirSync(path, { mode: 0o700 });
    for (const args of [["history", "s1"], add("s1"), ["doctor"]]) {
      const r = await cli(args, { home });
      expect({ name, args, code: r.code, stderr: r.stderr.trim() }).toEqual({
        name,
        args,
        code: 1,
        stderr: `memvoy: ${path} is a folder where memvoy keeps a file: move it aside`,
      });
    }
  }
});

test("doctor names a folder in place of the writer lock and a file in place of the vector store: never 'all good'", async () => {
  const home = tempHome();
  // Written with no background drain, which could still be making .store/lance when the test replaces it.
  const api = openMemory({ home, env: {}, drain: "off" });
  api.add("s1", [{ role: "user", content: "hello" }]);
  api.close();
  const lock = join(home, ".store", "write.lock");
  rmSync(lock);
  mkdirSync(lock, { mode: 0o700 });
  const writes = await cli(add("s1", "again"), { home });
  expect([writes.code, writes.stderr.trim()]).toEqual([
    1,
    `memvoy: ${lock} is a folder where memvoy keeps a file: move it aside`,
  ]);
  const repair = await cli(["doctor", "--repair", "--yes"], { home });
  expect(repair.code).toBe(1);
  expect(repair.stdout).toContain(`${lock} is a folder where memvoy keeps a file: move it aside`);
  rmSync(lock, { recursive: true });
  const lance = join(home, ".store", "lance");
  rmSync(lance, { recursive: true, force: true });
  writeFileSync(lance, "not a folder", { mode: 0o600 });
  const check = await cli(["doctor"], { home });
  expect(check.code).toBe(1);
  expect(check.stdout).toContain(`${lance} is a file where memvoy keeps a folder: move it aside`);
  expect(check.stdout).not.toContain("os error");
});

test("a named pipe where memvoy keeps a lock file or a log is refused at once, never waited on; doctor names it and --repair removes it", async () => {
  const home = tempHome();
  expect((await cli(add("s1"), { home })).code).toBe(0);
  // Run the real CLI, but never wait past a bound: a command stuck opening the pipe is killed and fails the test.
  const within = async (args: string[]) => {
    const proc = Bun.spawn(["bun", join(import.meta.dir, "../../src/index.ts"), "--home", home, ...args], {
      env: { PATH: process.env.PATH!, HOME: home, TZ: "UTC" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      timeout: 30_000,
    });
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    return { code: proc.signalCode ? proc.signalCode : code, stdout, stderr: stderr.trim() };
  };
  for (const [name, args] of [
    [".store/write.lock", add("s1", "again")],
    ["daemon.lock", ["--daemon"]],
  ] as const) {
    const path = join(home, name);
    rmSync(path, { force: true });
    expect(Bun.spawnSync(["mkfifo", path]).exitCode).toBe(0);
    const r = await within([...args]);
    expect({ name, code: r.code, stderr: r.stderr }).toEqual({
      name,
      code: 1,
      stderr: `memvoy: ${path} is not a regular file (a named pipe, socket or device); nothing was changed. Move it aside (memvoy creates the file again)`,
    });
    const doctor = await within(["doctor"]);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(`${path} is not a regular file (a named pipe, socket or device)`);
    expect((await within(["doctor", "--repair"])).code).toBe(0);
    expect(existsSync(path)).toBe(false);
  }
  expect((await within(add("s1", "after the repair"))).code).toBe(0);
}, 180_000);
