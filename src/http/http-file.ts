// <home>/http.json: the running daemon's URL and bearer token, 0600, written atomically at start and
// removed at a clean stop. The one secret file of a home.
import { closeSync, constants, fstatSync, openSync, readFileSync, rmSync } from "node:fs";
import { writeFileAtomic } from "../shared/atomic-write.ts";

export interface HttpFile {
  url: string;
  port: number;
  pid: number;
  token: string;
  startedAt: string;
  /** What the daemon answers with (programStamp): a command with the same stamp may ask it instead. */
  stamp?: string;
  /** The identity (device:inode) of the daemon.lock the daemon holds: a copy of the home has another. */
  lock?: string;
}

const textOf = (f: HttpFile) => JSON.stringify(f, null, 2) + "\n";

export function writeHttpFile(path: string, f: HttpFile): void {
  writeFileAtomic(path, textOf(f));
}

/** Whether `path` holds exactly what writeHttpFile(path, f) wrote (a regular file, never read through a link). */
export function httpFileHolds(path: string, f: HttpFile): boolean {
  return readRegular(path) === textOf(f);
}

/** The file as the daemon wrote it: a regular file of this user, never through a link; undefined otherwise. */
export function readHttpFile(path: string): HttpFile | undefined {
  const text = readRegular(path);
  if (text === undefined) return undefined;
  try {
    const f = JSON.parse(text) as HttpFile;
    return typeof f.url === "string" && typeof f.token === "string" && typeof f.pid === "number" ? f : undefined;
  } catch {
    return undefined;
  }
}

/** The text of `path` when it is a regular file of this user, opened without following a link; else undefined. */
function readRegular(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const st = fstatSync(fd);
    if (!st.isFile() || (process.getuid && st.uid !== process.getuid())) return undefined;
    return readFileSync(fd, "utf8");
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export function removeHttpFile(path: string): void {
  rmSync(path, { force: true });
}

/**
 * The default port of a home: derived from its path (FNV-1a) into 20000-29999, below the ephemeral range,
 * so that daemons on two homes do not collide.
 */
export function derivedPort(home: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(home)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return 20_000 + (h % 10_000);
}
