// Generated homes cached between runs under the temp dir, keyed by a version string and a hash of the
// sources that decide their content (corpus, schema, search form, insert path). `--fresh` rebuilds them.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** Bump to invalidate every cached home. */
export const BENCH_DATA_VERSION = "v1";

const root = resolve(import.meta.dir, "../..");
const KEY_SOURCES = [
  "bench/lib/corpus.ts",
  "bench/lib/vocabulary.ts",
  "bench/lib/build-home.ts",
  "src/shared/search-form.ts",
  "src/storage/sqlite/messages-repo.ts",
];

export const fresh = process.argv.includes("--fresh");
export const cacheRoot = join(tmpdir(), "memvoy-bench");

function sourceHash(): string {
  const h = createHash("sha256").update(BENCH_DATA_VERSION);
  const migrations = "src/storage/sqlite/migrations";
  const files = KEY_SOURCES.concat(
    readdirSync(join(root, migrations))
      .filter((f) => f.endsWith(".sql"))
      .sort()
      .map((f) => `${migrations}/${f}`),
  );
  for (const f of files) h.update(f).update(readFileSync(join(root, f))); // relative names: any clone gets the same key
  return h.digest("hex").slice(0, 10);
}

/** Path of the cached item `name` (a home folder or a file) for the current sources. */
export function cachePath(name: string): string {
  return join(cacheRoot, `${BENCH_DATA_VERSION}-${sourceHash()}-${name}`);
}

/** Remove cached items of this name built from other sources. */
function pruneStale(name: string, keep: string): void {
  if (!existsSync(cacheRoot)) return;
  for (const entry of readdirSync(cacheRoot)) {
    const full = join(cacheRoot, entry);
    const cached = /^v\w+-[0-9a-f]{10}-(.+)$/.exec(entry); // not build-* scratch folders
    if (full !== keep && cached?.[1] === name) rmSync(full, { recursive: true, force: true });
  }
}

const DONE = ".bench-complete";

export function isCached(name: string): boolean {
  return !fresh && existsSync(join(cachePath(name), DONE));
}

/** Move a finished home folder into the cache as `name` (replacing an older copy). */
export function adoptIntoCache(name: string, dir: string): string {
  const target = cachePath(name);
  pruneStale(name, "");
  writeFileSync(join(dir, DONE), new Date().toISOString() + "\n");
  renameSync(dir, target);
  return target;
}

/** Whether a process with this pid is alive. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A scratch folder for building something that may later be adopted into the cache (stale ones are removed). */
export function scratchDir(name: string): string {
  mkdirSync(cacheRoot, { recursive: true });
  for (const entry of readdirSync(cacheRoot)) {
    const m = /^build-(\d+)-/.exec(entry);
    if (m && !alive(Number(m[1]))) rmSync(join(cacheRoot, entry), { recursive: true, force: true });
  }
  const dir = join(cacheRoot, `build-${process.pid}-${name}`);
  rmSync(dir, { recursive: true, force: true });
  return dir;
}
