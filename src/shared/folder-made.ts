// Making a folder memvoy needs (a new home, a temporary folder), or one line saying why it cannot be made.
import { lstatSync, mkdtempSync, readlinkSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ensureDir } from "./atomic-write.ts";
import { namedError } from "./errors.ts";

/** The home does not exist and cannot be made there: a setting to change, not a failure of memvoy. */
export const HomeNotMadeError = namedError<{ home: string; reason: string }>(
  "HomeNotMadeError",
  "input",
  (d) => `cannot create the home ${d.home}: ${d.reason}; give --home (or MEMVOY_HOME) a folder you may write to`,
);
export type HomeNotMadeError = InstanceType<typeof HomeNotMadeError>;

/** The home is, or lies under, a symbolic link to nothing: a disk not mounted, say; a runtime failure. */
export const LinkToNothingError = namedError<{ link: string; target: string }>(
  "LinkToNothingError",
  "runtime",
  (d) => `${d.link} is a symbolic link to ${d.target}, which does not exist (a disk not mounted?); nothing was changed`,
);
export type LinkToNothingError = InstanceType<typeof LinkToNothingError>;

/** No temporary folder can be made in the system's temp folder ($TMPDIR, else /tmp). */
export const TempFolderError = namedError<{ dir: string; reason: string; fromEnv: boolean }>(
  "TempFolderError",
  "input",
  (d) =>
    `cannot make a temporary folder in ${d.dir}${d.fromEnv ? " (TMPDIR)" : ""}: ${d.reason}; ` +
    `${d.fromEnv ? "set TMPDIR to" : "give"} a folder you may write to`,
);
export type TempFolderError = InstanceType<typeof TempFolderError>;

/** What is at `path`: a folder, something else, a symbolic link to nothing, or nothing (or nothing we may see). */
function kindAt(path: string): "folder" | "other" | "dangling" | undefined {
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    if (st) return st.isDirectory() ? "folder" : "other";
    return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() ? "dangling" : undefined;
  } catch {
    return undefined; // ENOTDIR (under a file) or EACCES (a folder above may not be searched)
  }
}

/** A file at `path` or above it where a folder is needed, or a symbolic link to nothing there. */
function inTheWay(path: string): { file: string } | { link: string } | undefined {
  for (let p = path; p !== dirname(p); p = dirname(p)) {
    const kind = kindAt(p);
    if (kind === "other") return { file: p };
    if (kind === "dangling") return { link: p };
    if (kind === "folder") return undefined;
  }
  return undefined;
}

/** The nearest folder that exists at `path` or above it. */
function nearestFolder(path: string): string {
  let p = path;
  while (p !== dirname(p) && kindAt(p) !== "folder") p = dirname(p);
  return p;
}

/** Why mkdir -p of `path` failed with `err`, naming the path in the way; undefined when it is not the setting's fault. */
export function folderProblem(path: string, err: unknown): string | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const blocked = inTheWay(path);
  if (blocked && "file" in blocked) return `${blocked.file} is a file, not a folder`;
  const at = nearestFolder(path);
  if (code === "EACCES" || code === "EPERM") return `permission denied on ${at}`;
  if (code === "EROFS") return `${at} is on a read-only file system`;
  if (code === "ENOENT" || code === "ENOTDIR") return `no folder can be made in ${at}`;
  return undefined;
}

/** Make the home's folder (and those above it); a home that cannot be made there is a HomeNotMadeError. */
export function makeHomeFolder(home: string): void {
  try {
    ensureDir(home);
  } catch (err) {
    throw homeNotMade(home, err);
  }
}

/**
 * mkdir's failure to make the home, as a HomeNotMadeError when the path is the problem; else (a full disk) as it
 * is. Without the errno as its cause: describeError would add "permission denied:" before the line that says so.
 */
export function homeNotMade(home: string, err: unknown): unknown {
  const blocked = inTheWay(home);
  if (blocked && "link" in blocked)
    return new LinkToNothingError({ link: blocked.link, target: readlinkSync(blocked.link) });
  const reason = folderProblem(home, err);
  return reason === undefined ? err : new HomeNotMadeError({ home, reason });
}

/** A new private folder under the system's temp folder, as mkdtemp makes it; one that cannot be made is a TempFolderError. */
export function makeTempFolder(prefix: string): string {
  const dir = tmpdir();
  try {
    return mkdtempSync(join(dir, prefix));
  } catch (err) {
    const blocked = inTheWay(dir);
    const reason =
      blocked && "file" in blocked
        ? `${blocked.file} is a file, not a folder`
        : blocked || kindAt(dir) === undefined
          ? "it does not exist"
          : folderProblem(join(dir, prefix), err);
    if (reason === undefined) throw err;
    throw new TempFolderError({ dir, reason, fromEnv: Boolean(process.env.TMPDIR) });
  }
}
