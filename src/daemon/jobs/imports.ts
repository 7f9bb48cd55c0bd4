// Live capture: each tick imports what is new from the sources in [import] sources (each at its default
// location), so a new turn in a watched transcript is searchable after the next tick.
import type { ImportTarget } from "../../app/import-target.ts";
import { importSource } from "../../import/run-import.ts";
import { sourceByName, type SourceName } from "../../import/source-registry.ts";
import { describeError } from "../../shared/describe-error.ts";
import type { CronJob, JobOutcome } from "../scheduler.ts";

/** A turn at importing one source, or undefined when another process holds it; the function gives it back. */
export type ImportTurn = (source: SourceName, signal: AbortSignal) => Promise<(() => Promise<void>) | undefined>;

export function importJob(
  api: ImportTarget,
  pattern: string,
  sources: readonly SourceName[],
  env: Record<string, string | undefined>,
  turn?: ImportTurn,
): CronJob {
  return {
    name: "imports",
    pattern,
    async run({ log, signal }): Promise<JobOutcome> {
      const parts: string[] = [];
      const errors: string[] = [];
      let added = 0;
      const busy: string[] = [];
      for (const name of sources) {
        const release = turn ? await turn(name, signal) : async () => {};
        if (!release) {
          busy.push(name);
          continue;
        }
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
        } finally {
          await release();
        }
      }
      if (busy.length > 0) parts.push(`${busy.join(", ")}: another daemon is importing (next tick)`);
      return { detail: parts.join("; ") || "nothing new", errors, worked: added > 0 || errors.length > 0 };
    },
  };
}

/** The import writer's calls that write (each takes the home's writer lock). */
const WRITES = new Set<string | symbol>(["write", "setMeta", "removeMessage", "saveFileState", "endPass"]);

/**
 * `target` whose writes first wait, without blocking, until `free` says no other process holds the home's writer
 * lock (an import, a large add): a write waits for that lock synchronously, and meanwhile the daemon would
 * answer nothing, its HTTP API and /mcp included.
 */
export function waitingForWriters(target: ImportTarget, free: () => Promise<void>): ImportTarget {
  return {
    get imports() {
      return new Proxy(target.imports, {
        get(writer, key) {
          const value = Reflect.get(writer, key, writer);
          if (typeof value !== "function") return value;
          if (!WRITES.has(key)) return value.bind(writer);
          return async (...args: unknown[]) => {
            await free();
            return value.apply(writer, args);
          };
        },
      });
    },
    purgeDeleted: () => target.purgeDeleted(),
  };
}
