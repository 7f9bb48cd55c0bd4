// A closed stdout (`memvoy sessions | head -1`) ends the command quietly: no stack trace, exit 0.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cli, removeTempHomes, repoRoot, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);
let home: string;
beforeAll(async () => {
  home = tempHome();
  expect((await cli(["demo", "--home", home])).code).toBe(0);
}, 60_000);

/** Run memvoy with its stdout a pipe whose reader has already gone; returns its exit code and stderr. */
async function intoClosedPipe(args: string[]): Promise<{ code: number; stderr: string }> {
  const dir = tempHome("memvoy-epipe-");
  const err = join(dir, "stderr");
  const quoted = args.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  const script = `bun '${join(repoRoot, "src/index.ts")}' ${quoted} 2>'${err}' | exit 0; echo \${PIPESTATUS[0]}`;
  const proc = Bun.spawn(["bash", "-c", script], {
    env: { PATH: process.env.PATH!, HOME: dir, TZ: "UTC" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  return { code: Number(out.trim()), stderr: existsSync(err) ? readFileSync(err, "utf8") : "" };
}

const commands = [
  ["sessions"],
  ["history", "deploy-pipeline", "--all"],
  ["search", "deploy"],
  ["summary", "deploy-pipeline"],
  ["errors", "list"],
  ["context", "deploy-pipeline", "--input", "what next?"],
  ["export", "--all"],
  ["export", "deploy-pipeline", "--format", "md"],
];

test.each(commands)(
  "%s ... into a closed pipe ends quietly with exit 0",
  async (...args) => {
    const r = await intoClosedPipe(["--home", home, ...(args as string[])]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  },
  60_000,
);

test("demo into a closed pipe still creates the home, quietly", async () => {
  const other = join(tempHome(), "demo");
  const r = await intoClosedPipe(["demo", "--home", other]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(existsSync(join(other, "sessions", "deploy-pipeline", "history.json"))).toBe(true);
}, 60_000);
