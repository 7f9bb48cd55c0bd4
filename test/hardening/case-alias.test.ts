// A session id that differs from another only in case, on a file system that does not tell case apart (macOS,
// Windows): its folder is the other session's, so every command refuses it (exit 2) and nothing is changed.
// The file system is stood in for by a bind mount (root only): sessions/ab is then sessions/AB's very folder.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

function whyNot(): string | undefined {
  if (process.platform !== "linux") return "the case-insensitive folder is stood in for by a Linux bind mount";
  if (process.getuid?.() !== 0) return "the case-insensitive folder is stood in for by a bind mount, which needs root";
  return undefined;
}

const skip = whyNot();
if (skip) console.log(`skipped: ${skip}`);

test.skipIf(skip !== undefined)(
  "a case-only twin of a session is refused by every command; the session keeps its files",
  async () => {
    const home = tempHome();
    await cli(["add", "AB", "--role", "user", "--content", "upper message"], { home });
    await cli(["add", "AB", "--role", "assistant", "--content", "upper reply"], { home });
    const dir = join(home, "sessions", "AB");
    const summary = '{"key_decisions":[],"past_discussions":[],"current_discussion":"kept"}';
    writeFileSync(join(dir, "summary.json"), summary);
    const history = readFileSync(join(dir, "history.json"), "utf8");
    const twin = join(home, "sessions", "ab");
    mkdirSync(twin);
    const mount = Bun.spawnSync(["mount", "--bind", dir, twin]);
    expect(mount.exitCode).toBe(0);
    try {
      for (const args of [
        ["reset", "--all", "ab"],
        ["rm", "ab"],
        ["add", "ab", "--role", "user", "--content", "lower message"],
        ["history", "ab"],
        ["context", "ab"],
        ["summary", "ab"],
      ]) {
        const r = await cli(args, { home });
        expect({ args, code: r.code }).toEqual({ args, code: 2 });
        expect(r.stderr).toContain('is the folder of session "AB"');
      }
      const doctor = await cli(["doctor", "--repair", "--yes"], { home });
      expect(doctor.stdout).toContain('is the folder of session "AB"');
      expect(readdirSync(dir).sort()).toEqual(["history.json", "summary.json"]);
      expect(readFileSync(join(dir, "history.json"), "utf8")).toBe(history);
      expect(readFileSync(join(dir, "summary.json"), "utf8")).toBe(summary);
    } finally {
      Bun.spawnSync(["umount", twin]);
    }
    const after = await cli(["history", "AB", "--all", "--json"], { home });
    expect(after.code).toBe(0);
    expect(JSON.parse(after.stdout).messages.map((m: { content: string }) => m.content)).toEqual([
      "upper message",
      "upper reply",
    ]);
  },
);

test("ids that differ only in case stay two sessions where the file system tells case apart", async () => {
  const home = tempHome();
  for (const id of ["ab", "AB", "Ab"]) {
    const r = await cli(["add", id, "--role", "user", "--content", `message of ${id}`], { home });
    expect(r.code).toBe(0);
  }
  for (const id of ["ab", "AB", "Ab"]) {
    const r = await cli(["history", id, "--json"], { home });
    expect(JSON.parse(r.stdout).messages.map((m: { content: string }) => m.content)).toEqual([`message of ${id}`]);
  }
});
