// Which sessions the summary cron should run: not `temp-`, with messages, and either no summary yet,
// a history.json newer than summary.json (the mtime gate), or a last run that did not finish.
import { isTempSession } from "../../shared/session-id.ts";
import { mtimeNs } from "../../storage/history/file-probe.ts";
import { listSessionRows } from "../../storage/sqlite/sessions-repo.ts";
import { listSessionMeta } from "../../storage/sqlite/session-meta-repo.ts";
import { getSummaryRun } from "../../storage/sqlite/summary-runs-repo.ts";
import type { MemoryContext } from "../memory-context.ts";
import { sessionDirs } from "../session-admin.ts";

const UNFINISHED = new Set(["running", "failed", "partial", "aborted"]);

export function isDue(ctx: MemoryContext, session: string, messageCount?: number): boolean {
  if (isTempSession(session)) return false;
  const history = mtimeNs(ctx.paths.history(session));
  if ((messageCount ?? 0) === 0 && history === undefined) return false;
  const summary = mtimeNs(ctx.paths.summary(session));
  if (summary === undefined) return true;
  if (history !== undefined && history > summary) return true;
  const last = getSummaryRun(ctx.db, session);
  return last !== undefined && UNFINISHED.has(last.outcome);
}

export function dueSessions(ctx: MemoryContext): string[] {
  const counts = new Map(listSessionRows(ctx.db).map((r) => [r.id, r.messageCount]));
  const ids = new Set([...counts.keys(), ...sessionDirs(ctx)]);
  // Imported sessions wait for [import] summarize = true: importing history must not start LLM spend.
  const imported = ctx.config.import.summarize
    ? new Set<string>()
    : new Set([...listSessionMeta(ctx.db)].filter(([, m]) => m.source !== undefined).map(([id]) => id));
  return [...ids].filter((id) => !imported.has(id) && isDue(ctx, id, counts.get(id))).sort();
}
