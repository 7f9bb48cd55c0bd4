// Reading a file memvoy expects to be a regular one: a named pipe or a device there would make the read wait
// forever, so it is opened without waiting and refused unless it is a regular file.
import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";

/** The text of the regular file at `path` (a link to one is followed); errno errors as readFileSync throws them. */
export function readRegularFile(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile())
      throw Object.assign(new Error("not a regular file (a folder, named pipe, socket or device)"), {
        code: "EFTYPE",
        path,
      });
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}
