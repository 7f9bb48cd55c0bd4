// Files memvoy appends to in place (lock files, the daemon log) are opened without following a symbolic link:
// a link planted there would make memvoy write to, or truncate, a file outside the home.
import { constants, openSync } from "node:fs";
import { namedError } from "./errors.ts";
import { FILE_MODE } from "./atomic-write.ts";

/** A file memvoy keeps in its home is a symbolic link: refused, never followed. */
export const HomeLinkRefusedError = namedError<{ path: string }>(
  "HomeLinkRefusedError",
  "input",
  (d) =>
    `${d.path} is a symbolic link; memvoy never follows a link for its own files, and nothing was changed. Remove the link (memvoy creates the file again)`,
);
export type HomeLinkRefusedError = InstanceType<typeof HomeLinkRefusedError>;

const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

/** Open `path` for appending (created 0600 when missing); a symbolic link there throws HomeLinkRefusedError. */
export function openAppendNoFollow(path: string): number {
  try {
    return openSync(path, APPEND, FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ELOOP") throw new HomeLinkRefusedError({ path }, { cause: err });
    throw err;
  }
}
