// Symbolic links inside a session are never followed: a session folder, history.json, summary.json, the
// cursor, the summary lock or a temp file that is a link is refused before anything is read or written.
// (The home, its parents, config.toml and .store may be links: those are set-up choices, not session data.)
// A session folder that is another session's under a name differing only in case is refused the same way.
import { lstatSync, readdirSync, statSync, type BigIntStats, type Stats } from "node:fs";
import { basename, dirname, join } from "node:path";
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

/**
 * On a file system that does not tell upper from lower case (macOS, Windows), `sessions/ab` is the folder of a
 * session `Ab`: reading, writing or deleting it would be done to the other session's files.
 */
export const SessionFolderAliasError = namedError<{ session: string; other: string; dir: string }>(
  "SessionFolderAliasError",
  "input",
  (d) =>
    `session ${JSON.stringify(d.session)}: its folder ${d.dir} is the folder of session ${JSON.stringify(d.other)} (this file system does not tell upper from lower case), and nothing was changed. Use ${JSON.stringify(d.other)}, or an id that differs in more than case`,
);
export type SessionFolderAliasError = InstanceType<typeof SessionFolderAliasError>;

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
  refuseCaseAlias(sessionDir);
  return true;
}

/**
 * Throw SessionFolderAliasError when the existing folder `sessionDir` is also listed under another name that
 * differs only in case. Where the file system tells case apart (the id with its case flipped is missing, or
 * another folder) this costs one lstat; elsewhere the folder's listing is read, once while it does not change.
 */
function refuseCaseAlias(sessionDir: string): void {
  const id = basename(sessionDir);
  const flipped = flipCase(id);
  if (flipped === id) return; // no letter
  const parent = dirname(sessionDir);
  const mine = statSync(sessionDir, { bigint: true, throwIfNoEntry: false });
  if (!mine || !sameFile(lstatSync(join(parent, flipped), { bigint: true, throwIfNoEntry: false }), mine)) return;
  const lower = id.toLowerCase();
  const other = listing(parent).find(
    (n) =>
      n !== id &&
      n.toLowerCase() === lower &&
      sameFile(lstatSync(join(parent, n), { bigint: true, throwIfNoEntry: false }), mine),
  );
  if (other !== undefined) throw new SessionFolderAliasError({ session: id, other, dir: sessionDir });
}

const flipCase = (id: string) =>
  id.replace(/[A-Za-z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));

const sameFile = (a: BigIntStats | undefined, b: BigIntStats) => a !== undefined && a.ino === b.ino && a.dev === b.dev;

/** sessions/ listed, again only when it changed (a loop over every session reads it once). */
const listed = new Map<string, { stamp: string; names: string[] }>();

function listing(dir: string): string[] {
  const st = statSync(dir, { bigint: true });
  const stamp = `${st.ino}:${st.mtimeNs}:${st.ctimeNs}`;
  const hit = listed.get(dir);
  if (hit?.stamp === stamp) return hit.names;
  const names = readdirSync(dir);
  listed.set(dir, { stamp, names });
  return names;
}
