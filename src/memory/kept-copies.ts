// The copies `doctor --repair` keeps of what it could not read or adopted (history.json.corrupt-*,
// summary.json.corrupt-*, history.db.broken-*, history.db.agenvoy-*): a deletion removes them too, as they may hold the removed text (DESIGN §Deletion).
import { lstatSync, readdirSync, rmSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import type { MemoryContext } from "./memory-context.ts";

/**
 * Names of the copies kept of one file: `name`.corrupt-TIME, `name`.broken-TIME (and a rebuild a kill left there),
 * `name`.agenvoy-TIME (an Agenvoy archive the rebuild adopted).
 */
const keptOf = (name: string) => (entry: string) =>
  entry.startsWith(`${name}.corrupt-`) || entry.startsWith(`${name}.broken-`) || entry.startsWith(`${name}.agenvoy-`);

/** Remove the kept copies of these files (symlinks among them are removed, never followed); their paths, home-relative. */
function removeCopiesOf(home: string, files: readonly string[]): string[] {
  const removed: string[] = [];
  for (const file of files) {
    const dir = dirname(file);
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      continue; // no such folder: nothing kept
    }
    for (const entry of entries.filter(keptOf(basename(file))).sort()) {
      const path = join(dir, entry);
      if (lstatSync(path).isDirectory()) continue;
      rmSync(path, { force: true });
      removed.push(relative(home, path));
    }
  }
  return removed;
}

/**
 * Remove the copies that may hold text a deletion of `session` removes: the session's history.json copies (and its
 * summary.json copies when the summary goes too), and the archive's (history.db and its -wal, -shm). Returns the
 * deletion's result with them (home-relative) as `keptCopiesRemoved`, when there were any.
 */
export function removeKeptCopies<T extends object>(
  ctx: MemoryContext,
  session: string,
  o: { summary: boolean },
  result: T,
): T & { keptCopiesRemoved?: string[] } {
  const { paths } = ctx;
  const files = [paths.history(session), paths.db, `${paths.db}-wal`, `${paths.db}-shm`];
  if (o.summary) files.push(paths.summary(session));
  const copies = removeCopiesOf(paths.home, files);
  return copies.length > 0 ? { ...result, keptCopiesRemoved: copies } : result;
}
