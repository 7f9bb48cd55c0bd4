// Nightly maintenance job: the MemoryApi's tier upkeep (FTS5 merge/optimize in short steps).
import type { MemoryApi } from "../../app/memory-api.ts";
import type { CronJob } from "../scheduler.ts";

export function maintenanceJob(api: MemoryApi, pattern: string): CronJob {
  return {
    name: "maintenance",
    pattern,
    async run({ signal }) {
      const r = await api.maintain({ signal });
      const a = r.archive;
      const fts = `fts: ${a.mergeSteps} merge step(s), longest write ${a.longestStepMs.toFixed(0)} ms${a.aborted ? ", stopped early" : ""}`;
      return { detail: fts };
    },
  };
}
