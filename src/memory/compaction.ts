// Byte compaction of history.json: when it exceeds the limit, drop the oldest messages down to 80%,
// cutting on a complete user+assistant pair boundary (the kept part starts with a user message).
import type { MessageRecord } from "../shared/message.ts";
import { recordBytes } from "../storage/history/history-file.ts";

export const COMPACT_TARGET = 0.8;

/** Index of the first record to keep, or 0 when nothing should be dropped. */
export function compactionCut(records: readonly MessageRecord[], totalBytes: number, maxBytes: number): number {
  if (totalBytes <= maxBytes || records.length < 2) return 0;
  const toRemove = totalBytes - Math.floor(maxBytes * COMPACT_TARGET);
  let removed = 0;
  let cut = 0;
  while (cut < records.length && removed < toRemove) removed += recordBytes(records[cut++]!);
  // Extend to a pair boundary: the previous message is an assistant reply and the next opens a user turn.
  let boundary = cut;
  while (boundary < records.length && !(records[boundary - 1]?.role === "assistant" && records[boundary]!.role === "user")) boundary++;
  if (boundary < records.length) return boundary;
  // No pair boundary after the byte point (e.g. a run of one role): never leave the file over the limit.
  return Math.min(cut, records.length - 1);
}
