// Symbolic links inside the home are never followed for session data (exit 2, nothing changes); the home,
// config.toml and .store may be links. reset refuses a corrupt history.json and points to doctor --repair.
import { afterAll, expect, test } from "bun:test";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { cli, openTemp, removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

test("a session folder that is a link: add, reset, rm, history and summarize refuse it; the target is untouched", async () => {
  const home = tempHome();
  const victim = tempHome("memvoy-victim-");
  writeFileSync(join(victim, "keep.txt"), "precious");
  await cli(["add", "real", "--role", "user", "--content", "hello"], { home });
  symlinkSync(victim, join(home, "sessions", "evil"));
  for (const args of [
    ["add", "evil", "--role", "user", "--content", "x"],
    ["reset", "evil"],
    ["rm", "evil"],
    ["history", "evil"],
    ["summarize", "evil"],
    ["summary", "evil"],
    ["context", "evil"],
  ]) {
    const r = await cli(args, { home, env: { ANTHROPIC_API_KEY: "sk-test" } });
    expect({ args, code: r.code }).toEqual({ args, code: 2 });
    expect(r.stderr).toContain("symbolic link");
  }
  expect(readdirSync(victim)).toEqual(["keep.txt"]);
  expect(readFileSync(join(victim, "keep.txt"), "utf8")).toBe("precious");
  // Listing and searching still work and leave the link alone.
  expect((await cli(["sessions"], { home })).code).toBe(0);
  expect((await cli(["search", "hello"], { home })).code).toBe(0);
  expect(readdirSync(victim)).toEqual(["keep.txt"]);
});

test("history.json, summary.json or the cursor as links to files outside the home are never read or written", async () => {
  const home = tempHome();
  const outside = tempHome("memvoy-outside-");
  const secret = join(outside, "secret.json");
  writeFileSync(secret, JSON.stringify([{ role: "user", content: "outside secret", sendAt: "2026-01-01T00:00:00Z" }]));
  mkdirSync(join(home, "sessions", "s1"), { recursive: true });
  symlinkSync(secret, join(home, "sessions", "s1", "history.json"));
  for (const args of [
    ["add", "s1", "--role", "user", "--content", "x"],
    ["history", "s1"],
    ["reset", "s1"],
    ["search", "outside", "--session", "s1"],
    ["search", "outside", "--session", "s1", "--match", "semantic"],
    ["export", "s1"],
  ]) {
    const r = await cli(args, { home });
    expect({ args, code: r.code }).toEqual({ args, code: 2 });
    expect(r.stderr).toContain(`${join(home, "sessions", "s1", "history.json")} is a symbolic link`);
  }
  const found = await cli(["search", "outside", "--json"], { home });
  expect(JSON.parse(found.stdout).hits).toEqual([]);
  expect(JSON.parse(readFileSync(secret, "utf8"))[0].content).toBe("outside secret");

  await cli(["add", "s2", "--role", "user", "--content", "fine"], { home });
  const cursorTarget = join(outside, "cursor");
  writeFileSync(cursorTarget, "2026-01-01 00:00:00");
  symlinkSync(cursorTarget, join(home, "sessions", "s2", ".summary_cursor"));
  const r = await cli(["summarize", "s2"], { home, env: { ANTHROPIC_API_KEY: "sk-test" } });
  expect(r.code).toBe(2);
  expect(readFileSync(cursorTarget, "utf8")).toBe("2026-01-01 00:00:00");
  const doctor = await cli(["doctor"], { home });
  expect(doctor.stdout + doctor.stderr).toContain("symbolic link");
});

test("the home, config.toml and .store may be links", async () => {
  const real = tempHome();
  const link = join(tempHome(), "home-link");
  symlinkSync(real, link);
  expect((await cli(["add", "s1", "--role", "user", "--content", "via a linked home"], { home: link })).code).toBe(0);
  const store = tempHome("memvoy-bigdisk-");
  const home2 = tempHome();
  symlinkSync(store, join(home2, ".store"));
  const dotfiles = tempHome("memvoy-dotfiles-");
  writeFileSync(join(dotfiles, "config.toml"), "[limits]\nmax_history_messages = 4\n");
  symlinkSync(join(dotfiles, "config.toml"), join(home2, "config.toml"));
  expect((await cli(["add", "s1", "--role", "user", "--content", "on the big disk"], { home: home2 })).code).toBe(0);
  expect(existsSync(join(store, "history.db"))).toBe(true);
  const h = await cli(["history", "s1", "--json"], { home: home2 });
  expect(JSON.parse(h.stdout).messages).toHaveLength(1);
});

test("a config.toml linked to a file not there (a dotfiles folder missing) is refused, never read as no config", async () => {
  const home = tempHome();
  const dotfiles = tempHome("memvoy-dotfiles-");
  writeFileSync(join(dotfiles, "config.toml"), "[limits]\nmax_history_messages = 4\n");
  symlinkSync(join(dotfiles, "config.toml"), join(home, "config.toml"));
  // A first command caches the config it read; a second after the target is gone must not answer from that cache.
  expect((await cli(["add", "s1", "--role", "user", "--content", "hello"], { home })).code).toBe(0);
  rmSync(dotfiles, { recursive: true });
  const missing = join(dotfiles, "config.toml");
  for (const args of [["sessions"], ["add", "s1", "--role", "user", "--content", "x"], ["config", "check"]]) {
    const r = await cli(args, { home });
    expect({ args, code: r.code, stderr: r.stderr }).toEqual({
      args,
      code: 2,
      stderr: `memvoy: cannot read config ${join(home, "config.toml")}: it is a symbolic link to ${missing}, which does not exist (a dotfiles folder or a disk not there?)\n`,
    });
  }
  rmSync(join(home, "config.toml"));
  symlinkSync("config.toml", join(home, "config.toml"));
  const loop = await cli(["sessions"], { home });
  expect({ code: loop.code, stderr: loop.stderr }).toEqual({
    code: 2,
    stderr: `memvoy: cannot read config ${join(home, "config.toml")}: it is a symbolic link that leads back to itself (a loop)\n`,
  });
  // The refused add stored nothing.
  rmSync(join(home, "config.toml"));
  const all = await cli(["history", "s1", "--all", "--json"], { home });
  expect(JSON.parse(all.stdout).messages.map((m: { content: string }) => m.content)).toEqual(["hello"]);
});

test("a lock file or daemon.log that is a link is refused (exit 2); the file it points to is never written or truncated", async () => {
  const home = tempHome();
  const outside = tempHome("memvoy-outside-");
  await cli(["add", "s1", "--role", "user", "--content", "hello"], { home });
  const victim = join(outside, "notes.txt");
  for (const [file, args] of [
    [join(home, ".store", "write.lock"), ["add", "s1", "--role", "user", "--content", "x"]],
    [join(home, ".store", "write.lock"), ["reset", "s1"]],
    [join(home, "daemon.lock"), ["daemon", "status"]],
    [join(home, "daemon.log"), ["--daemon"]],
  ] as const) {
    writeFileSync(victim, "precious");
    rmSync(file, { force: true });
    symlinkSync(victim, file);
    const r = await cli([...args], { home });
    expect({ args, code: r.code }).toEqual({ args, code: 2 });
    expect(r.stderr).toContain(`${file} is a symbolic link`);
    expect(readFileSync(victim, "utf8")).toBe("precious");
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    rmSync(file);
  }
  const all = await cli(["history", "s1", "--all", "--json"], { home });
  expect(JSON.parse(all.stdout).messages.map((m: { content: string }) => m.content)).toEqual(["hello"]);
});

/** A home holding `content` in session s1, written without a background embedding drain (none runs meanwhile). */
function homeWith(content: string): string {
  const { home, api } = openTemp({ drain: "off" });
  api.add("s1", { role: "user", content });
  api.close();
  return home;
}

/** Every file under `dir` with its size and modification time: what a command must leave as it was. */
function snapshot(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => !e.isDirectory())
    .map((e) => {
      const st = lstatSync(join(e.parentPath, e.name));
      return `${join(e.parentPath, e.name)} ${st.size} ${st.mtimeMs}`;
    })
    .sort();
}

test("a link at history.db, its WAL or SHM, or sessions/ is refused (exit 2) by reading and writing commands alike; what it points to is untouched", async () => {
  const home = homeWith("hello");
  const outside = tempHome("memvoy-outside-");
  const db = join(home, ".store", "history.db");
  const sessions = join(home, "sessions");
  for (const [path, kind] of [
    [db, "moved"],
    [`${db}-wal`, "victim"],
    [`${db}-shm`, "victim"],
    [sessions, "moved"],
  ] as const) {
    const target = join(outside, kind === "moved" ? "moved" : "notes.txt");
    if (kind === "moved") renameSync(path, target);
    else writeFileSync(target, "precious");
    symlinkSync(target, path);
    const before = snapshot(outside);
    for (const args of [
      ["add", "s1", "--role", "user", "--content", "x"],
      ["search", "hello"],
      ["sessions"],
      ["doctor"],
    ]) {
      const r = await cli(args, { home });
      expect({ path, args, code: r.code }).toEqual({ path, args, code: 2 });
      expect(r.stderr.trim()).toStartWith(`memvoy: ${path} is a symbolic link; memvoy never follows a link`);
    }
    expect(snapshot(outside)).toEqual(before);
    rmSync(path);
    if (kind === "moved") renameSync(target, path);
    else rmSync(target);
  }
  const all = await cli(["history", "s1", "--all", "--json"], { home });
  expect(JSON.parse(all.stdout).messages.map((m: { content: string }) => m.content)).toEqual(["hello"]);
});

test("a link at .store/lance, at a vector table's folder or at a folder in a table is refused (exit 2) by semantic search and reindex", async () => {
  const home = homeWith("the deploy failed");
  const outside = tempHome("memvoy-outside-");
  expect((await cli(["reindex", "--quiet"], { home })).code).toBe(0);
  const lance = join(home, ".store", "lance");
  const table = join(lance, readdirSync(lance).find((n) => n.startsWith("messages_"))!);
  for (const path of [lance, table, join(table, "_versions")]) {
    const target = join(outside, "moved");
    renameSync(path, target);
    symlinkSync(target, path);
    const before = snapshot(outside);
    for (const args of [
      ["search", "deploy", "--match", "semantic"],
      ["reindex", "--quiet"],
    ]) {
      const r = await cli(args, { home });
      expect({ path, args, code: r.code }).toEqual({ path, args, code: 2 });
      expect(r.stderr.trim()).toStartWith(`memvoy: ${path} is a symbolic link; memvoy never follows a link`);
    }
    expect(snapshot(outside)).toEqual(before);
    rmSync(path);
    renameSync(target, path);
  }
  const r = await cli(["search", "deploy", "--match", "semantic", "--json"], { home });
  expect(JSON.parse(r.stdout).hits).toHaveLength(1);
});

test("a link at the relevance cache (.store/relevance) is not written through: semantic search keeps its sample in memory", async () => {
  const home = homeWith("the deploy failed");
  expect((await cli(["reindex", "--quiet"], { home })).code).toBe(0);
  const cache = join(home, ".store", "relevance");
  rmSync(cache, { recursive: true, force: true });
  const outside = tempHome("memvoy-outside-");
  symlinkSync(outside, cache);
  const r = await cli(["search", "deploy", "--match", "semantic", "--json"], { home });
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout).hits).toHaveLength(1);
  expect(readdirSync(outside)).toEqual([]);
  expect(lstatSync(cache).isSymbolicLink()).toBe(true);
});

test("reset on a corrupt history.json refuses with exit 2 and points to doctor --repair; nothing is deleted", async () => {
  const home = tempHome();
  await cli(["add", "s1", "--role", "user", "--content", "kept in the archive"], { home });
  const file = join(home, "sessions", "s1", "history.json");
  writeFileSync(file, '[{"id": "x", "role": "user", "content": ');
  const r = await cli(["reset", "s1"], { home });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("doctor --repair");
  expect(readFileSync(file, "utf8")).toBe('[{"id": "x", "role": "user", "content": ');
  const all = await cli(["history", "s1", "--all", "--json"], { home });
  expect(JSON.parse(all.stdout).messages.map((m: { content: string }) => m.content)).toEqual(["kept in the archive"]);
  renameSync(file, `${file}.bad`);
});

test("daemon status never reads a daemon.state.json that is a link", async () => {
  const home = homeWith("hello");
  const forged = join(tempHome("memvoy-outside-"), "state.json");
  const state = { pid: 4242, home, version: "0", startedAt: "2026-01-01T00:00:00Z", updatedAt: "2026-01-01T00:00:00Z" };
  writeFileSync(forged, JSON.stringify({ ...state, status: "stopped", stoppedAt: null, jobs: {}, lastError: null }));
  symlinkSync(forged, join(home, "daemon.state.json"));
  const r = await cli(["daemon", "status", "--json"], { home });
  expect(r.code).toBe(1); // not running
  expect(JSON.parse(r.stdout)).toMatchObject({ running: false, pid: null, version: null });
});
