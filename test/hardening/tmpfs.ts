// A small tmpfs for full-disk tests (root only): mount, fill to leave an exact number of bytes free, unmount.
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function canMountTmpfs(): string | undefined {
  if (process.platform !== "linux") return "full-disk tests need Linux tmpfs";
  if (process.getuid?.() !== 0) return "full-disk tests mount a tmpfs and need root";
  return undefined;
}

/** Print why the full-disk tests are skipped (once per file), and say whether they can run. */
export function tmpfsAvailable(): boolean {
  const why = canMountTmpfs();
  if (why) console.log(`skipped: ${why}`);
  return why === undefined;
}

export interface Tmpfs {
  dir: string;
  free(): number;
  /** Fill the filesystem so that about `bytes` stay free (the filler file is replaced each time). */
  leaveFree(bytes: number): void;
  unmount(): void;
}

export function mountTmpfs(sizeKiB: number): Tmpfs {
  const dir = mkdtempSync(join(tmpdir(), "memvoy-tmpfs-"));
  const mount = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", `size=${sizeKiB}k,mode=0700`, "tmpfs", dir]);
  if (mount.exitCode !== 0) throw new Error(`mount tmpfs failed: ${mount.stderr.toString()}`);
  const filler = join(dir, "filler");
  const free = () => {
    const s = statfsSync(dir);
    return Number(s.bavail) * Number(s.bsize);
  };
  return {
    dir,
    free,
    leaveFree(bytes) {
      rmSync(filler, { force: true });
      const fd = openSync(filler, "w");
      const block = Buffer.alloc(64 * 1024, 1);
      try {
        for (let left = free() - bytes; left > 0; left = free() - bytes) {
          const n = Math.min(left, block.length);
          try {
            writeSync(fd, block, 0, n);
          } catch {
            break;
          }
        }
      } finally {
        closeSync(fd);
      }
    },
    unmount() {
      Bun.spawnSync(["umount", "-l", dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function makeDir(path: string): string {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  return path;
}
