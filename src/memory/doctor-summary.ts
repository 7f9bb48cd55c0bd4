// doctor's look at a session's summary files: an unreadable summary.json or a cursor that holds no time is
// named with what the next summary run does about it (a run repairs both under its own lock; doctor does not).
import { quoteCursorText } from "../storage/history/cursor-file.ts";
import type { DoctorFinding } from "./doctor-finding.ts";
import type { MemoryContext } from "./memory-context.ts";
import { readCursor, readSummary } from "./summary/summary-store.ts";

export function summaryFindings(ctx: MemoryContext, session: string): DoctorFinding[] {
  const out: DoctorFinding[] = [];
  const file = readSummary(ctx, session);
  if (file.state === "corrupt")
    out.push({
      session,
      problem: `summary.json is unreadable (${file.detail}): fix it by hand, or the next summary run moves it aside and summarizes from the first message`,
      manual: true,
    });
  const cursor = readCursor(ctx, session);
  if (cursor.state === "invalid")
    out.push({
      session,
      problem: `.summary_cursor holds no time (${quoteCursorText(cursor.text)}, not YYYY-MM-DD HH:MM:SS): the next summary run writes it again`,
      manual: true,
    });
  return out;
}
