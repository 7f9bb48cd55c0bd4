// The form of a session's history.json (sendAt as memvoy's RFC 3339 or Agenvoy's integer nanoseconds), remembered in
// the archive: a file deleted (a reset) or left an empty list is written again in the form its other reader takes.
import type { HistoryDoc } from "../storage/history/history-file.ts";
import { historyStyleOf, saveHistoryStyle } from "../storage/sqlite/history-stamps-repo.ts";
import type { MemoryContext } from "./memory-context.ts";

/** `doc`, given the session's remembered form when the file tells none (missing, blank, an empty list). */
export function withSessionStyle(ctx: MemoryContext, session: string, doc: HistoryDoc): HistoryDoc {
  if (!doc.formless) return doc;
  if (historyStyleOf(ctx.db, session) === "ns") doc.style = "ns";
  else delete doc.style;
  return doc;
}

/** The form to remember of a file read as `doc` (undefined: it tells none), or written from it (`written`). */
export function styleToRemember(doc: HistoryDoc, written = false): "ns" | "rfc3339" | undefined {
  return doc.formless && !written ? undefined : (doc.style ?? "rfc3339");
}

/** Whether the session's row does not hold `style` yet (a read that finds it so takes no write lock). */
export const styleUnknown = (ctx: MemoryContext, session: string, style: "ns" | "rfc3339" | undefined) =>
  style !== undefined && historyStyleOf(ctx.db, session) !== style;

/**
 * Remember `style` on the session's row (under the write lock). A session with no row yet keeps none, unless `now`
 * is given (a reset: the file goes, its form stays).
 */
export function rememberStyle(
  ctx: MemoryContext,
  session: string,
  style: "ns" | "rfc3339" | undefined,
  now?: bigint,
): void {
  if (style !== undefined) saveHistoryStyle(ctx.db, session, style, now);
}
