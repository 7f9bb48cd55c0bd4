// Builds the compiled binary once per test run and runs copies of it outside the repo.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const repoRoot = resolve(import.meta.dir, "../..");
const distDir = join(repoRoot, "dist");
const binaryPath = join(distDir, "memvoy");
const keyPath = join(distDir, "memvoy.key");
const lockDir = join(distDir, ".memvoy-build.lock");

const BUILD_TIMEOUT_MS = 10 * 60_000;
const STALE_LOCK_MS = 10 * 60_000;

/** Hash of everything the binary is built from, so an unchanged tree reuses dist/memvoy. */
function buildKey(): string {
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update(`bun ${Bun.version}\0`);
  const files = ["build.ts", "package.json", "bun.lock"];
  for (const dir of ["src", "patches"]) {
    if (!existsSync(join(repoRoot, dir))) continue;
    for (const rel of new Bun.Glob("**/*").scanSync({ cwd: join(repoRoot, dir), dot: true })) {
      files.push(join(dir, rel));
    }
  }
  for (const rel of files.sort()) {
    const path = join(repoRoot, rel);
    if (!existsSync(path)) continue;
    hasher.update(`${rel}\0`);
    hasher.update(readFileSync(path));
    hasher.update("\0");
  }
  return hasher.digest("hex");
}

function isFresh(key: string): boolean {
  return existsSync(binaryPath) && existsSync(keyPath) && readFileSync(keyPath, "utf8") === key;
}

/** A lock left by a crashed or killed build: its owner is gone, or it is very old. */
function isStaleLock(): boolean {
  try {
    const pid = Number(readFileSync(join(lockDir, "pid"), "utf8"));
    if (pid > 0) {
      try {
        process.kill(pid, 0);
      } catch {
        return true;
      }
    }
    return Date.now() - statSync(lockDir).mtimeMs > STALE_LOCK_MS;
  } catch {
    // The lock exists but has no pid file yet (just created), or vanished.
    return existsSync(lockDir) && Date.now() - statSync(lockDir).mtimeMs > STALE_LOCK_MS;
  }
}

async function runBuild(key: string): Promise<void> {
  const tmpOut = join(distDir, `.memvoy.${process.pid}.tmp`);
  const proc = Bun.spawn([process.execPath, "build.ts", "--outfile", tmpOut], {
    cwd: repoRoot,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) {
    rmSync(tmpOut, { force: true });
    throw new Error(`bun build.ts failed with exit code ${code}\n${out}\n${err}`);
  }
  // Renames are atomic: a reader sees either the old or the new binary, whole.
  renameSync(tmpOut, binaryPath);
  writeFileSync(`${keyPath}.tmp`, key);
  renameSync(`${keyPath}.tmp`, keyPath);
}

/** Builds dist/memvoy unless it is up to date; one builder at a time across processes. */
async function ensureBuilt(): Promise<void> {
  const key = buildKey();
  const deadline = Date.now() + BUILD_TIMEOUT_MS;
  mkdirSync(distDir, { recursive: true });
  while (!isFresh(key)) {
    let locked = false;
    try {
      mkdirSync(lockDir);
      locked = true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    if (locked) {
      try {
        writeFileSync(join(lockDir, "pid"), String(process.pid));
        if (!isFresh(key)) await runBuild(key);
      } finally {
        rmSync(lockDir, { recursive: true, force: true });
      }
      return;
    }
    if (isStaleLock()) {
      rmSync(lockDir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for the build lock ${lockDir}`);
    await Bun.sleep(200);
  }
}

let built: Promise<void> | undefined;
const tempDirs = new Set<string>();

/** A fresh temp dir outside the repo; removeTempDirs() deletes it. The name carries our pid. */
export function makeTempDir(prefix = "memvoy-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}${process.pid}-`));
  tempDirs.add(dir);
  return dir;
}

/** Removes this process's temp dirs; call it from afterAll. */
export function removeTempDirs(): void {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

/** Removes binary copies left by test processes that died before their afterAll. */
function sweepDeadCopies(): void {
  for (const name of readdirSync(tmpdir())) {
    const pid = Number(/^memvoy-bin-(\d+)-/.exec(name)?.[1]);
    if (!pid || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch {
      rmSync(join(tmpdir(), name), { recursive: true, force: true });
    }
  }
}

/**
 * Builds dist/memvoy (at most once per test run, even across parallel test
 * processes) and returns the path of a copy in a fresh temp dir outside the
 * repo, so the binary cannot reach the repo's node_modules.
 */
export async function buildBinaryOnce(): Promise<string> {
  built ??= ensureBuilt();
  await built;
  sweepDeadCopies();
  const copy = join(makeTempDir("memvoy-bin-"), "memvoy");
  copyFileSync(binaryPath, copy);
  return copy;
}

export interface RunOptions {
  /** Added to a clean environment (PATH, HOME=cwd, TMPDIR, LANG); undefined removes a variable. */
  env?: Record<string, string | undefined>;
  /** Defaults to a fresh temp dir outside the repo. */
  cwd?: string;
  /** Written to the binary's stdin; stdin is empty otherwise. */
  stdin?: string | Uint8Array;
  timeoutMs?: number;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runBinary(bin: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const cwd = opts.cwd ?? makeTempDir("memvoy-cwd-");
  const env: Record<string, string> = {};
  const merged = {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    HOME: cwd,
    TMPDIR: tmpdir(),
    LANG: "C.UTF-8",
    ...opts.env,
  };
  for (const [k, v] of Object.entries(merged)) if (v !== undefined) env[k] = v;

  const proc = Bun.spawn([bin, ...args], {
    cwd,
    env,
    stdin: opts.stdin === undefined ? "ignore" : new Blob([opts.stdin]),
    stdout: "pipe",
    stderr: "pipe",
    timeout: opts.timeoutMs ?? 30_000,
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}
