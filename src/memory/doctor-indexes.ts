// doctor's look at the full-text indexes: one that no longer holds a row for every message (or error record) it
// indexes, e.g. emptied by another program, makes search miss them without a word; --repair rebuilds it.
import { indexGaps, rebuildIndex, type IndexGap } from "../storage/sqlite/index-coverage.ts";
import { withWriteLock } from "../storage/sqlite/write-lock.ts";
import type { DoctorFinding } from "./doctor-finding.ts";
import type { MemoryContext } from "./memory-context.ts";

const WHAT: Record<IndexGap["index"], [string, string]> = {
  keyword: ["the keyword index", "message(s)"],
  substring: ["the substring index", "message(s)"],
  error: ["the error-memory index", "error record(s)"],
};

export function indexFindings(ctx: MemoryContext, repair: boolean): DoctorFinding[] {
  return indexGaps(ctx.db).map((g) => {
    const [name, rows] = WHAT[g.index];
    const f: DoctorFinding = {
      problem: g.missing
        ? `${name} is missing (a table of it was dropped by another program): searches and writes fail; doctor --repair makes it again`
        : `${name} holds ${g.held} entr${g.held === 1 ? "y" : "ies"} for ${g.expected} ${rows} (changed by another program): ${g.held < g.expected ? "search misses what it lacks" : "it keeps entries of rows no longer in the archive"}; doctor --repair rebuilds it`,
    };
    if (repair) {
      const n = withWriteLock(ctx.db, () => {
        const now = indexGaps(ctx.db).find((x) => x.index === g.index);
        if (now) rebuildIndex(ctx.db, g.index);
        return now?.expected ?? g.expected;
      });
      f.repaired = `rebuilt ${name} from the archive (${n} ${rows})`;
    }
    return f;
  });
}
