// .summary_cursor on disk: the time of the last summarized message as `YYYY-MM-DD HH:MM:SS` in local time
// (Agenvoy's convention), rounded down to the second. The exact position lives in SQLite (summary_runs).
import { rmSync } from "node:fs";
import { stageFileAtomic, writeFileAtomic, type StagedFile } from "../../shared/atomic-write.ts";
import { MAX_TIME_NS, NS_PER_SEC, nsToLocalSeconds, type Nanos } from "../../shared/time.ts";
import { readText } from "./file-probe.ts";

const CURSOR = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

export type CursorFile =
  | { state: "missing" }
  | { state: "invalid"; text: string }
  | { state: "ok"; text: string; ns: bigint };

/** The cursor text for a message time: local time, rounded down to the second (as Agenvoy writes it). */
export function cursorText(ns: Nanos): string {
  return nsToLocalSeconds(ns);
}

/**
 * The start of the cursor's second (UTC ns), reading the text in local time; undefined when it is no time, or one
 * no message time can be compared with (past 2262 or before 1677: no signed 64-bit nanosecond count). A time
 * the clocks skipped (a DST gap, written under another zone) stands where Agenvoy's text comparison puts it: just
 * before the first instant whose local time reads later, so that no message after it is taken as summarized.
 */
export function parseCursorText(text: string): Nanos | undefined {
  const m = CURSOR.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, se] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const date = new Date(y, mo - 1, d, h, mi, se);
  const ms = date.getTime();
  if (!Number.isFinite(ms) || date.getMonth() !== mo - 1 || date.getDate() !== d) return undefined;
  if (Math.abs(ms) >= Number(MAX_TIME_NS / 1_000_000n)) return undefined;
  const sec = Math.floor(ms / 1000);
  if (date.getHours() === h && date.getMinutes() === mi && date.getSeconds() === se) return BigInt(sec) * NS_PER_SEC;
  return BigInt(firstLocalAfter(text, sec) - 1) * NS_PER_SEC;
}

/** The first second whose local time reads after `text`, searched below `above` (which reads after it). */
function firstLocalAfter(text: string, above: number): number {
  const reads = (sec: number) => nsToLocalSeconds(BigInt(sec) * NS_PER_SEC);
  let lo = above - GAP_SEARCH_SECONDS;
  let hi = above;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (reads(mid) > text) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** Clocks skip at most this much (a DST change is an hour; a few zones have moved by a day). */
const GAP_SEARCH_SECONDS = 26 * 3600;

/** A cursor text that holds no time, quoted for one line of text: its first 40 characters. */
export function quoteCursorText(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

/** The cursor, read in local time. */
export function readCursorFile(path: string): CursorFile {
  const raw = readText(path);
  return raw === undefined ? { state: "missing" } : cursorOfText(raw);
}

/** A cursor's text (the shared archive's, in local time) read as readCursorFile reads the file. */
export function cursorOfText(raw: string): CursorFile {
  const text = raw.trim();
  const ns = parseCursorText(text);
  return ns === undefined ? { state: "invalid", text } : { state: "ok", text, ns };
}

export function stageCursor(path: string, text: string): StagedFile {
  return stageFileAtomic(path, text);
}

export function writeCursorFile(path: string, text: string): void {
  writeFileAtomic(path, text);
}

export function removeCursorFile(path: string): void {
  rmSync(path, { force: true });
}
