// Atomic file replacement: write a temp file beside the target, sync it, rename over the target.
import {
  type BigIntStats,
  closeSync,
  existsSync,
  fdatasyncSync,
  fstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
  writevSync,
} from "node:fs";
import { dirname, basename, join } from "node:path";
import { startDataSync, startWriteback } from "./background-sync.ts";
import { holdFile, releaseLater } from "./release-later.ts";

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

export function ensureDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: DIR_MODE });
}

/** Create the folder `path` in its parent, which must exist: a parent removed meanwhile (a deleted home) is never recreated. */
export function ensureDirIn(path: string): void {
  if (existsSync(path)) return; // the usual case, without the cost of an EEXIST error
  try {
    mkdirSync(path, { mode: DIR_MODE });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
}

export interface StagedFile {
  /**
   * Wait until the staged content is on disk (staged with `syncLater`; otherwise it already is). Throws
   * what fdatasync throws, the temp file removed. commit() waits for it too.
   */
  synced(): void;
  /** Move the staged content over the target (a rename: it needs no space and cannot half-happen). */
  commit(): void;
  discard(): void;
  /** The staged file's status before commit(): its inode, size and mtime are the target's once it is committed. */
  stat(): BigIntStats;
}

export interface StageOptions {
  /** Write the data back in the background; synced() waits for it (see stageFileAtomic). */
  syncLater?: boolean;
  /** The file commit() replaces is freed on another thread, not in the rename (for big files: release-later.ts). */
  releaseReplacedLater?: boolean;
}

/**
 * Write data (text, bytes, or byte chunks written in order) to a synced temp file beside `path`; nothing
 * changes at `path` until commit(). fdatasync makes the data and what is needed to read it back (size,
 * blocks) durable before the rename, as fsync does, without also flushing the timestamps. With `syncLater`
 * the data is written back in the background (background-sync.ts): the caller does other work, then waits
 * with synced() (the fdatasync).
 */
export function stageFileAtomic(
  path: string,
  data: string | Uint8Array | readonly Uint8Array[],
  options: StageOptions = {},
): StagedFile {
  const temp = openTempFile(path);
  temp.write(typeof data === "string" ? [Buffer.from(data, "utf8")] : data instanceof Uint8Array ? [data] : data);
  return temp.stage(options);
}

/** A temp file beside its target written in parts, e.g. the part known early, then the rest: then staged. */
export interface TempFile {
  /** Append the chunks, in order. A failure removes the temp file and throws. */
  write(chunks: readonly Uint8Array[]): void;
  /** Start writing what was written so far back to disk, without waiting for it. */
  writeBack(): void;
  /** Written in full: stage it, as stageFileAtomic does. */
  stage(options?: StageOptions): StagedFile;
  /** Remove the temp file (not staged). */
  discard(): void;
}

/** Create the temp file beside `path` (a fresh name: never an existing file or a planted symbolic link). */
export function openTempFile(path: string): TempFile {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  let fd: number;
  try {
    // "wx": a fresh file, never an existing one or a symbolic link planted at the temp name.
    fd = openSync(tmp, "wx", FILE_MODE);
  } catch (err) {
    // Refused: named by the file being written and its folder, not by a temp name the user never saw.
    const e = err as NodeJS.ErrnoException;
    if (e.code === "EACCES" || e.code === "EPERM" || e.code === "EROFS") {
      e.message = `${e.code}: ${dirname(path)} takes no new file (writing ${basename(path)} needs one beside it)`;
      e.path = path;
    }
    throw err;
  }
  let open = true;
  let failure: unknown;
  const fail = (err: unknown): never => {
    if (open) closeSync(fd);
    open = false;
    failure = err;
    rmSync(tmp, { force: true });
    throw err;
  };
  let wait = () => {};
  let holdReplaced = false;
  const synced = () => {
    if (failure !== undefined) throw failure;
    if (!open) return;
    try {
      wait();
    } catch (err) {
      fail(err);
    }
    closeSync(fd);
    open = false;
  };
  const staged: StagedFile = {
    synced,
    commit() {
      synced();
      const replaced = holdReplaced ? holdFile(path) : undefined;
      try {
        renameSync(tmp, path);
      } catch (err) {
        if (replaced !== undefined) closeSync(replaced);
        rmSync(tmp, { force: true });
        // A folder at the target: the error names the temp file (its path), which is gone now.
        const e = err as NodeJS.ErrnoException;
        if (e.code === "EISDIR") e.path = path;
        throw err;
      }
      if (replaced !== undefined) releaseLater(replaced);
    },
    discard() {
      try {
        synced(); // the descriptor stays open while the sync runs
      } catch {
        return; // the temp file is gone already
      }
      rmSync(tmp, { force: true });
    },
    stat: () => (open ? fstatSync(fd, { bigint: true }) : statSync(tmp, { bigint: true })),
  };
  return {
    write(chunks) {
      try {
        writeAll(fd, chunks);
      } catch (err) {
        fail(err);
      }
    },
    writeBack: () => startWriteback(fd),
    stage(options = {}) {
      holdReplaced = options.releaseReplacedLater === true;
      try {
        if (options.syncLater) wait = startDataSync(fd);
        else fdatasyncSync(fd);
      } catch (err) {
        return fail(err);
      }
      if (!options.syncLater) synced();
      return staged;
    },
    discard: () => staged.discard(),
  };
}

/** Every chunk, in order: one writev while the kernel takes it whole, chunk by chunk after a short write. */
export function writeAll(fd: number, chunks: readonly Uint8Array[]): void {
  const total = chunks.reduce((n, b) => n + b.length, 0);
  let done = chunks.length > 1 ? writevSync(fd, chunks as Uint8Array[]) : 0;
  if (done === total) return;
  for (const buf of chunks) {
    if (done >= buf.length) {
      done -= buf.length;
      continue;
    }
    let off = done;
    done = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
  }
}

export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  stageFileAtomic(path, data).commit();
}
