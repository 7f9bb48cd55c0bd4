// The embedding queue drain: continuous and batched. It sleeps until the archive changes (or a fallback
// timer fires), and backs off exponentially while the embedder fails. The queue is looked at here (SQLite);
// the drain itself runs in the daemon's child.
import { watch, type FSWatcher } from "node:fs";
import type { MaintenanceApi } from "../../app/maintenance-api.ts";
import { describeError } from "../../shared/describe-error.ts";
import type { LoopContext, LoopJob } from "../scheduler.ts";
import type { RunWork, WorkResult } from "../work-kinds.ts";

const MAX_BACKOFF_MS = 5 * 60_000;
/** A drain still going after this long is shown as running. */
const RUNNING_SHOW_MS = 1_000;
/** Writes come in bursts: wait this long after a change before draining. */
const SETTLE_AFTER_CHANGE_MS = 200;

export function backoffMs(intervalMs: number, failures: number): number {
  return Math.min(MAX_BACKOFF_MS, intervalMs * 2 ** Math.min(failures, 16));
}

/** Resolves after `ms`, on a change signal (unless in back-off), or when `signal` aborts. */
class Waker {
  private wake?: () => void;
  private changed = false;
  private watcher?: FSWatcher;

  constructor(dir: string) {
    try {
      // SQLite writes touch history.db-wal: a cheap signal that new messages may be queued.
      this.watcher = watch(dir, { persistent: false }, (_event, name) => {
        if (name && String(name).startsWith("history.db")) {
          this.changed = true;
          this.wake?.();
        }
      });
      this.watcher.on("error", () => this.close());
    } catch {
      this.watcher = undefined;
    }
  }

  async wait(ms: number, signal: AbortSignal, onChange: boolean): Promise<void> {
    if (signal.aborted) return;
    if (onChange && this.changed) ms = Math.min(ms, SETTLE_AFTER_CHANGE_MS);
    this.changed = false;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        this.wake = undefined;
        resolve();
      };
      let timer = setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
      if (onChange) {
        this.wake = () => {
          clearTimeout(timer);
          this.wake = undefined;
          timer = setTimeout(done, SETTLE_AFTER_CHANGE_MS);
        };
      }
    });
  }

  close(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }
}

/**
 * When the failed messages are tried again: once they are due (the queue defers each by its own back-off), at the
 * loop's back-off at the soonest and MAX_BACKOFF_MS at the latest.
 */
function retryWait(api: MaintenanceApi, intervalMs: number, failures: number): number {
  const wait = backoffMs(intervalMs, failures);
  const due = api.embeddingBacklog().nextTryInMs;
  return due === undefined ? wait : Math.min(MAX_BACKOFF_MS, Math.max(wait, due));
}

/**
 * Drain in the child when there is work due now; otherwise what a drain would report, without spawning one. A drain
 * that lasts (a large backlog, a slow or hung embedder) shows as running in `daemon status`; a quick one writes nothing.
 */
async function drain(
  api: MaintenanceApi,
  work: RunWork,
  progress: LoopContext["progress"],
): Promise<WorkResult<"embeddings">> {
  const b = api.embeddingBacklog();
  if (b.due === 0) return { busy: false, embedded: 0, deletesApplied: 0, failed: 0, remaining: b.queued };
  let shown = false;
  const show = setTimeout(() => {
    shown = true;
    progress(`embedding ${b.due} queued message(s)`);
  }, RUNNING_SHOW_MS);
  try {
    return await work("embeddings");
  } finally {
    clearTimeout(show);
    if (shown) progress(null);
  }
}

/** The messages the embedder refused on their own, with its latest refusal (undefined when none). */
function refusedError(refused: WorkResult<"embeddings">["refused"]): string | undefined {
  const last = refused?.at(-1);
  if (!last) return undefined;
  const n = refused!.length;
  return `the embedder refused ${n} message${n === 1 ? "" : "s"} (${last.error}); ${n === 1 ? "it stays" : "they stay"} without a vector`;
}

/** `storeDir`: the home's .store folder, where writers touch the wake file. */
export function embedDrainJob(api: MaintenanceApi, work: RunWork, intervalMs: number, storeDir: string): LoopJob {
  return {
    name: "embeddings",
    async loop({ signal, log, progress }, report) {
      const waker = new Waker(storeDir);
      let failures = 0;
      try {
        while (!signal.aborted) {
          const started = new Date();
          try {
            const r = await drain(api, work, progress);
            if (r.error !== undefined || r.failed > 0) {
              failures++;
              const wait = backoffMs(intervalMs, failures);
              const next = Math.ceil(retryWait(api, intervalMs, failures) / 1000);
              const detail = `${r.embedded} embedded, ${r.failed} failed, ${r.remaining} queued; next try in ${next} s`;
              report(started, {
                detail,
                errors: [r.error ?? refusedError(r.refused) ?? `${r.failed} message(s) failed to embed`],
              });
              await waker.wait(wait, signal, false);
              continue;
            }
            const worked = r.embedded > 0 || r.deletesApplied > 0;
            if (failures > 0 && (r.embedded > 0 || r.remaining === 0)) {
              log.info("embed.recovered", { after_failures: failures });
              failures = 0;
            }
            // A look that finds the failed messages still waiting for their next try is no run: the failure stays
            // the job's last result (daemon status would else say "ok" while the embedder is down).
            if (failures === 0 || worked || r.busy)
              report(started, {
                worked,
                detail: r.busy
                  ? "another process is draining"
                  : `${r.embedded} embedded, ${r.deletesApplied} deletion(s), ${r.remaining} queued`,
              });
            if (worked && r.remaining > 0) continue;
            if (failures > 0) {
              // Deferred messages are not due yet: sleep until they are (or a write comes) rather than polling.
              await waker.wait(retryWait(api, intervalMs, failures), signal, true);
              continue;
            }
          } catch (err) {
            if (signal.aborted) break;
            failures++;
            report(started, { errors: [describeError(err)] });
            await waker.wait(backoffMs(intervalMs, failures), signal, false);
            continue;
          }
          await waker.wait(intervalMs, signal, true);
        }
      } finally {
        waker.close();
      }
    },
  };
}
