// The summary cursor in the shared archive: an instant in UTC with its zone (`2026-05-01T09:00:05Z`), so hosts in
// different zones agree on it. Each host's .summary_cursor, and what Generate and `summary` read, is that instant
// in the host's own local time (the spec's `YYYY-MM-DD HH:MM:SS`). A text without the zone (written before, or
// copied from a home) is read in local time, as it always was.
import { cursorText, parseCursorText } from "../../storage/history/cursor-file.ts";
import type { SummaryPosition } from "../../storage/ports/archive-port.ts";
import { NS_PER_SEC, nsToUtcSeconds, type Nanos } from "../../shared/time.ts";

const UTC_CURSOR = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

function utcNs(text: string): Nanos | undefined {
  const m = UTC_CURSOR.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(ms);
  if (back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return undefined;
  return BigInt(ms / 1000) * NS_PER_SEC;
}

/** The start of the archive cursor's second (UTC ns); undefined when it holds no time. */
export function archiveCursorNs(text: string): Nanos | undefined {
  const t = text.trim();
  return utcNs(t) ?? parseCursorText(t);
}

/** The archive's form of a cursor text read in local time (Generate's, a home's file); one holding no time is kept. */
export function archiveCursor(local: string): string {
  const t = local.trim();
  if (utcNs(t) !== undefined) return t;
  const ns = parseCursorText(t);
  return ns === undefined ? local : `${nsToUtcSeconds(ns).replace(" ", "T")}Z`;
}

/** This host's .summary_cursor text for the archive's cursor: its instant in local time. */
export function localCursor(archived: string): string {
  const ns = utcNs(archived.trim());
  return ns === undefined ? archived : cursorText(ns);
}

export const archivePosition = (p: SummaryPosition): SummaryPosition => ({ ...p, cursor: archiveCursor(p.cursor) });
export const localPosition = (p: SummaryPosition): SummaryPosition => ({ ...p, cursor: localCursor(p.cursor) });
