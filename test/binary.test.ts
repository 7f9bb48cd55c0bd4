// The compiled binary, copied outside the repo, starts and reports its version.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
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
