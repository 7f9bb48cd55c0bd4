// One daemon per home: an flock on <home>/daemon.lock, released by the kernel when the holder dies.
import { readFileSync, statSync } from "node:fs";
import { tryLockFile } from "../shared/file-lock.ts";

/** Take the daemon lock, retrying briefly (a `daemon status` probe may hold it for an instant). */
export async function acquireDaemonLock(path: string, waitMs = 500): Promise<(() => void) | undefined> {
  const deadline = performance.now() + waitMs;
  for (;;) {
    const release = tryLockFile(path);
    if (release || performance.now() >= deadline) return release;
    await Bun.sleep(50);
  }
}

/** Whether a daemon holds the lock now. Never creates the lock file. */
export { daemonLockHeld as isDaemonLockHeld } from "../app/daemon-probe.ts";

/** The pid holding an flock on `path`, from /proc/locks (Linux); undefined when it cannot be told. */
export function lockHolderPid(path: string): number | undefined {
  let text: string;
  let inode: number;
  try {
    text = readFileSync("/proc/locks", "utf8");
    inode = statSync(path).ino;
  } catch {
    return undefined;
  }
  for (const line of text.split("\n")) {
    const m = /^\d+:\s+FLOCK\s+\S+\s+WRITE\s+(\d+)\s+[0-9a-f]+:[0-9a-f]+:(\d+)\s/i.exec(line);
    if (m && Number(m[2]) === inode) return Number(m[1]);
  }
  return undefined;
}
