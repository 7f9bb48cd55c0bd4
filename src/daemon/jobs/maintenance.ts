// Nightly maintenance job: an unfinished index build finished and the FTS5 merge/optimize in this process, then
// LanceDB compaction and index in the child.
import type { MaintenanceApi } from "../../app/maintenance-api.ts";
import { describeError } from "../../shared/describe-error.ts";
import type { CronJob } from "../scheduler.ts";
import type { RunWork, WorkResult } from "../work-kinds.ts";

export function maintenanceJob(api: MaintenanceApi, work: RunWork, pattern: string): CronJob {
  return {
    name: "maintenance",
    pattern,
    async run({ signal, log }) {
      const { archive: a, indexUpgrade: u } = await api.maintain({ signal, vectors: false });
      const built = u ? `index build: ${u.copied} message(s), ${u.done ? "done" : "stopped"}; ` : "";
      const fts = `${built}fts: ${a.mergeSteps} merge step(s), longest write ${a.longestStepMs.toFixed(0)} ms${a.aborted ? ", stopped early" : ""}`;
      let v: WorkResult<"maintenance">;
      if (signal.aborted) v = { done: false, ms: 0, note: "stopped" };
      else {
        try {
          v = await work("maintenance");
        } catch (err) {
          v = {
            done: false,
            ms: 0,
            note: signal.aborted ? "stopped" : `vector upkeep failed: ${log.scrub(describeError(err))}`,
          };
        }
      }
      const vec = v.done
        ? `vectors: ${v.rows} rows compacted${v.indexed ? ", indexed" : ""} in ${v.ms} ms`
        : `vectors: ${v.note ?? "skipped"}`;
      const failed = !v.done && v.note?.startsWith("vector upkeep failed");
      return { detail: `${fts}; ${vec}`, errors: failed ? [v.note!] : [] };
    },
  };
}
