// Small reads shared by the session files: a file's text when it exists, and its mtime.
import { readFileSync, statSync } from "node:fs";

/** The file's text, or undefined when it does not exist. */
export function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === "ENOENT") return undefined;
    if (e.code === "EISDIR" && e.path === undefined) e.path = path; // Bun's read of a folder names no path
    throw err;
  }
}

/** The file's mtime in ns, or undefined when it cannot be read. */
export function mtimeNs(path: string): bigint | undefined {
  try {
    return statSync(path, { bigint: true }).mtimeNs;
  } catch {
    return undefined;
  }
}
