// Byte compaction of history.json: when it exceeds the limit, drop the oldest messages down to about 80%,
// cutting on a complete user+assistant pair boundary (the kept part starts with a user message).
// The rule: the newest pair boundary at or below 80% (the most kept without passing 80%), else the oldest
// one above it (the nearest to 80% on the other side). With no pair boundary at all (a run of one role),
// the file is left alone until it reaches twice the limit, then cut at 80% on a message boundary (noted).
import type { MessageRecord } from "../shared/message.ts";
import { recordBytes, type TimeStyle } from "../storage/history/history-file.ts";

export const COMPACT_TARGET = 0.8;
/** With no pair boundary, compaction waits until the file is this many times the limit. */
export const NO_BOUNDARY_FACTOR = 2;

export interface CompactionCut {
  /** Index of the first record to keep; 0 when nothing is dropped. */
  cut: number;
  /** Set when the cut is not on a pair boundary (none existed): the caller logs it. */
  note?: string;
}

/** Where to cut a history of `totalBytes` over `maxBytes`. */
export function compactionPlan(
  records: readonly MessageRecord[],
  totalBytes: number,
  maxBytes: number,
  style?: TimeStyle,
): CompactionCut {
  if (totalBytes <= maxBytes || records.length < 2) return { cut: 0 };
  const toRemove = totalBytes - Math.floor(maxBytes * COMPACT_TARGET);
  let removed = 0;
  let cut = 0;
  while (cut < records.length && removed < toRemove) removed += recordBytes(records[cut++]!, style);
  const isBoundary = (i: number) => records[i - 1]?.role === "assistant" && records[i]!.role === "user";
  // At or below 80%: the first boundary from the byte point on.
  for (let i = Math.max(cut, 1); i < records.length; i++) if (isBoundary(i)) return { cut: i };
  // Above 80%: the nearest boundary before the byte point.
  for (let i = Math.min(cut, records.length) - 1; i >= 1; i--) if (isBoundary(i)) return { cut: i };
  if (totalBytes < maxBytes * NO_BOUNDARY_FACTOR) return { cut: 0 };
  const at = Math.max(1, Math.min(cut, records.length - 1));
  return {
    cut: at,
    note: `history.json reached ${NO_BOUNDARY_FACTOR}x limits.max_history_bytes with no user+assistant pair boundary: ${at} oldest message(s) moved to the archive, cut between two messages`,
  };
}

/** Index of the first record to keep, or 0 when nothing should be dropped. */
export function compactionCut(records: readonly MessageRecord[], totalBytes: number, maxBytes: number): number {
  return compactionPlan(records, totalBytes, maxBytes).cut;
}
