// Nightly maintenance job: the MemoryApi's tier upkeep (FTS5 merge/optimize, LanceDB compaction and index).
import type { MemoryApi } from "../../app/memory-api.ts";
import type { CronJob } from "../scheduler.ts";

export function maintenanceJob(api: MemoryApi, pattern: string): CronJob {
  return {
    name: "maintenance",
    pattern,
    async run({ signal }) {
      const { archive: a, vectors: v } = await api.maintain({ signal });
      const fts = `fts: ${a.mergeSteps} merge step(s), longest write ${a.longestStepMs.toFixed(0)} ms${a.aborted ? ", stopped early" : ""}`;
      const vec = v.done ? `vectors: ${v.rows} rows compacted${v.indexed ? ", indexed" : ""} in ${v.ms} ms` : `vectors: ${v.note ?? "skipped"}`;
      const failed = !v.done && v.note?.startsWith("vector upkeep failed");
      return { detail: `${fts}; ${vec}`, errors: failed ? [v.note!] : [] };
    },
  };
}
