// Whether the home's archive file is still the one this process opened. A long-lived process (a library user,
// memvoy mcp, the daemon) keeps its handle when the home is deleted (rm -rf) or replaced (moved away, a new home
// made at its path): SQLite would go on writing into the unlinked file, where every write is lost unseen.
import { dirname } from "node:path";
import { namedError } from "../../shared/errors.ts";
import { pathIdentity } from "../../shared/path-identity.ts";
import type { Db } from "./db.ts";

/** A read or write of a home deleted or replaced since this process opened it is refused. */
export const HomeGoneError = namedError<{ home: string; replaced: boolean; archiveOnly?: boolean }>(
  "HomeGoneError",
  "runtime",
  (d) =>
    `${d.archiveOnly ? `the archive of the home ${d.home} (.store/history.db) was deleted` : `the home ${d.home} was ${d.replaced ? "replaced" : "deleted or moved away"}`} while this process had it open; ` +
    "its old files are neither read nor written any more (a write would be lost): open the home again" +
    (d.replaced ? " to use the new one" : ""),
);
export type HomeGoneError = InstanceType<typeof HomeGoneError>;

const opened = new WeakMap<Db, string>();
/** The database checked for the synchronous work under way (see withDbChecked). */
let checked: Db | undefined;

/** Note the identity (device and inode) of the file `db` was opened on. */
export function rememberDbFile(db: Db, path: string): void {
  const id = pathIdentity(path);
  if (id !== undefined) opened.set(db, id);
}

/**
 * Throws HomeGoneError when the path `db` was opened on no longer names the same file; true when it does (so its
 * folder is there too), false for a database whose file is not known (in memory). One stat.
 */
export function checkDbInPlace(db: Db): boolean {
  if (checked === db) return true;
  const start = opened.get(db);
  if (start === undefined) return false;
  const now = pathIdentity(db.filename);
  if (now === start) return true;
  const home = dirname(dirname(db.filename));
  if (now !== undefined) throw new HomeGoneError({ home, replaced: true });
  throw new HomeGoneError({ home, replaced: false, archiveOnly: pathIdentity(home) !== undefined });
}

/**
 * Check `db` once (checkDbInPlace), then run the synchronous `fn` (told whether the check knew the file): its writes
 * need not check it again.
 */
export function withDbChecked<T>(db: Db, fn: (known: boolean) => T): T {
  const known = checkDbInPlace(db);
  const before = checked;
  if (known) checked = db;
  try {
    return fn(known);
  } finally {
    checked = before;
  }
}
