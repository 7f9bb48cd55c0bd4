// Listing a source's files: a file as given, or every matching file under a folder (sorted, symlinks not followed).
import { statSync } from "node:fs";
import { join } from "node:path";
import { dirEntries } from "../shared/dir-entries.ts";
import { userHome } from "../shared/user-home.ts";

/** The user's home folder, where a source keeps its files by default. */
export function homeOf(env: Record<string, string | undefined>): string {
  return userHome(env, "give the files to import as PATH");
}

/** `path` itself when it is a file, else the files under it whose name passes `want`, in path order (links inside not followed). */
export function listFiles(path: string, want: (name: string, full: string) => boolean): string[] {
  const st = statSync(path);
  if (st.isFile()) return [path];
  if (!st.isDirectory()) return [];
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of dirEntries(dir)) {
      const full = join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.isFile() && want(e.name, full)) out.push(full);
    }
  };
  walk(path);
  return out.sort();
}

/** The first line of a text, trimmed and cut to a title's length. */
export function titleFrom(text: string, max = 120): string | undefined {
  const line = text
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l !== "");
  if (!line) return undefined;
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
