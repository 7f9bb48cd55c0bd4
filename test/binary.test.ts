// The compiled binary, copied outside the repo, starts and reports its version.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import pkg from "../package.json";
import { buildBinaryOnce, makeTempDir, removeTempDirs, repoRoot, runBinary } from "./fixture/binary";

// Skipped until the CLI entry point exists.
const noEntry = !existsSync(join(repoRoot, "src/index.ts"));
let bin = "";

beforeAll(async () => {
  if (!noEntry) bin = await buildBinaryOnce();
}, 600_000);
afterAll(removeTempDirs);

test.skipIf(noEntry)("the binary under test is a copy outside the repo", () => {
  expect(bin.startsWith(repoRoot)).toBe(false);
  expect(existsSync(bin)).toBe(true);
});

test.skipIf(noEntry)("--version prints `memvoy <version>` and exits 0 with no node_modules in reach", async () => {
  const { code, stdout, stderr } = await runBinary(bin, ["--version"], { cwd: makeTempDir() });
  const context = `stdout: ${stdout}\nstderr: ${stderr}`;
  expect(code, context).toBe(0);
  expect(stdout.trim(), context).toBe(`memvoy ${pkg.version}`);
});

test.skipIf(noEntry)(
  "mcp --print-config run through a link names the link, which an upgrade moves, not the binary it points at",
  async () => {
    const bin2 = join(makeTempDir(), "bin");
    mkdirSync(bin2);
    const link = join(bin2, "memvoy");
    symlinkSync(bin, link);
    const command = async (argv0: string, path?: string) => {
      const proc = Bun.spawn([argv0, "mcp", "--print-config", "codex", "--json"], {
        cwd: makeTempDir(),
        env: { PATH: path ?? "/usr/bin:/bin", HOME: makeTempDir() },
        stdout: "pipe",
        stderr: "pipe",
      });
      const out = await new Response(proc.stdout).text();
      expect(await proc.exited).toBe(0);
      return /^command = (.*)$/m.exec(JSON.parse(out).config)?.[1];
    };
    expect(await command(link)).toBe(JSON.stringify(link));
    expect(await command("memvoy", `${bin2}:/usr/bin:/bin`)).toBe(JSON.stringify(link));
    expect(await command(bin)).toBe(JSON.stringify(bin));
  },
);
