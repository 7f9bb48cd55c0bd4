// Hourly error-memory job: delete records whose TTL has expired, then embed records stored while the
// embedder was unreachable.
import type { MemoryApi } from "../../app/memory-api.ts";
import { errorMessage } from "../../shared/errors.ts";
import type { CronJob } from "../scheduler.ts";

export function errorSweepJob(api: MemoryApi, pattern: string): CronJob {
  return {
    name: "error-sweep",
    pattern,
    async run({ log }) {
      const r = await api.sweepErrors();
      const errors = r.notes.map((n) => log.scrub(n));
      let embedded = "";
      try {
        const e = await api.embedPendingErrors();
        if (e.embedded || e.pending) embedded = `, ${e.embedded} embedded (${e.pending} waiting)`;
      } catch (err) {
        errors.push(`embedding pending error records: ${log.scrub(errorMessage(err))}`);
      }
      const detail = `${r.removed} expired record(s) deleted, ${r.vectorsRemoved} vector(s)${embedded}`;
      return { detail, errors };
    },
  };
}
