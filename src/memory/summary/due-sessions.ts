// Which sessions the summary cron should run: not `temp-`, with messages, and either no summary yet (unless
// its last run found only questions waiting for a reply and no message was written since), a history.json
// newer than summary.json (the mtime gate), an unreadable summary.json, or a last run that did not finish.
import { isTempSession } from "../../shared/session-id.ts";
import { mtimeNs } from "../../storage/history/file-probe.ts";
import { historyStamp } from "../../storage/history/history-file.ts";
import { historyStampOf } from "../../storage/sqlite/history-stamps-repo.ts";
import { listSessionRows, type SessionRow } from "../../storage/sqlite/sessions-repo.ts";
import { getSessionMeta, listSessionMeta } from "../../storage/sqlite/session-meta-repo.ts";
import { getSummaryRun, type SummaryRunRow } from "../../storage/sqlite/summary-runs-repo.ts";
import type { MemoryContext } from "../memory-context.ts";
import { sessionDirs } from "../session-admin.ts";
import { readSummary } from "./summary-store.ts";

/** How far past the clock a file's time must be to count as dated ahead of it. */
const AHEAD_MS = 2_000;

const UNFINISHED = new Set(["running", "failed", "partial", "aborted"]);
/** Outcomes of a finished run that saved no summary because there was nothing to summarize yet. */
const NOTHING_YET = new Set(["waiting", "up-to-date"]);

export function isDue(
  ctx: MemoryContext,
  session: string,
  row?: Pick<SessionRow, "messageCount" | "updatedAt">,
): boolean {
  if (isTempSession(session)) return false;
  const history = mtimeNs(ctx.paths.history(session));
  if ((row?.messageCount ?? 0) === 0 && history === undefined) return false;
  const last = getSummaryRun(ctx.db, session);
  if (last !== undefined && UNFINISHED.has(last.outcome)) return true;
  const summary = mtimeNs(ctx.paths.summary(session));
  if (summary === undefined) {
    // No summary.json to carry the mtime gate: the archive's last write against the run's start, both on the
    // home's clock (a write during the run keeps it due).
    const quiet = last !== undefined && NOTHING_YET.has(last.outcome) && row !== undefined;
    return !(quiet && row.updatedAt < last.startedAt);
  }
  // Ahead by more than a file system's clock tick: a file written this very millisecond can carry a time past
  // Date.now(), which drops the fraction of its millisecond.
  const now = BigInt(Date.now() + AHEAD_MS) * 1_000_000n;
  if ((history ?? 0n) > now || summary > now) {
    // A file dated ahead of the clock (touched with a future date, copied with the times of a machine running ahead)
    // makes the mtime gate say nothing: a history.json ahead stays newer than the summary.json of every run, a
    // summary.json ahead stays newer than every write. The archive tells instead.
    if (!readSinceWritten(ctx, session, history, last, row)) return true;
  } else if (history !== undefined && history > summary) return true;
  // An unreadable summary.json waits for a run to move it aside and start over: no write may ever come.
  return summaryCorrupt(ctx, session);
}

/**
 * Whether the last run read all there is: it finished, nothing was written to the session since it started, and the
 * archive holds the very history.json there is now (its stamp), so no other program changed it since.
 */
function readSinceWritten(
  ctx: MemoryContext,
  session: string,
  history: bigint | undefined,
  last: SummaryRunRow | undefined,
  row: Pick<SessionRow, "updatedAt"> | undefined,
): boolean {
  if (last === undefined || row === undefined || row.updatedAt >= last.startedAt) return false;
  return history === undefined || historyStampOf(ctx.db, session) === historyStamp(ctx.paths.history(session));
}

/** summary.json holds no summary; one that cannot be read at all (a folder, no permission) is the run's to report. */
function summaryCorrupt(ctx: MemoryContext, session: string): boolean {
  try {
    return readSummary(ctx, session).state === "corrupt";
  } catch {
    return false;
  }
}

/** An imported session the cron and a `summarize` of every due session leave alone until [import] summarize = true. */
export function waitsForImportSetting(ctx: MemoryContext, session: string): boolean {
  return !ctx.config.import.summarize && getSessionMeta(ctx.db, session)?.source !== undefined;
}

export function dueSessions(ctx: MemoryContext): string[] {
  const rows = new Map(listSessionRows(ctx.db).map((r) => [r.id, r]));
  const ids = new Set([...rows.keys(), ...sessionDirs(ctx)]);
  // Imported sessions wait for [import] summarize = true: importing history must not start LLM spend.
  const imported = ctx.config.import.summarize
    ? new Set<string>()
    : new Set([...listSessionMeta(ctx.db)].filter(([, m]) => m.source !== undefined).map(([id]) => id));
  return [...ids].filter((id) => !imported.has(id) && isDue(ctx, id, rows.get(id))).sort();
}
