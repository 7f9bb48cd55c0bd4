// Test helpers: start `memvoy --daemon` as a real process on a temp home, wait on its state, stop it.
import { waitFor as pollUntil } from "../helpers/home.ts";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";

export const repoRoot = resolve(import.meta.dir, "../..");
const entry = join(repoRoot, "src/index.ts");
const homes: string[] = [];
const procs = new Set<Subprocess>();

export function tempHome(): string {
  const dir = mkdtempSync(join(tmpdir(), "memvoy-daemon-"));
  homes.push(dir);
  return dir;
}

/** Kill every daemon still running and remove the temp homes. */
export function cleanup(): void {
  for (const p of procs) if (p.exitCode === null) p.kill(9);
  procs.clear();
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
}

export function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH!, HOME: tmpdir(), TZ: "UTC", ...extra };
}

export interface Daemon {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  home: string;
  stderr(): string;
  exited: Promise<number>;
}

export function startDaemon(home: string, env: Record<string, string> = {}, extraArgs: string[] = []): Daemon {
  const proc = Bun.spawn(["bun", entry, "--daemon", "--home", home, ...extraArgs], {
    cwd: tmpdir(),
    env: baseEnv(env),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  procs.add(proc);
  let err = "";
  const decoder = new TextDecoder();
  void (async () => {
    for await (const chunk of proc.stderr) err += decoder.decode(chunk, { stream: true });
  })();
  return { proc, home, stderr: () => err, exited: proc.exited };
}

export async function cli(home: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn(["bun", entry, "--home", home, ...args], { cwd: tmpdir(), env: baseEnv(env), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** Poll until `check` returns a truthy value; throws after the deadline (15 s by default here). */
export const waitFor = <T>(check: () => T | Promise<T>, timeoutMs = 15_000, what = "condition"): Promise<T> => pollUntil(check, timeoutMs, what);

export function readJson<T = any>(path: string): T | undefined {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as T;
  } catch {
    return undefined;
  }
}

export function daemonState(home: string): any {
  return readJson(join(home, "daemon.state.json"));
}

/** Wait until the daemon has written its running state (its jobs are scheduled). */
export async function waitRunning(d: Daemon, timeoutMs = 15_000): Promise<any> {
  return waitFor(
    () => {
      if (d.proc.exitCode !== null) throw new Error(`daemon exited with ${d.proc.exitCode}: ${d.stderr()}`);
      const s = daemonState(d.home);
      return s && s.pid === d.proc.pid && s.status === "running" ? s : undefined;
    },
    timeoutMs,
    "the daemon to start",
  );
}

export function logText(home: string): string {
  const p = join(home, "daemon.log");
  return existsSync(p) ? readFileSync(p, "utf8") : "";
}

/** Pids of the daemon's children (`worker.start` lines), optionally of one kind of work. */
export function workerPids(home: string, job?: string): number[] {
  const re = /worker\.start job=(\S+) pid=(\d+)/g;
  return [...logText(home).matchAll(re)].filter((m) => job === undefined || m[1] === job).map((m) => Number(m[2]));
}

/** Whether a process runs (a zombie waiting to be reaped counts as gone). */
export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3));
  } catch {
    return false;
  }
}

/** The files a process has mapped (its /proc/PID/maps). */
export function mappedFiles(pid: number): string {
  return readFileSync(`/proc/${pid}/maps`, "utf8");
}
