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
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";

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
  ]) {
    const r = await cli(args, { home });
    expect({ args, code: r.code }).toEqual({ args, code: 2 });
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
