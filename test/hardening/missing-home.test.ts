// A home that does not exist (a mistyped --home or MEMVOY_HOME): the commands that only read answer as for an
// empty home and leave it uncreated; the commands that write create it as before.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildBinaryOnce, makeTempDir, removeTempDirs, runBinary } from "../fixture/binary.ts";

let bin = "";
beforeAll(async () => {
  bin = await buildBinaryOnce();
}, 600_000);
afterAll(removeTempDirs);

const READS = [
  ["doctor", "--json"],
  ["stats"],
  ["stats", "--json"],
  ["sessions"],
  ["sessions", "--json"],
  ["search", "deploy"],
  ["search", "deploy", "--json"],
  ["search", "deploy", "--match", "semantic"],
  ["search", "deploy", "--match", "hybrid"],
  ["history", "s1"],
  ["export", "--all"],
  ["export", "s1"],
  ["context", "s1"],
  ["summary", "s1"],
  ["usage"],
  ["errors", "list"],
  ["errors", "search", "ECONNREFUSED"],
  ["errors", "search", "ECONNREFUSED", "--json"],
  ["errors", "show", "1"],
];

/** What a home's disk use is: a home that does not exist takes none. */
const withoutDisk = (text: string) =>
  text
    .replace(/^disk .*$/m, "disk")
    .replace(/"disk": \{[^}]*\}/, '"disk"')
    .replace(/"(sessions|archive|vectors|total)": \d+/g, '"$1": 0');

test("a command that only reads answers for a missing home as for an empty one, and creates nothing", async () => {
  const dir = makeTempDir("memvoy-missing-");
  const empty = join(dir, "empty");
  mkdirSync(join(empty, "sessions"), { recursive: true, mode: 0o700 }); // a home, which the first command fills

  const missing = join(dir, "typo", "memvoy");
  for (const args of READS) {
    const a = await runBinary(bin, ["--home", empty, ...args], { timeoutMs: 60_000 });
    const b = await runBinary(bin, ["--home", missing, ...args], { timeoutMs: 60_000 });
    const same = (r: typeof a) => ({
      args,
      code: r.code,
      stdout: withoutDisk(r.stdout.replaceAll(missing, empty)),
      stderr: r.stderr.replaceAll(missing, empty),
    });
    expect(same(b)).toEqual(same(a));
    expect({ args, created: existsSync(join(dir, "typo")) }).toEqual({ args, created: false });
  }
}, 240_000);

/** Run `args` on an empty home and on a missing one: the same answer, and the missing one stays missing. */
async function sameAsEmpty(cases: { args: string[]; stdin?: string }[]): Promise<void> {
  const dir = makeTempDir("memvoy-missing-");
  const empty = join(dir, "empty");
  mkdirSync(join(empty, "sessions"), { recursive: true, mode: 0o700 });
  const missing = join(dir, "typo", "memvoy");
  const cwd = makeTempDir("memvoy-cwd-"); // HOME too: an empty folder, where import auto finds no source
  const seen: unknown[] = [];
  const expected: unknown[] = [];
  for (const { args, stdin } of cases) {
    const run = (home: string) => runBinary(bin, ["--home", home, ...args], { stdin, cwd, timeoutMs: 60_000 });
    const [a, b] = [await run(empty), await run(missing)];
    const answer = (r: typeof a) => ({
      code: r.code,
      stdout: r.stdout.replaceAll(missing, empty),
      stderr: r.stderr.replaceAll(missing, empty),
    });
    seen.push({ args, ...answer(b), created: existsSync(join(dir, "typo")) });
    expected.push({ args, ...answer(a), created: false });
    rmSync(join(dir, "typo"), { recursive: true, force: true });
  }
  expect(seen).toEqual(expected);
}

test("a write refused for its input creates no home: the input is checked before the home is made", async () => {
  await sameAsEmpty([
    { args: ["add", "s1", "--role", "bogus", "--content", "x"] },
    { args: ["add", "s1", "--role", "user", "--content", ""] },
    { args: ["add", "s1", "--role", "user", "--content", "x", "--idempotency-key", ""] },
    { args: ["add", "s1", "--role", "user", "--content", "x", "--sender", "x".repeat(300)] },
    { args: ["add", "s1", "--role", "user"], stdin: "\n" },
    { args: ["add", "s1"], stdin: "" },
    { args: ["add", "s1"], stdin: "plain text\n" },
    { args: ["add", "s1", "--json"], stdin: '{"role":"user","content":"a"}\n{"role":"bogus","content":"b"}\n' },
    { args: ["errors", "record", "--tool", "git", "--error", "", "--fix", "f"] },
    { args: ["errors", "record", "--tool", "git", "--error", "-", "--fix", "f"], stdin: "" },
    { args: ["errors", "record", "--tool", "git", "--error", "x", "--fix", "f", "--outcome", "bogus"] },
  ]);
}, 240_000);

test("a command that changes nothing on an empty home answers for a missing one as for it, and creates nothing", async () => {
  await sameAsEmpty([
    { args: ["rm-message", "01M958DV054FZMVYYPN5NMMAES"] },
    { args: ["rm-message", "01M958DV054FZMVYYPN5NMMAES", "--json"] },
    { args: ["rm", "s1"] },
    { args: ["reset", "s1", "--all"] },
    { args: ["summarize", "s1"] },
    { args: ["summarize"] },
    { args: ["summarize", "--json"] },
    { args: ["errors", "rm", "abc123"] },
    { args: ["errors", "sweep"] },
    { args: ["errors", "sweep", "--json"] },
    { args: ["reindex"] },
    { args: ["reindex", "--pending", "--json"] },
    { args: ["import", "auto"] },
  ]);
}, 240_000);

test("an import that finds no file to read creates no home", async () => {
  const nothing = makeTempDir("memvoy-no-source-");
  await sameAsEmpty([
    { args: ["import", "claude-code", nothing] },
    { args: ["import", "opencode", nothing, "--json"] },
    { args: ["import", "chatgpt", nothing] },
  ]);
}, 240_000);

test("doctor --repair on a missing home has nothing to repair and creates nothing", async () => {
  const dir = makeTempDir("memvoy-missing-");
  const missing = join(dir, "memvoy-hoem");
  const r = await runBinary(bin, ["--home", missing, "doctor", "--repair"], { timeoutMs: 60_000 });
  expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
    code: 0,
    stdout: `home ${missing}: 0 session(s)\n${missing} does not exist yet: the first write (memvoy add, import or demo) creates it\nall good\n`,
    stderr: "",
  });
  expect(existsSync(missing)).toBe(false);
}, 120_000);

test("MEMVOY_HOME naming no folder: doctor says so, all good, exit 0, nothing created", async () => {
  const dir = makeTempDir("memvoy-missing-");
  const missing = join(dir, "memvoy-hoem");
  const r = await runBinary(bin, ["doctor"], { env: { MEMVOY_HOME: missing }, timeoutMs: 60_000 });
  expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
    code: 0,
    stdout: `home ${missing}: 0 session(s)\n${missing} does not exist yet: the first write (memvoy add, import or demo) creates it\nall good\n`,
    stderr: "",
  });
  expect(existsSync(missing)).toBe(false);
}, 120_000);

test("a command that writes still creates a missing home", async () => {
  const dir = makeTempDir("memvoy-missing-");
  const home = join(dir, "new", "memvoy");
  const r = await runBinary(bin, ["--home", home, "add", "s1", "--role", "user", "--content", "hello"], {
    timeoutMs: 60_000,
  });
  expect(r.code, r.stderr).toBe(0);
  expect(existsSync(join(home, ".store", "history.db"))).toBe(true);
  const h = await runBinary(bin, ["--home", home, "history", "s1"], { timeoutMs: 60_000 });
  expect(h.stdout).toContain("hello");
}, 120_000);

test("a folder that holds other things only (--home . in a project, --home ~) is read as an empty home, untouched", async () => {
  const dir = makeTempDir("memvoy-missing-");
  writeFileSync(join(dir, "notes.txt"), "mine");
  for (const args of [["stats"], ["sessions"], ["search", "deploy"], ["errors", "list"]]) {
    const r = await runBinary(bin, ["--home", ".", ...args], { cwd: dir, timeoutMs: 60_000 });
    expect({ args, code: r.code }).toEqual({ args, code: 0 });
  }
  const r = await runBinary(bin, ["--home", ".", "doctor"], { cwd: dir, timeoutMs: 60_000 });
  expect(r.stdout).toBe(
    `home ${dir}: 0 session(s)\n${dir} holds no memvoy home yet: the first write (memvoy add, import or demo) creates it\nall good\n`,
  );
  expect(readdirSync(dir)).toEqual(["notes.txt"]);
}, 120_000);
