// A background job of short write transactions (the substring index's build and split): one step per
// transaction, a pause between steps so other writers get the lock, until a step says the job is done or the
// signal aborts. Each step moves the job's saved cursor in its own transaction, so a killed job resumes.
import type { Database } from "bun:sqlite";

export interface SteppedJobOptions {
  signal?: AbortSignal;
  /** Rows a step handles at most: each step is a write a concurrent `add` may wait for. */
  batch?: number;
  /** Pause between transactions so other writers get the lock. */
  pauseMs?: number;
  progress?: (done: number, total: number) => void;
  /**
   * Resolves once no other process holds the home's writer lock: awaited before each step, so that a long-lived
   * process (the daemon) waits for an import without blocking, instead of in SQLite's busy wait.
   */
  waitForWriters?: () => Promise<void>;
}

export interface SteppedJobResult {
  done: boolean;
  /** Rows the steps of this run handled. */
  copied: number;
  longestStepMs: number;
  ms: number;
}

/** What one step did: whether the job is done now, the rows it handled, and the progress to report. */
export interface Step {
  finished: boolean;
  rows: number;
  progress: [done: number, total: number];
}

/** Run `step` in write transactions until it finishes the job or `signal` aborts. */
export async function runSteps(
  db: Database,
  options: Pick<SteppedJobOptions, "signal" | "pauseMs" | "progress" | "waitForWriters">,
  step: () => Step,
): Promise<SteppedJobResult> {
  const started = performance.now();
  let copied = 0;
  let longest = 0;
  const result = (done: boolean) => ({ done, copied, longestStepMs: longest, ms: performance.now() - started });
  for (;;) {
    if (options.signal?.aborted) return result(false);
    await options.waitForWriters?.();
    if (options.signal?.aborted) return result(false);
    const t = performance.now();
    const s = db.transaction(step).immediate();
    longest = Math.max(longest, performance.now() - t);
    copied += s.rows;
    options.progress?.(...s.progress);
    if (s.finished) return result(true);
    await Bun.sleep(options.pauseMs ?? 2);
  }
}

/** The result of a run that did nothing (the job was done, or cannot start yet). */
export const noSteps = (done: boolean): SteppedJobResult => ({ done, copied: 0, longestStepMs: 0, ms: 0 });
