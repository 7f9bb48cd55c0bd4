// A file-size limit (ulimit -f, a service's LimitFSIZE, a FAT32 disk's 4 GiB): a write past it fails with EFBIG,
// which is named as such, with what happened to the home, never as a bare errno.
import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli, removeTempHomes, repoRoot, tempHome } from "../fixture/home.ts";
import { processOutput } from "../fixture/process-output.ts";

afterAll(removeTempHomes);

/** `memvoy ARGS` in a shell whose file-size limit is `kib` KiB. */
async function limited(kib: number, home: string, args: string[], stdin: string) {
  const proc = Bun.spawn(
    ["sh", "-c", `ulimit -f ${kib} && exec "$@"`, "sh", "bun", join(repoRoot, "src/index.ts"), "--home", home, ...args],
    {
      cwd: tmpdir(),
      env: { PATH: process.env.PATH!, HOME: tmpdir(), TZ: "UTC" },
      stdin: new TextEncoder().encode(stdin),
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  return processOutput(proc);
}

test("an add whose history.json would pass the file-size limit says so, and nothing was changed", async () => {
  const home = tempHome();
  expect((await cli(["add", "s", "--role", "user", "--content", "seed"], { home })).code).toBe(0);
  const lines = Array.from({ length: 2000 }, (_, i) =>
    JSON.stringify({ role: i % 2 ? "assistant" : "user", content: `line ${i} ${"u".repeat(300)}` }),
  ).join("\n");
  const r = await limited(400, home, ["add", "s"], lines);
  expect(r.code).toBe(1);
  expect(r.stderr).toStartWith("memvoy: a file would grow past the largest size allowed here (the shell's ulimit -f");
  expect(r.stderr).toContain("nothing was changed (EFBIG");
  const file = JSON.parse(readFileSync(join(home, "sessions", "s", "history.json"), "utf8"));
  expect(file.map((m: { content: string }) => m.content)).toEqual(["seed"]);
  const doctor = await cli(["doctor"], { home });
  expect(doctor.stdout).toContain("all good");
}, 60_000);

test("a message whose archive write would pass the file-size limit (SQLite's 'disk I/O error') names the limit", async () => {
  const home = tempHome();
  expect((await cli(["add", "s", "--role", "user", "--content", "seed"], { home })).code).toBe(0);
  // history.json stays under the limit; the archive's WAL, which holds the message more than once, does not.
  const r = await limited(400, home, ["add", "s", "--role", "user"], "w".repeat(150_000));
  expect({ code: r.code, stderr: r.stderr.trim() }).toEqual({
    code: 1,
    stderr:
      "memvoy: a file would grow past the largest size allowed here (the shell's ulimit -f, or the file system's limit); nothing was changed (disk I/O error)",
  });
  const file = JSON.parse(readFileSync(join(home, "sessions", "s", "history.json"), "utf8"));
  expect(file.map((m: { content: string }) => m.content)).toEqual(["seed"]);
  expect((await cli(["doctor"], { home })).stdout).toContain("all good");
}, 60_000);
