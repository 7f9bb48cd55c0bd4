// Files memvoy appends to in place (lock files, the daemon log) are opened without following a symbolic link,
// and the archive, its WAL, the vector store and sessions/ are refused as links before they are opened: a link
// planted there would make memvoy read, write to or truncate files outside the home.
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, type Stats } from "node:fs";
import { namedError } from "./errors.ts";
import { DIR_MODE, FILE_MODE } from "./atomic-write.ts";

/** A file memvoy keeps in its home is a symbolic link: refused, never followed. */
export const HomeLinkRefusedError = namedError<{ path: string; fix?: string }>(
  "HomeLinkRefusedError",
  "input",
  (d) =>
    `${d.path} is a symbolic link; memvoy never follows a link for its own files, and nothing was changed. ${d.fix ?? "Remove the link (memvoy creates the file again)"}`,
);
export type HomeLinkRefusedError = InstanceType<typeof HomeLinkRefusedError>;

/** A named pipe, socket or device where memvoy keeps a lock file or a log: opening it would wait forever. */
export const HomeFileNotRegularError = namedError<{ path: string }>(
  "HomeFileNotRegularError",
  "runtime",
  (d) =>
    `${d.path} is not a regular file (a named pipe, socket or device); nothing was changed. Move it aside (memvoy creates the file again)`,
);
export type HomeFileNotRegularError = InstanceType<typeof HomeFileNotRegularError>;

// O_NONBLOCK: a named pipe with no reader fails at once (ENXIO) instead of holding the open; no effect on a file.
const APPEND =
  constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Open `path` for appending (created 0600 when missing); a symbolic link there throws HomeLinkRefusedError, and a
 * named pipe, socket or device HomeFileNotRegularError.
 */
export function openAppendNoFollow(path: string): number {
  let fd: number;
  try {
    fd = openSync(path, APPEND, FILE_MODE);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw new HomeLinkRefusedError({ path }, { cause: err });
    if (code === "ENXIO" || code === "ENODEV" || code === "EOPNOTSUPP")
      throw new HomeFileNotRegularError({ path }, { cause: err });
    throw err;
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw new HomeFileNotRegularError({ path });
  }
  return fd;
}

/** What to do about a link at a file or folder that holds data: the home or .store may be the link instead. */
export const MOVE_IN_PLACE = "Put what it points to in its place (the home or its .store folder may be a link)";

/** lstat `path`; undefined when nothing is there, or a file is where a folder above it belongs (ENOTDIR). */
export function lstatIfThere(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOTDIR") return undefined;
    throw err;
  }
}

/**
 * lstat `path` and throw HomeLinkRefusedError (with `fix`, the advice) when it is a symbolic link. Returns what
 * lstat found; undefined when nothing is there (or a file is where a folder above it belongs).
 */
export function refuseLink(path: string, fix?: string): Stats | undefined {
  const st = lstatIfThere(path);
  if (st?.isSymbolicLink()) throw new HomeLinkRefusedError(fix === undefined ? { path } : { path, fix });
  return st;
}

/**
 * Create the folder `path` in its parent (which must exist) unless it is there. A link there is refused; a file
 * there fails with EEXIST from mkdir, which describeError names as a file where memvoy keeps a folder.
 */
export function ensureOwnDir(path: string, fix?: string): void {
  if (refuseLink(path, fix)?.isDirectory()) return;
  try {
    mkdirSync(path, { mode: DIR_MODE });
  } catch (err) {
    // Made by another process meanwhile: fine. A file (or a link made meanwhile) is not.
    if ((err as NodeJS.ErrnoException).code !== "EEXIST" || !refuseLink(path, fix)?.isDirectory()) throw err;
  }
}
