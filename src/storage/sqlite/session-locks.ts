// Per-session locks of the embedded archive: one holder per session in this process, and across the
// processes of this machine a flock on a lock file beside the database (released by the kernel on death).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { tryLockFile } from "../../shared/file-lock.ts";
import { SessionLockTimeoutError } from "../ports/archive-errors.ts";
import { sessionToken } from "./fts-upgrade.ts";

export class SessionLocks {
  private readonly held = new Set<string>();

  /** `dir`: the folder for lock files; undefined (an in-memory database) locks within this process only. */
  constructor(private readonly dir: string | undefined) {}

  async with<T>(session: string, fn: () => Promise<T>, timeoutMs = 30_000): Promise<T> {
    const release = await this.acquire(session, timeoutMs);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  private async acquire(session: string, timeoutMs: number): Promise<() => void> {
    const deadline = performance.now() + timeoutMs;
    let wait = 1;
    for (;;) {
      if (!this.held.has(session)) {
        const file = this.fileLock(session);
        if (file) {
          this.held.add(session);
          return () => {
            this.held.delete(session);
            file();
          };
        }
      }
      if (performance.now() > deadline) throw new SessionLockTimeoutError({ session, timeoutMs });
      await Bun.sleep(wait);
      wait = Math.min(wait * 2, 25);
    }
  }

  private fileLock(session: string): (() => void) | undefined {
    if (!this.dir) return () => {};
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    return tryLockFile(join(this.dir, `${sessionToken(session)}.lock`));
  }
}
