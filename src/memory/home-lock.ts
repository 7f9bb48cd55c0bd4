// The home's writer lock (.store/write.lock): held around every change to a history.json and its archive rows.
import { join } from "node:path";
import { ensureDir } from "../shared/atomic-write.ts";
import { withFileLock } from "../shared/file-lock.ts";
import type { MemoryContext } from "./memory-context.ts";

export function withHomeLock<T>(ctx: MemoryContext, fn: () => T): T {
  ensureDir(ctx.paths.store);
  return withFileLock(join(ctx.paths.store, "write.lock"), fn);
}
