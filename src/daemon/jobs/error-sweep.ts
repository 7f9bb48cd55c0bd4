// Hourly error-memory job: delete records whose TTL has expired, then embed records stored while the
// embedder was unreachable. Both touch LanceDB, so the whole run happens in the daemon's child.
import type { CronJob } from "../scheduler.ts";
import type { RunWork } from "../work-kinds.ts";

export function errorSweepJob(work: RunWork, pattern: string): CronJob {
  return {
    name: "error-sweep",
    pattern,
    async run({ log }) {
      const { sweep: r, pending: e, pendingError } = await work("error-sweep");
      const errors = r.notes.map((n) => log.scrub(n));
      if (pendingError !== undefined) errors.push(`embedding pending error records: ${log.scrub(pendingError)}`);
      const embedded = e && (e.embedded || e.pending) ? `, ${e.embedded} embedded (${e.pending} waiting)` : "";
      const detail = `${r.removed} expired record(s) deleted, ${r.vectorsRemoved} vector(s)${embedded}`;
      return { detail, errors };
    },
  };
}
