// Symbolic links inside a session are never followed: a session folder, history.json, summary.json, the
// cursor, the summary lock or a temp file that is a link is refused before anything is read or written.
// (The home, its parents, config.toml and .store may be links: those are set-up choices, not session data.)
import { lstatSync } from "node:fs";
import { join } from "node:path";
import { namedError } from "../../shared/errors.ts";

/** A session's file or folder at `path` is a symbolic link: refused before anything is read or written. */
export const SymlinkRefusedError = namedError<{ path: string }>(
  "SymlinkRefusedError",
  "input",
  (d) =>
    `${d.path} is a symbolic link; memvoy never follows a link inside a session, and nothing was changed. Replace it with the real file or folder`,
);
export type SymlinkRefusedError = InstanceType<typeof SymlinkRefusedError>;

/** Throw SymlinkRefusedError when `path` is a symbolic link (a missing path is fine). Returns whether it exists. */
export function refuseSymlink(path: string): boolean {
  let link: boolean | undefined;
  try {
    link = lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink(); // a missing file is the usual case: no throw
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOTDIR") return false;
    throw err;
  }
  if (link) throw new SymlinkRefusedError({ path });
  return link !== undefined;
}

/** The files memvoy keeps in a session folder. */
export const SESSION_FILES = ["history.json", "summary.json", ".summary_cursor", ".summary.lock"] as const;

/** Refuse a session whose folder, or any file memvoy keeps in it, is a symbolic link. Returns whether the folder exists. */
export function refuseSessionSymlinks(sessionDir: string): boolean {
  if (!refuseSymlink(sessionDir)) return false;
  for (const name of SESSION_FILES) refuseSymlink(join(sessionDir, name));
  return true;
}
