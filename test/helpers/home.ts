// Temp homes, the library opened on them, and the CLI run as a real process (bun src/index.ts).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openMemory, type OpenOptions } from "../../src/app/open-memory.ts";

export const repoRoot = resolve(import.meta.dir, "../..");
const homes: string[] = [];

export function tempHome(prefix = "memvoy-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  homes.push(dir);
  return dir;
}

export function removeTempHomes(): void {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
}

export function openTemp(options: OpenOptions = {}) {
  const home = options.home ?? tempHome();
  return { home, api: openMemory({ env: {}, ...options, home }) };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run `memvoy ARGS` as a real process with a clean environment. */
export async function cli(args: string[], o: { home?: string; stdin?: string | Uint8Array; env?: Record<string, string> } = {}): Promise<CliResult> {
  const full = o.home ? ["--home", o.home, ...args] : args;
  const proc = Bun.spawn(["bun", join(repoRoot, "src/index.ts"), ...full], {
    cwd: tmpdir(),
    env: { PATH: process.env.PATH!, HOME: tmpdir(), TZ: "UTC", ...o.env },
    stdin: o.stdin === undefined ? "ignore" : typeof o.stdin === "string" ? new TextEncoder().encode(o.stdin) : o.stdin,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** Poll until `check` returns a truthy value or the deadline passes. */
export async function waitFor<T>(check: () => T | Promise<T>, timeoutMs = 10_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(delay);
  }
}
