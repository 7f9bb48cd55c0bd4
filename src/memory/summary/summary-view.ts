// What `memvoy summary SESSION` shows: the summary, the cursor and exact position, the last run and the
// session's token usage.
import { refuseSessionSymlinks } from "../../storage/history/no-symlink.ts";
import { assertSessionId } from "../../shared/session-id.ts";
import { getSessionRow } from "../../storage/sqlite/sessions-repo.ts";
import { sessionUsageTotals, type UsageTotal } from "../../storage/sqlite/usage-repo.ts";
import { getSummaryRun, type SummaryRunRow } from "../../storage/sqlite/summary-runs-repo.ts";
import type { MemoryContext } from "../memory-context.ts";
import { UnknownSessionError, sessionExists } from "../session-admin.ts";
import { isDue, waitsForImportSetting } from "./due-sessions.ts";
import { readCursor, readSummary, summaryRunHeld } from "./summary-store.ts";
import type { Summary, SummaryFile } from "./summary-types.ts";
import { quoteCursorText, type CursorFile } from "../../storage/history/cursor-file.ts";

export interface SummaryView {
  session: string;
  /** "missing" (none yet), "ok", or "corrupt" (unreadable; the next run moves it aside). */
  state: "missing" | "ok" | "corrupt";
  summary?: Summary;
  /** Keys of the old Agenvoy format still in summary.json (folded in at the next run). */
  legacy?: Record<string, unknown>;
  problem?: string;
  /** .summary_cursor: the local time (`YYYY-MM-DD HH:MM:SS`, rounded down) of the last summarized message. */
  cursor?: string;
  cursorProblem?: string;
  /** The exact position reached (used while it agrees with the cursor). */
  position?: { seq: bigint; id: string };
  lastRun?: Omit<SummaryRunRow, "session" | "position" | "pending">;
  /** Token usage of every LLM call made for this session, per purpose and model. */
  usage: UsageTotal[];
  due: boolean;
  /** Not due only because it is an imported session and [import] summarize is false. */
  waitsForImport?: true;
}

export function viewSummary(ctx: MemoryContext, session: string): SummaryView {
  assertSessionId(session);
  refuseSessionSymlinks(ctx.paths.session(session));
  if (!sessionExists(ctx, session)) throw new UnknownSessionError({ session, home: ctx.paths.home });
  return summaryViewOf(session, {
    file: readSummary(ctx, session),
    cursor: readCursor(ctx, session),
    run: settledRun(ctx, session, getSummaryRun(ctx.db, session)),
    usage: sessionUsageTotals(ctx.db, session),
    ...dueParts(isDue(ctx, session, getSessionRow(ctx.db, session)), waitsForImportSetting(ctx, session)),
  });
}

/** The last run as it stands: one recorded as running whose process is gone (killed, crashed) is "crashed". */
function settledRun(ctx: MemoryContext, session: string, run: SummaryRunRow | undefined): SummaryRunRow | undefined {
  return run?.outcome === "running" && !summaryRunHeld(ctx, session) ? { ...run, outcome: "crashed" } : run;
}

/** What a summary view is made of, wherever it was read. */
export interface SummaryParts {
  file: SummaryFile;
  cursor: CursorFile;
  run: SummaryRunRow | undefined;
  usage: UsageTotal[];
  due: boolean;
  waitsForImport?: boolean;
}

/** `due` as the cron sees it, from whether the session would be due and whether it waits for [import] summarize. */
export function dueParts(wouldBeDue: boolean, waits: boolean): { due: boolean; waitsForImport: boolean } {
  return { due: wouldBeDue && !waits, waitsForImport: wouldBeDue && waits };
}

export function summaryViewOf(
  session: string,
  { file, cursor, run, usage, due, waitsForImport }: SummaryParts,
): SummaryView {
  const view: SummaryView = { session, state: file.state, usage, due };
  if (waitsForImport) view.waitsForImport = true;
  if (file.state === "ok") {
    view.summary = file.summary;
    if (Object.keys(file.legacy).length > 0) view.legacy = file.legacy;
  } else if (file.state === "corrupt") view.problem = file.detail;
  if (cursor.state === "ok") view.cursor = cursor.text;
  else if (cursor.state === "invalid") view.cursorProblem = `not YYYY-MM-DD HH:MM:SS: ${quoteCursorText(cursor.text)}`;
  if (run) {
    const { session: _s, position, pending: _p, ...last } = run;
    view.lastRun = last;
    if (position && position.cursor === view.cursor) view.position = { seq: position.seq, id: position.id };
  }
  return view;
}
