// Live capture: each tick imports what is new from the sources in [import] sources (each at its default
// location), so a new turn in a watched transcript is searchable after the next tick.
import type { HomeMemory } from "../../app/memory-api.ts";
import { importSource } from "../../import/run-import.ts";
import { sourceByName, type SourceName } from "../../import/source-registry.ts";
import { describeError } from "../../shared/describe-error.ts";
import type { CronJob, JobOutcome } from "../scheduler.ts";

export function importJob(
  api: HomeMemory,
  pattern: string,
  sources: readonly SourceName[],
  env: Record<string, string | undefined>,
): CronJob {
  return {
    name: "imports",
    pattern,
    async run({ log }): Promise<JobOutcome> {
      const parts: string[] = [];
      const errors: string[] = [];
      let added = 0;
      for (const name of sources) {
        try {
          const r = await importSource(api, sourceByName(api, name), { env });
          added += r.messages.added + r.messages.extended;
          if (r.messages.added > 0 || r.messages.removed > 0 || r.messages.extended > 0) {
            const more = [
              r.messages.extended ? `, ${r.messages.extended} extended` : "",
              r.messages.removed ? `, ${r.messages.removed} removed` : "",
            ].join("");
            parts.push(`${name}: ${r.messages.added} added${more} in ${r.sessions} session(s)`);
            log.info("import.pass", {
              source: name,
              files: r.files.read,
              sessions: r.sessions,
              added: r.messages.added,
              extended: r.messages.extended,
              removed: r.messages.removed,
              skipped: r.skippedCount,
              redacted: r.redacted,
            });
          }
          for (const f of r.failed) errors.push(`${name}: ${log.scrub(f.reason)}`);
        } catch (err) {
          errors.push(`${name}: ${log.scrub(describeError(err))}`);
        }
      }
      return { detail: parts.join("; ") || "nothing new", errors, worked: added > 0 || errors.length > 0 };
    },
  };
}
