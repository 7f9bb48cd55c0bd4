// Before a deletion is committed to the archive: the folders it must change take changes, or it is refused whole.
import { accessSync, constants } from "node:fs";
import { namedError } from "../shared/errors.ts";

/** A folder a deletion must change (remove or rewrite files in) that this user may not write. */
export const FolderUnchangeableError = namedError<{
  command: string;
  session: string;
  dir: string;
  reason: "permission" | "read-only";
}>(
  "FolderUnchangeableError",
  "input",
  (d) =>
    `${d.command} ${d.session}: ${d.dir} ${d.reason === "read-only" ? "is on a read-only file system" : "may not be written by this user (permission denied)"}; nothing was changed`,
);
export type FolderUnchangeableError = InstanceType<typeof FolderUnchangeableError>;

/**
 * Refuse `command` when one of `dirs` takes no change: committed to the archive first, the deletion would else be
 * left half done (the text still in the session's files) until the folder is fixed. A folder not there is fine.
 */
export function refuseUnchangeable(command: string, session: string, dirs: readonly string[]): void {
  for (const dir of dirs) {
    try {
      accessSync(dir, constants.W_OK | constants.X_OK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "EACCES" || code === "EPERM")
        throw new FolderUnchangeableError({ command, session, dir, reason: "permission" });
      if (code === "EROFS") throw new FolderUnchangeableError({ command, session, dir, reason: "read-only" });
    }
  }
}
