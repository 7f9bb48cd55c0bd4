// LanceDB creates its files and folders from its own threads with the process umask (0644/0755 under 022,
// 0666/0777 under 000). The library never changes it (it runs inside other programs; the memvoy program sets
// 077 itself); instead, after each LanceDB commit the tree under .store/lance is made private: files 0600,
// folders 0700.
import { chmodSync, lstatSync, type Stats } from "node:fs";
import { join } from "node:path";
import { DIR_MODE, FILE_MODE } from "../../shared/atomic-write.ts";
import { dirEntries } from "../../shared/dir-entries.ts";

/** Paths already made private: Lance files are immutable once written, so each is fixed once. */
const done = new Set<string>();
/** The one file LanceDB replaces at every commit: checked every time. */
const REWRITTEN = "latest_version_hint.json";

export function privatizeTree(root: string): void {
  fix(root, true);
}

function fix(path: string, isDir: boolean): void {
  if (!done.has(path)) {
    let st: Stats;
    try {
      st = lstatSync(path);
    } catch {
      return; // removed meanwhile (cleanup of old versions)
    }
    if (st.isSymbolicLink()) return;
    const want = st.isDirectory() ? DIR_MODE : FILE_MODE;
    try {
      if ((st.mode & 0o777) !== want) chmodSync(path, want);
      if (!path.endsWith(REWRITTEN)) done.add(path);
    } catch {
      return;
    }
    isDir = st.isDirectory();
  }
  if (!isDir) return;
  for (const e of dirEntries(path)) {
    if (e.isSymbolicLink()) continue;
    fix(join(path, e.name), e.isDirectory());
  }
}
