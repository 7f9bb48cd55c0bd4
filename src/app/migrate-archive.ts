// Copy a home's SQLite archive into the configured PostgreSQL archive: messages in batches behind a resume
// cursor kept in the target (a killed copy resumes where it stopped), then the small tables and each
// session's summary and cursor, then the vectors (when a vector store is configured), then a count check.
// One run per home at a time; the vector copy holds the shared vectors' write lease (migrate-turns.ts).
import { archiveCursor } from "./shared/shared-cursor.ts";
import { existsSync, readFileSync } from "node:fs";
import { homePaths, resolveHome, type HomePaths } from "../config/home.ts";
import { cursorKey } from "./migrate-key.ts";
import { loadConfig } from "../config/load.ts";
import type { Config } from "../config/schema.ts";
import { namedError } from "../shared/errors.ts";
import { faultPoint } from "../shared/fault-point.ts";
import { withoutNul } from "../shared/message.ts";
import { nowNs } from "../shared/time.ts";
import type { ArchiveCounts, ArchivedMessage, ArchivePort } from "../storage/ports/archive-port.ts";
import type { SharedArchivePort } from "../storage/ports/shared-archive-port.ts";
import { COPY_ORDER, type CopyRow, type CopyTableName } from "../storage/ports/copy-tables.ts";
import { refuseSessionSymlinks } from "../storage/history/no-symlink.ts";
import { openSqliteArchive } from "../storage/sqlite/sqlite-archive.ts";
import { migrateVectors } from "../memory/embedding/migrate-vectors.ts";
import { applyHomeRemovals, dropHomeErrors, dropHomeSummaries, dropHomeUsage } from "./migrate-removals.ts";
import { aloneOnTarget, vectorCopyError, withVectorLease } from "./migrate-turns.ts";
import { homeRowsIn, hostSummaries, makeRoomForHome, topKey } from "./migrate-host-rows.ts";

export const NoArchiveUrlError = namedError<{ home: string }>(
  "NoArchiveUrlError",
  "input",
  () =>
    'no archive URL is configured: set [archive] url = "postgres://user@host/db" in config.toml or MEMVOY_ARCHIVE_URL (the password comes from MEMVOY_ARCHIVE_URL or PGPASSWORD)',
);

export const NoSourceArchiveError = namedError<{ path: string }>(
  "NoSourceArchiveError",
  "input",
  (d) => `nothing to migrate: no archive at ${d.path}`,
);

export const TargetNotEmptyError = namedError<{ messages: number }>(
  "TargetNotEmptyError",
  "input",
  (d) =>
    `the target archive already holds ${d.messages} messages that were not copied from this home: migrate into an empty database`,
);

export const TargetWrittenError = namedError<{ change: string; home: string }>(
  "TargetWrittenError",
  "input",
  (d) =>
    `the target archive was written since this home's last run, by memvoy in shared mode (${d.change}): this home can no longer be copied into it. Bring what it added since with memvoy export --all here and memvoy import jsonl on a host of the shared archive`,
);

export const CopyMismatchError = namedError<{ what: string; source: number; target: number }>(
  "CopyMismatchError",
  "runtime",
  (d) => `the copy does not match: ${d.what} ${d.source} in the home, ${d.target} in the target archive`,
);

/**
 * The vectors' part of the copy: moves the home's local vectors into the configured vector store. Supplied
 * by the vector store's side; absent while the vectors stay local.
 */
export type VectorCopy = (ctx: {
  home: HomePaths;
  config: Config;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number, skipped: number) => void;
}) => Promise<{ copied: number }>;

export interface MigrateArchiveOptions {
  home?: string;
  env?: Record<string, string | undefined>;
  /** Messages per transaction (default 2000). */
  batch?: number;
  signal?: AbortSignal;
  /** `resuming`: an earlier run was stopped before it finished (else it finished, and this one copies what changed). */
  onStart?: (total: number, resumedAt: number, resuming: boolean) => void;
  onProgress?: (copied: number, total: number) => void;
  /** Progress of the vector copy, table by table: rows of the current table done (`skipped` of them found in the target) and in all. */
  onVectorProgress?: (done: number, total: number, skipped: number) => void;
  /** The vector copy, when the vector store is shared (see VectorCopy). */
  vectors?: VectorCopy;
  /** Open the target archive (default: the PostgreSQL archive at the URL). */
  openTarget?: (url: string) => Promise<SharedArchivePort>;
}

export interface MigrateArchiveResult {
  /** Messages copied by this run, and in the archive in all. */
  copied: number;
  total: number;
  resumed: boolean;
  /** False when interrupted (run again to resume). */
  done: boolean;
  counts?: ArchiveCounts;
  summaries: number;
  vectors: { copied: number } | "local";
  /** Messages copied with U+FFFD for the NUL characters they held (PostgreSQL text cannot hold one). */
  nulReplaced: number;
}

/** The configured archive URL, or NoArchiveUrlError (exit 2) when there is none. */
export function archiveUrl(home?: string, env: Record<string, string | undefined> = process.env): string {
  const paths = homePaths(resolveHome(home, env));
  const url = loadConfig(paths.config, env).archive.url.trim();
  if (!url) throw new NoArchiveUrlError({ home: paths.home });
  return url;
}

async function openPg(url: string): Promise<SharedArchivePort> {
  const { openPgSharedArchive } = await import("../storage/postgres/pg-shared-archive.ts");
  return openPgSharedArchive(url, { max: 1 }); // the copy runs one query at a time
}

export { cursorKey } from "./migrate-key.ts";

export async function migrateArchive(o: MigrateArchiveOptions): Promise<MigrateArchiveResult> {
  const env = o.env ?? process.env;
  const paths = homePaths(resolveHome(o.home, env));
  const config = loadConfig(paths.config, env);
  const url = archiveUrl(o.home, env);
  if (!existsSync(paths.db)) throw new NoSourceArchiveError({ path: paths.db });
  const source = openSqliteArchive(paths.db);
  let target: SharedArchivePort | undefined;
  try {
    const into = (target = await (o.openTarget ?? openPg)(url));
    const key = cursorKey(paths.db);
    return await aloneOnTarget(into, key, paths.home, () => copy(exportsOnce(source), into, key, paths, config, o));
  } finally {
    await source.close();
    await target?.close();
  }
}

/** The resume cursor kept in the target; `copiedAt`: when a run of the home last finished (absent before one did). */
interface SavedCursor {
  cursor: string;
  copiedAt?: string;
  /** The highest error-record seq the home held when that run finished: records up to it came from the home. */
  errorsSeq?: string;
  /** The same for the LLM usage rows' ids. */
  usageId?: string;
  done?: boolean;
}

async function copy(
  source: ArchivePort,
  target: SharedArchivePort,
  key: string,
  paths: HomePaths,
  config: Config,
  o: MigrateArchiveOptions,
): Promise<MigrateArchiveResult> {
  const saved = await target.getMeta(key);
  const last = saved ? (JSON.parse(saved) as SavedCursor) : undefined;
  let cursor = last ? BigInt(last.cursor) : 0n;
  const save = (extra: Partial<SavedCursor> = {}) =>
    target.setMeta(key, JSON.stringify({ ...last, done: undefined, cursor: String(cursor), ...extra }));
  if (!saved) {
    const present = await target.countMessages();
    if (present > 0) throw new TargetNotEmptyError({ messages: present });
  } else {
    await refuseForeignWrites(source, target, cursor, paths.home);
    // What the home removed since: out of the target first (no removed text stays there), then the copy.
    await applyHomeRemovals(source, target, nowNs());
    // The target's usage and error rows as these removals leave them, for the room the home's rows need next.
    const present: Partial<Record<"llm_usage" | "error_records", CopyRow[]>> = {};
    if (last?.copiedAt) {
      await dropHomeSummaries(source, target, paths, BigInt(last.copiedAt));
      const upTo = last.usageId ? BigInt(last.usageId) : undefined;
      present.llm_usage = await dropHomeUsage(source, target, upTo, BigInt(last.copiedAt));
    }
    if (last?.errorsSeq) present.error_records = await dropHomeErrors(source, target, BigInt(last.errorsSeq), nowNs());
    const floors = { error_records: BigInt(last?.errorsSeq ?? 0), llm_usage: BigInt(last?.usageId ?? 0) };
    await makeRoomForHome(source, target, floors, nowNs(), present);
  }
  const total = await source.countMessages();
  const copiedBefore = saved ? await target.countMessages() : 0;
  o.onStart?.(total, copiedBefore, saved !== undefined && last?.done !== true);
  let copied = 0;
  let nulReplaced = 0;
  const storable = (m: ArchivedMessage): ArchivedMessage => {
    const out = withoutNul(m);
    if (out !== m) nulReplaced++;
    return out;
  };
  const batch = Math.max(1, o.batch ?? 2000);
  const result = (done: boolean, extra: Partial<MigrateArchiveResult> = {}): MigrateArchiveResult => ({
    copied,
    total,
    resumed: saved !== undefined,
    done,
    summaries: 0,
    vectors: "local",
    nulReplaced,
    ...extra,
  });
  for (;;) {
    if (o.signal?.aborted) return result(false);
    const rows = await source.exportMessages(cursor, batch);
    if (rows.length === 0) break;
    copied += await target.importMessages(rows.map(storable), nowNs());
    cursor = rows[rows.length - 1]!.seq;
    await save();
    faultPoint("after-copy-batch");
    o.onProgress?.(Math.min(total, copiedBefore + copied), total);
  }
  // A summary a host wrote there since, on a session the home has not summarized since, is the newer one.
  const hosts = last?.copiedAt ? await hostSummaries(source, target, BigInt(last.copiedAt)) : new Set<string>();
  for (const table of COPY_ORDER) {
    const rows = await source.exportRows(table);
    await target.importRows(
      table,
      table === "summary_runs" ? rows.filter((r) => !hosts.has(String(r.session_id))) : rows,
    );
  }
  const summaries = await copySummaries(source, target, paths, hosts);
  const copyVectors: VectorCopy | undefined =
    o.vectors ?? (config.vectors.uri ? (c) => migrateVectors({ ...c, env: o.env }) : undefined);
  const vectors = copyVectors
    ? await withVectorLease(
        target,
        key,
        () =>
          copyVectors({ home: paths, config, signal: o.signal, onProgress: o.onVectorProgress }).catch((err) => {
            throw o.signal?.aborted ? err : vectorCopyError(err);
          }),
        o.signal,
      )
    : "local";
  const counts = await verify(source, target);
  if (counts.summaries < summaries)
    throw new CopyMismatchError({ what: "summaries", source: summaries, target: counts.summaries });
  const [errorsSeq, usageId] = await Promise.all(
    (["error_records", "llm_usage"] as const).map(async (t) => String(topKey(t, await source.exportRows(t)))),
  );
  await save({ copiedAt: String(nowNs()), errorsSeq, usageId, done: true });
  return result(true, { counts, summaries, vectors });
}

/**
 * Messages past the resume cursor are either this home's (a batch copied before a kill saved the cursor) or written
 * in the target by another memvoy since: their seqs would take the places of this home's next messages, which a
 * copy then skips. Tombstones the home does not hold are removals made there: a copy would bring back the rows of
 * the sessions removed. Either is refused before anything is written.
 */
async function refuseForeignWrites(source: ArchivePort, target: ArchivePort, cursor: bigint, home: string) {
  for (let after = cursor; ; ) {
    const rows = await target.exportMessages(after, 1000);
    if (rows.length === 0) break;
    const ours = new Map((await source.messagesById(rows.map((m) => m.id))).map((m) => [m.id, m.seq]));
    const other = rows.find((m) => ours.get(m.id) !== m.seq);
    if (other)
      throw new TargetWrittenError({
        change: `messages this home did not copy, the first in session ${JSON.stringify(other.session)}`,
        home,
      });
    after = rows[rows.length - 1]!.seq;
  }
  const known = new Set((await source.exportRows("tombstones")).map((r) => String(r.hash)));
  const removed = (await target.exportRows("tombstones")).filter((r) => !known.has(String(r.hash))).length;
  if (removed > 0) throw new TargetWrittenError({ change: `${removed} removal(s) this home did not make`, home });
}

/** Sessions whose summaries are read from the target at once. */
const SUMMARY_BATCH = 500;

/** Each session's summary.json and .summary_cursor become the archive's summary state (the files stay). */
async function copySummaries(
  source: ArchivePort,
  target: SharedArchivePort,
  paths: HomePaths,
  hosts: ReadonlySet<string>,
): Promise<number> {
  const summarized = (await source.listSessions()).map((s) => s.id).filter((id) => existsSync(paths.summary(id)));
  // The target's summaries a batch of sessions at a time: a few reads, not one a session.
  for (let at = 0; at < summarized.length; at += SUMMARY_BATCH) {
    const batch = summarized.slice(at, at + SUMMARY_BATCH);
    const there = await target.summaryTexts(batch.filter((id) => !hosts.has(id)));
    for (const id of batch) {
      if (hosts.has(id)) continue;
      refuseSessionSymlinks(paths.session(id));
      const summary = readFileSync(paths.summary(id), "utf8");
      // The cursor as the archive keeps it: the instant, in UTC (the file holds it in this host's local time).
      const cursor = archiveCursor(existsSync(paths.cursor(id)) ? readFileSync(paths.cursor(id), "utf8") : "");
      const current = there.get(id);
      if (current?.summary !== summary || current.cursor !== cursor)
        await target.putSummaryState(id, { summary, cursor }, nowNs());
    }
  }
  return summarized.length;
}

/** The counts agree; of error records, usage rows and summary runs, every one of the home's is there (hosts add theirs). */
async function verify(source: ArchivePort, target: ArchivePort): Promise<ArchiveCounts> {
  const [a, b] = await Promise.all([source.counts(), target.counts()]);
  for (const what of ["messages", "sessions"] as const) {
    if (a[what] !== b[what]) throw new CopyMismatchError({ what, source: a[what], target: b[what] });
  }
  for (const [what, table] of [
    ["errors", "error_records"],
    ["usage", "llm_usage"],
  ] as const) {
    const { home, found } = await homeRowsIn(source, target, table);
    if (home !== found) throw new CopyMismatchError({ what, source: home, target: found });
  }
  const there = new Set((await target.exportRows("summary_runs")).map((r) => String(r.session_id)));
  const found = (await source.exportRows("summary_runs")).filter((r) => there.has(String(r.session_id))).length;
  if (found !== a.summaryRuns)
    throw new CopyMismatchError({ what: "summaryRuns", source: a.summaryRuns, target: found });
  return b;
}

/**
 * The home's archive with each table exported once per run: the copy, the removals, the room for the home's rows
 * and the check all read the same tables (the home's archive is only read meanwhile).
 */
function exportsOnce(source: ArchivePort): ArchivePort {
  const exported = new Map<CopyTableName, Promise<CopyRow[]>>();
  const exportRows = (table: CopyTableName) => {
    let rows = exported.get(table);
    if (!rows) exported.set(table, (rows = source.exportRows(table)));
    return rows;
  };
  return new Proxy(source, {
    get(target, key) {
      if (key === "exportRows") return exportRows;
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
