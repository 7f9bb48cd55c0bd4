// In-process background drain: single-flight, re-runs when more work was scheduled while it ran.
import { drainQueue, type DrainReport } from "./drain.ts";
import type { SemanticIndex } from "./semantic-index.ts";

export class DrainScheduler {
  #running?: Promise<void>;
  #again = false;
  #abort = new AbortController();
  lastReport?: DrainReport;
  lastError?: unknown;

  constructor(private readonly index: SemanticIndex) {}

  /** Start a drain unless one is running (then it runs once more when done). Never throws, never awaits. */
  schedule(): void {
    if (this.#abort.signal.aborted) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#loop().finally(() => (this.#running = undefined));
  }

  /** Resolves when no drain is running (errors are kept in lastError, not thrown). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  /** Stop after the current batch; the rest stays queued for the next drainer. */
  stop(): void {
    this.#abort.abort();
  }

  async #loop(): Promise<void> {
    do {
      this.#again = false;
      try {
        this.lastReport = await drainQueue(this.index, { signal: this.#abort.signal });
        this.lastError = undefined;
      } catch (err) {
        if (!this.#abort.signal.aborted) this.lastError = err;
        return;
      }
    } while (this.#again && !this.#abort.signal.aborted);
  }
}
