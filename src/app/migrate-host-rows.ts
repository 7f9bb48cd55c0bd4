// migrate-archive run again after hosts in shared mode recorded errors and LLM usage in the target: the home's
// rows keep their keys there (later runs tell the home's rows by them), so hosts' rows in the way move aside.
import type { ArchivePort } from "../storage/ports/archive-port.ts";
import { COPY_TABLES, type CopyRow } from "../storage/ports/copy-tables.ts";
import type { SharedArchivePort } from "../storage/ports/shared-archive-port.ts";

export type HostRowTable = "error_records" | "llm_usage";

/** What tells the home's row from another with the same key: an error record by its id, a usage row by its time. */
export const rowIdentity: Record<HostRowTable, (r: CopyRow) => string> = {
  error_records: (r) => `${r.seq}:${r.id}`,
  llm_usage: (r) => `${r.id}:${r.at}`,
};

const keyOf = (table: HostRowTable, r: CopyRow) => BigInt(r[COPY_TABLES[table].key]!);

/** The highest key of the home's rows (0 with none). */
export function topKey(table: HostRowTable, rows: readonly CopyRow[]): bigint {
  let top = 0n;
  for (const r of rows) if (keyOf(table, r) > top) top = keyOf(table, r);
  return top;
}

/**
 * Before the copy: hosts' rows whose keys fall in the home's range (above `floors`, the home's highest at its last
 * finished run, up to its highest now) move above every key, so the copy upserts none of them away and a later
 * run counts only the home's rows up to the home's highest. A host's record of an error the home also holds (the
 * same tool and signature) gives way to the home's: the archive keeps one record per error.
 */
export async function makeRoomForHome(
  source: ArchivePort,
  target: SharedArchivePort,
  floors: Record<HostRowTable, bigint>,
  now: bigint,
  /** The target's rows of each table as they are now, when the caller has them. */
  present: Partial<Record<HostRowTable, readonly CopyRow[]>> = {},
): Promise<void> {
  for (const table of ["error_records", "llm_usage"] as const) {
    const home = await source.exportRows(table);
    const held = new Set(home.map(rowIdentity[table]));
    const rows = present[table] ?? (await target.exportRows(table));
    let theirs = rows.filter((r) => !held.has(rowIdentity[table](r)));
    if (table === "error_records") {
      const signature = (r: CopyRow) => `${String(r.tool).toLowerCase()}\n${r.signature}`;
      const same = new Set(home.map(signature));
      const gone = theirs.filter((r) => same.has(signature(r)));
      await target.deleteErrors(
        gone.map((r) => ({ seq: BigInt(r.seq!), id: String(r.id) })),
        now,
      );
      theirs = theirs.filter((r) => !same.has(signature(r)));
    }
    const top = topKey(table, home);
    const inTheWay = theirs.map((r) => keyOf(table, r)).filter((k) => k > floors[table] && k <= top);
    await target.renumberRows(table, inTheWay, top);
  }
}

/** The home's rows the target holds, as they are in the home (hosts' rows there are not counted). */
export async function homeRowsIn(source: ArchivePort, target: ArchivePort, table: HostRowTable) {
  const home = new Set((await source.exportRows(table)).map(rowIdentity[table]));
  const found = (await target.exportRows(table)).filter((r) => home.has(rowIdentity[table](r))).length;
  return { home: home.size, found };
}

/**
 * The sessions whose summary a host wrote in the target since the home's last finished run (`copiedAt`), where the
 * home has not run one since: the target's summary and run are newer than the home's, which the copy leaves out.
 * Two reads, whatever the number of sessions.
 */
export async function hostSummaries(
  source: ArchivePort,
  target: SharedArchivePort,
  copiedAt: bigint,
): Promise<Set<string>> {
  const own = await homeRunStarts(source);
  const out = new Set<string>();
  for (const [session, st] of await target.summaryStatuses()) {
    const hostWrote = (st.summaryUpdatedAt ?? 0n) > copiedAt || (st.run?.startedAt ?? 0n) > copiedAt;
    if (hostWrote && (own.get(session) ?? 0n) <= copiedAt) out.add(session);
  }
  return out;
}

/** When the home's last summary run of each session started, in one read. */
export async function homeRunStarts(source: ArchivePort): Promise<Map<string, bigint>> {
  const runs = await source.exportRows("summary_runs");
  return new Map(runs.map((r) => [String(r.session_id), BigInt(r.started_at ?? 0)]));
}
