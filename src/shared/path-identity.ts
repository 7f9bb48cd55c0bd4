// A path's identity (device and inode): what tells a file or folder from another put in its place.
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
