// Symbolic links inside a session are never followed: a session folder, history.json, summary.json, the
// cursor, the summary lock or a temp file that is a link is refused before anything is read or written.
// (The home, its parents, config.toml and .store may be links: those are set-up choices, not session data.)
import type { Stats } from "node:fs";
import { join } from "node:path";
import { namedError } from "../../shared/errors.ts";
import { lstatIfThere } from "../../shared/no-follow.ts";

/** A session's file or folder at `path` is a symbolic link: refused before anything is read or written. */
export const SymlinkRefusedError = namedError<{ path: string }>(
  "SymlinkRefusedError",
  "input",
  (d) =>
    `${d.path} is a symbolic link; memvoy never follows a link inside a session, and nothing was changed. Replace it with the real file or folder`,
);
export type SymlinkRefusedError = InstanceType<typeof SymlinkRefusedError>;

/** A named pipe, socket or device where memvoy keeps a session file: reading it would wait forever. */
export const NotAFileError = namedError<{ path: string }>(
  "NotAFileError",
  "runtime",
  (d) => `${d.path} is not a regular file (a named pipe, socket or device): move it aside`,
);
export type NotAFileError = InstanceType<typeof NotAFileError>;

/** Throw SymlinkRefusedError when `path` is a symbolic link (a missing path is fine). Returns what lstat found. */
function refuseSymlink(path: string): Stats | undefined {
  const st = lstatIfThere(path); // a missing file is the usual case: no throw
  if (st?.isSymbolicLink()) throw new SymlinkRefusedError({ path });
  return st;
}

/** The files memvoy keeps in a session folder. */
export const SESSION_FILES = ["history.json", "summary.json", ".summary_cursor", ".summary.lock"] as const;

/**
 * Refuse a session whose folder, or any file memvoy keeps in it, is a symbolic link, one whose folder is a file
 * (ENOTDIR, which describeError names as a file where memvoy keeps a folder), and one whose file is a named pipe,
 * socket or device (NotAFileError: a read would wait forever). Returns whether the folder exists.
 */
export function refuseSessionSymlinks(sessionDir: string): boolean {
  const st = refuseSymlink(sessionDir);
  if (!st) return false;
  if (!st.isDirectory())
    throw Object.assign(new Error(`ENOTDIR: not a folder, ${sessionDir}`), { code: "ENOTDIR", path: sessionDir });
  for (const name of SESSION_FILES) {
    const path = join(sessionDir, name);
    const file = refuseSymlink(path);
    if (file && !file.isFile() && !file.isDirectory()) throw new NotAFileError({ path }); // a folder: EISDIR later
  }
  return true;
}
