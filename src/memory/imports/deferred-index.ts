// A large import pass leaves the substring index to one build at its end: past BULK_IMPORT.after messages added,
// the index is deferred (deferTrigram) and the pass's end builds it in steps of BULK_IMPORT.step rows, so the
// import returns with the index whole (also when a pass killed earlier, or an upgrade, left it unfinished).
// Searches meanwhile scan instead (same matches, slower). A pass killed before its end leaves the build to the
// daemon, `memvoy doctor --migrate` or the next large pass.
import { buildTrigram, deferTrigram } from "../../storage/sqlite/substring-index-build.ts";
import { withWriteLock } from "../../storage/sqlite/write-lock.ts";
import type { MemoryContext } from "../memory-context.ts";

/** Messages a pass adds before the index is deferred (a small pass keeps writing it), and rows per build step. */
export const BULK_IMPORT = { after: 20_000, step: 10_000 };

export class DeferredIndex {
  #added = 0;
  #deferred = false;
  #tried = false;

  constructor(private readonly ctx: MemoryContext) {}

  /** Messages this pass has written: past the threshold, rows from now on are left to the build. */
  added(n: number): void {
    this.#added += n;
    if (this.#tried || this.#added < BULK_IMPORT.after) return;
    this.#tried = true;
    this.#deferred = withWriteLock(this.ctx.db, () => deferTrigram(this.ctx.db));
  }

  /** The pass has ended: build what it deferred (progress over all messages), and count the next pass afresh. */
  async endPass(progress?: (done: number, total: number) => void): Promise<void> {
    const deferred = this.#deferred;
    this.#added = 0;
    this.#deferred = this.#tried = false;
    if (deferred) await buildTrigram(this.ctx.db, { batch: BULK_IMPORT.step, progress });
  }
}
