// Whether a daemon runs for this home: it holds an flock on <home>/daemon.lock. Probing never creates
// the file; it takes the lock for an instant only when nobody holds it.
import { existsSync } from "node:fs";
import { tryLockFile } from "../shared/file-lock.ts";

export function daemonLockHeld(lockPath: string): boolean {
  if (!existsSync(lockPath)) return false;
  const release = tryLockFile(lockPath);
  if (!release) return true;
  release();
  return false;
}
