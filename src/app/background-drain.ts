// Hands the embedding queue to a detached `memvoy reindex --pending` so a short-lived CLI writer exits at
// once and never loads LanceDB. Skipped while another drainer holds the lock (it re-checks the queue).
import { spawn } from "node:child_process";
import { setPriority } from "node:os";
import { join } from "node:path";
import { tryLockFile } from "../shared/file-lock.ts";
import type { HomePaths } from "../config/home.ts";

/** The command that runs this memvoy: the compiled binary itself, or bun with the entry script. */
export function selfCommand(): string[] {
  const compiled = Bun.main.startsWith("/$bunfs/") || /^[A-Z]:[\\/]~BUN[\\/]/.test(Bun.main);
  return compiled ? [process.execPath] : [process.execPath, Bun.main];
}

export function spawnDetachedDrain(paths: HomePaths, command: string[] = selfCommand()): boolean {
  const release = tryLockFile(join(paths.store, "embed.lock"));
  if (!release) return false;
  release();
  const [cmd, ...args] = command;
  const child = spawn(cmd!, [...args, "reindex", "--pending", "--quiet", "--home", paths.home], {
    // Not the caller's folder, which a script may remove as soon as add returns (the drainer would fail to start).
    cwd: paths.home,
    detached: true,
    stdio: "ignore",
    env: process.env,
  });
  child.on("error", () => {});
  // Background work yields the CPU to whatever the user runs next.
  if (child.pid !== undefined) {
    try {
      setPriority(child.pid, 10);
    } catch {
      // not permitted here: run at normal priority
    }
  }
  child.unref();
  return true;
}
