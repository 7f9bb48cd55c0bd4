// A history.db cut to nothing (a crash, a full disk, a copy cut short) in a home that held an archive: SQLite would
// take the empty file for a new database, and every message only the archive held would be gone without a word.
import { existsSync, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { HomePaths } from "../config/home.ts";
import { BrokenDatabaseError, emptiedDatabase } from "../storage/sqlite/broken-database.ts";

/** How long a new archive another memvoy is making may stay empty: its WAL is written within milliseconds. */
const MAKING_MS = 1000;

/** Whether history.db exists with no byte, and no WAL holds its pages. */
const emptyArchive = (db: string) => existsSync(db) && emptiedDatabase(db);

/** Vectors memvoy made, or a session folder holding history.json or summary.json: the home had an archive. */
function heldAnArchive(paths: HomePaths): boolean {
  if (lstatSync(paths.lance, { throwIfNoEntry: false })?.isDirectory()) return true;
  let names: string[];
  try {
    names = readdirSync(paths.sessions);
  } catch {
    return false;
  }
  return names.some((n) =>
    ["history.json", "summary.json"].some((f) => lstatSync(join(paths.sessions, n, f), { throwIfNoEntry: false })),
  );
}

/** Refuse (BrokenDatabaseError, for doctor to name and repair) an emptied archive rather than start a new one. */
export function refuseEmptiedArchive(paths: HomePaths): void {
  if (!emptyArchive(paths.db) || !heldAnArchive(paths)) return;
  const deadline = Date.now() + MAKING_MS;
  while (Date.now() < deadline) {
    Bun.sleepSync(20);
    if (!emptyArchive(paths.db)) return;
  }
  throw new BrokenDatabaseError({
    path: paths.db,
    detail: "empty: 0 bytes, cut short by a crash, a full disk or a copy",
  });
}
