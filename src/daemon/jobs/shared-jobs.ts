// The daemon's jobs on a shared archive: the embedding drain (one drainer across hosts, by the archive's
// lease), the error-memory sweep (one host at a time, by a lease), live capture (one importer per source
// across hosts, by a lease) and the nightly upkeep of the shared vectors (under the drain's lease). The
// summary cron is summaries.ts's (the shared memory takes the lease per session). PostgreSQL's own upkeep
// is its autovacuum's.
import type { SharedHome } from "../../app/shared/shared-home.ts";
import { describeError } from "../../shared/describe-error.ts";
import type { SourceName } from "../../import/source-registry.ts";
import type { CronJob, LoopJob } from "../scheduler.ts";
import { backoffMs } from "./embed-drain.ts";
import { importJob } from "./imports.ts";

/** How long a tick waits for another daemon's import of the same source before leaving it to the next tick. */
const IMPORT_WAIT_MS = 30_000;

/** Resolves after `ms` or when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

export function sharedDrainJob(home: SharedHome, intervalMs: number): LoopJob {
  return {
    name: "embeddings",
    async loop({ signal, log }, report) {
      let failures = 0;
      while (!signal.aborted) {
        const started = new Date();
        try {
          const embedded = await home.drainEmbeddings();
          failures = 0;
          report(started, { detail: `${embedded} embedded`, worked: embedded > 0 });
        } catch (err) {
          failures++;
          report(started, { detail: "drain failed", errors: [log.scrub(describeError(err))] });
        }
        await pause(failures > 0 ? backoffMs(intervalMs, failures) : intervalMs, signal);
      }
    },
  };
}

export function sharedErrorSweepJob(home: SharedHome, pattern: string): CronJob {
  return {
    name: "error-sweep",
    pattern,
    async run({ log }) {
      const r = await home.errors.sweep();
      if (r.busy) return { detail: "another host is sweeping" };
      return { detail: `${r.removed} expired record(s) deleted`, errors: r.notes.map((n) => log.scrub(n)) };
    },
  };
}

/** The shared vectors' nightly upkeep: compaction, ANN index and old versions, by one host at a time (the drain lease). */
export function sharedMaintenanceJob(home: SharedHome, pattern: string): CronJob {
  return {
    name: "maintenance",
    pattern,
    async run({ signal, log }) {
      const v = await home.maintainVectors({ signal });
      if (v.note?.startsWith("vector upkeep failed"))
        return { detail: "vector upkeep failed", errors: [log.scrub(v.note)] };
      if (!v.done) return { detail: `vectors: ${v.note ?? "not done"}` };
      return { detail: `vectors: ${v.rows} rows${v.indexed ? ", ANN index built" : ""} in ${v.ms} ms` };
    },
  };
}

/** Live capture on the shared archive: each source imported under its lease, so two daemons never import it at once. */
export function sharedImportJob(
  home: SharedHome,
  pattern: string,
  sources: readonly SourceName[],
  env: Record<string, string | undefined>,
  waitMs = IMPORT_WAIT_MS,
): CronJob {
  return importJob(home, pattern, sources, env, (source, signal) => home.importTurn(source, waitMs, signal));
}
