// migrate-archive run again: what the home removed since an earlier run (rm, reset, rm-message, a dropped
// summary, error records removed or expired) is removed from the target before anything is copied, so no removed text stays there and the
// counts can agree. Only what the home itself removed goes: its tombstones name the messages.
import { existsSync } from "node:fs";
import type { HomePaths } from "../config/home.ts";
import type { ArchivePort } from "../storage/ports/archive-port.ts";
import type { SharedArchivePort } from "../storage/ports/shared-archive-port.ts";
import type { CopyRow } from "../storage/ports/copy-tables.ts";
import { homeRunStarts, rowIdentity } from "./migrate-host-rows.ts";

const CHUNK = 10_000;

/** Remove from `target` the messages and sessions the home removed; returns how many messages went. */
export async function applyHomeRemovals(source: ArchivePort, target: SharedArchivePort, now: bigint): Promise<number> {
  const tombstones = await source.exportRows("tombstones");
  const hashes = tombstones.map((r) => String(r.hash));
  const fresh: string[] = [];
  for (let at = 0; at < hashes.length; at += CHUNK) {
    const chunk = hashes.slice(at, at + CHUNK);
    const known = await target.tombstoned(chunk);
    for (const h of chunk) if (!known.has(h)) fresh.push(h);
  }
  let removed = 0;
  const found = await target.messagesWithIdHashes(fresh);
  for (const [session, gone] of Map.groupBy(found, (m) => m.session)) {
    // A reset or rm: the session's whole tier goes as a shared reset takes it (its start and marks too).
    if (gone.length === (await target.countMessages(session)))
      removed += await target.removeSessionMessages(session, now);
    else for (const m of gone) if (await target.removeMessage(m.id, now)) removed++;
  }
  // Written after the removals: a run killed before them finds the same tombstones new again.
  await target.importRows("tombstones", tombstones);
  const kept = new Set((await source.listSessions()).map((s) => s.id));
  for (const s of await target.listSessions())
    if (!kept.has(s.id) && (await target.countMessages(s.id)) === 0) await target.removeSession(s.id);
  return removed;
}

/**
 * The summaries the home dropped (reset --all, rm-message --drop-summary) since the run of `copiedAt`: the
 * target's summary and last run go when the home has neither and the target's were written by that run or
 * before (a summary a host wrote there since is left alone).
 */
export async function dropHomeSummaries(
  source: ArchivePort,
  target: SharedArchivePort,
  paths: HomePaths,
  copiedAt: bigint,
): Promise<void> {
  const [statuses, own, sessions] = await Promise.all([
    target.summaryStatuses(),
    homeRunStarts(source),
    source.listSessions(),
  ]);
  const home = new Set(sessions.map((s) => s.id));
  for (const [session, st] of statuses) {
    if (!home.has(session) || existsSync(paths.summary(session))) continue;
    if (st.summaryUpdatedAt === undefined && (!st.run || own.has(session))) continue;
    // The home's own last run, if any, is copied again after this.
    if ((st.summaryUpdatedAt ?? 0n) <= copiedAt && (st.run?.startedAt ?? 0n) <= copiedAt)
      await target.forgetSummary(session);
  }
}

/**
 * The token usage rows the home removed since its last finished run (an older memvoy's rm deleted a session's rows;
 * rm now keeps them under no session, which the copy then writes over the target's): those of the target up to `upTo` (the highest id the home
 * held then; hosts' rows are above it) that the home no longer holds. A run of an older memvoy saved no `upTo`:
 * then the rows from before that run (`copiedAt`) are the home's.
 */
export async function dropHomeUsage(
  source: ArchivePort,
  target: SharedArchivePort,
  upTo: bigint | undefined,
  copiedAt: bigint,
): Promise<CopyRow[]> {
  const held = new Set((await source.exportRows("llm_usage")).map(rowIdentity.llm_usage));
  const rows = await target.exportRows("llm_usage");
  const gone = new Set(
    rows
      .filter((r) => (upTo !== undefined ? BigInt(r.id!) <= upTo : BigInt(r.at!) <= copiedAt))
      .filter((r) => !held.has(rowIdentity.llm_usage(r))),
  );
  await target.deleteUsage([...gone].map((r) => BigInt(r.id!)));
  return rows.filter((r) => !gone.has(r));
}

/**
 * The error records the home removed (errors rm) or swept (expired) since: those of the target up to `upTo` (the
 * highest the home held at its last finished run; later ones were recorded by hosts) that the home no longer holds.
 */
export async function dropHomeErrors(
  source: ArchivePort,
  target: ArchivePort,
  upTo: bigint,
  now: bigint,
): Promise<CopyRow[]> {
  const held = new Set((await source.exportRows("error_records")).map(rowIdentity.error_records));
  const rows = await target.exportRows("error_records");
  const gone = new Set(rows.filter((r) => BigInt(r.seq!) <= upTo && !held.has(rowIdentity.error_records(r))));
  await target.deleteErrors(
    [...gone].map((r) => ({ seq: BigInt(r.seq!), id: String(r.id) })),
    now,
  );
  return rows.filter((r) => !gone.has(r));
}
