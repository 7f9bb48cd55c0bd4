// Input slips: impossible or out-of-range times, invalid UTF-8 in an argument, --last and --days out of range,
// a query that starts with "-"; refused with exit 2 and the valid range, the same way in the library and the CLI.
import { afterAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InputError } from "../../src/shared/errors.ts";
import { parseTime } from "../../src/shared/time.ts";
import { cli, openTemp, removeTempHomes, repoRoot, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

test("--at: a day that does not exist and a time out of range are refused with exit 2", async () => {
  const home = tempHome();
  const feb30 = await cli(["add", "s1", "--role", "user", "--content", "x", "--at", "2026-02-30T10:00:00Z"], { home });
  expect(feb30.code).toBe(2);
  expect(feb30.stderr).toContain("2026-02-30T10:00:00Z");
  const far = await cli(["add", "s1", "--role", "user", "--content", "x", "--at", "-99999999999"], { home });
  expect(far.code).toBe(2);
  expect(far.stderr).toContain("out of range");
  expect(far.stderr).not.toContain("BigInt");
  const sessions = await cli(["sessions", "--json"], { home });
  expect(JSON.parse(sessions.stdout)).toEqual([]);
  expect(parseTime("2026-02-29T00:00:00Z")).toBeUndefined();
  expect(parseTime("2028-02-29T00:00:00Z")).toBeDefined();
  expect(parseTime("2026-04-31 10:00")).toBeUndefined();
});

test("the library refuses the same times (every surface shares the check)", () => {
  const { api } = openTemp();
  try {
    expect(() => api.add("s1", { role: "user", content: "x", sendAt: "2026-02-30T10:00:00Z" })).toThrow(InputError);
    expect(() => api.add("s1", { role: "user", content: "x", sendAt: -99999999999n * 1_000_000_000n })).toThrow(
      /out of range/,
    );
    expect(() => api.add("s1", { role: "user", content: "x", sendAt: "-99999999999" })).toThrow(/out of range/);
    expect(api.sessions()).toEqual([]);
  } finally {
    api.close();
  }
});

test("--content with invalid UTF-8 is refused like stdin with the same bytes", async () => {
  const home = tempHome();
  const run = (script: string) =>
    Bun.spawn(["sh", "-c", script], {
      cwd: tmpdir(),
      env: { PATH: process.env.PATH!, HOME: tmpdir() },
      stdout: "pipe",
      stderr: "pipe",
    });
  const bin = `bun ${join(repoRoot, "src/index.ts")} --home ${home}`;
  const arg = run(`exec ${bin} add s1 --role user --content "$(printf 'bad \\377 byte')"`);
  const [argErr, argCode] = await Promise.all([new Response(arg.stderr).text(), arg.exited]);
  const stdin = run(`printf 'bad \\377 byte' | ${bin} add s1 --role user`);
  const [stdinErr, stdinCode] = await Promise.all([new Response(stdin.stderr).text(), stdin.exited]);
  expect([argCode, stdinCode]).toEqual([2, 2]);
  expect(argErr).toContain("not valid UTF-8");
  expect(stdinErr).toContain("not valid UTF-8");
  // A real U+FFFD (valid UTF-8) is text like any other.
  const ok = await cli(["add", "s1", "--role", "user", "--content", "replacement \uFFFD char"], { home });
  expect(ok.code).toBe(0);
  const h = await cli(["history", "s1", "--json"], { home });
  expect(JSON.parse(h.stdout).messages.map((m: { content: string }) => m.content)).toEqual(["replacement \uFFFD char"]);
});

test("--last outside 1..1000000 is refused with exit 2 and the range", async () => {
  const home = tempHome();
  await cli(["add", "s1", "--role", "user", "--content", "hello"], { home });
  for (const n of ["0", "-1", "99999999999999999999"]) {
    const r = await cli(["history", "s1", "--last", n], { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("1 to 1000000");
  }
  const { api } = openTemp({ home });
  try {
    expect(() => api.history("s1", { last: 0 })).toThrow(InputError);
    expect(api.history("s1", { last: 1 }).map((m) => m.content)).toEqual(["hello"]);
  } finally {
    api.close();
  }
});

test("history --all with --last is refused with exit 2 (it used to ignore --last)", async () => {
  const home = tempHome();
  await cli(["add", "s1", "--role", "user", "--content", "hello"], { home });
  for (const args of [
    ["history", "s1", "--all", "--last", "2"],
    ["history", "s1", "--last", "2", "--all", "--role", "user"],
  ]) {
    const r = await cli(args, { home });
    expect({ args, code: r.code }).toEqual({ args, code: 2 });
    expect(r.stderr).toBe("memvoy: history: give --all or --last N, not both\n");
  }
});

test("usage --days outside 1..36500 is refused with exit 2 and the range, before the home is opened", async () => {
  const home = join(tempHome(), "home");
  for (const n of ["0", "36501", "3000000", "99999999999999"]) {
    const r = await cli(["usage", "--days", n], { home });
    expect({ n, code: r.code }).toEqual({ n, code: 2 });
    expect(r.stderr).toBe("memvoy: usage: --days must be a whole number from 1 to 36500\n");
  }
  expect(existsSync(home)).toBe(false);
  const ok = await cli(["usage", "--days", "36500", "--json"], { home });
  expect(ok.code).toBe(0);
  expect(JSON.parse(ok.stdout).days).toBe(36500);
});

test("search -- -x finds text that starts with a dash; search -x says how", async () => {
  const home = tempHome();
  await cli(["add", "s1", "--role", "user", "--content", "run it with -x please"], { home });
  const r = await cli(["search", "--json", "--", "-x"], { home });
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout).hits.map((h: { content: string }) => h.content)).toEqual(["run it with -x please"]);
  const bad = await cli(["search", "-x"], { home });
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("memvoy search -- -x");
  const help = await cli(["search", "--help"]);
  expect(help.stdout).toContain("--");
});

test("a JSONL batch giving one idempotency key to two different lines is refused with exit 2 naming both; a repeated line is stored once", async () => {
  const home = tempHome();
  const line = (content: string, key?: string) =>
    JSON.stringify({ role: "user", content, ...(key ? { idempotencyKey: key } : {}) });
  const bad = await cli(["add", "s1"], {
    home,
    stdin: [line("first", "k1"), line("no key"), "", line("second, different", "k1")].join("\n"),
  });
  expect(bad.code).toBe(2);
  expect(bad.stderr.trim()).toBe(
    'memvoy: stdin line 4: idempotencyKey "k1" is also on stdin line 1, for another message; nothing was written (a key names one message)',
  );
  expect(existsSync(join(home, "sessions", "s1"))).toBe(false);
  const same = await cli(["add", "s1", "--json"], {
    home,
    stdin: [line("first", "k1"), line("first", "k1")].join("\n"),
  });
  expect(same.code).toBe(0);
  const r = JSON.parse(same.stdout);
  expect(r.ids[0]).toBe(r.ids[1]);
  expect(r.duplicates).toBe(1);
});
