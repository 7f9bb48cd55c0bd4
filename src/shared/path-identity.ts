// A path's identity (device and inode), what tells a file or folder from another put in its place, and what changed.
import { statSync } from "node:fs";

/** `dev:ino` of `path` (followed if a link), or undefined when it is not there. */
export function pathIdentity(path: string): string | undefined {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.dev}:${s.ino}`;
  } catch {
    return undefined;
  }
}

/**
 * The first of `paths` deleted or replaced since its identity was `start[i]` ("P was deleted or moved away", "P was replaced"), or
 * undefined. `skipAbsent`: a path that was not there at the start is not looked at.
 */
export function identityChange(
  paths: readonly string[],
  start: readonly (string | undefined)[],
  skipAbsent = false,
): string | undefined {
  for (const [i, path] of paths.entries()) {
    if (skipAbsent && start[i] === undefined) continue;
    const now = pathIdentity(path);
    if (now === start[i]) continue;
    // Gone from its path: a deletion and a move (mv to a new name or disk) look the same from here.
    return now === undefined ? `${path} was deleted or moved away` : `${path} was replaced`;
  }
  return undefined;
}
