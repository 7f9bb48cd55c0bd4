// Where Generate starts: after the exact position (last summarized message, kept in SQLite) when it agrees
// with .summary_cursor, else from the start of the cursor's second (local time; a cursor written elsewhere
// may repeat a message of that second but never skips one), else from the first message; a summary with no
// cursor only gets its cursor (bootstrap), unless it is empty or an unreadable cursor has an exact position. Untimed messages come once whatever the cursor.
import type { CursorFile } from "../../storage/history/cursor-file.ts";
import type { SummaryPosition } from "../../storage/sqlite/summary-runs-repo.ts";
import { summaryIsEmpty, type SummaryFile } from "./summary-types.ts";

export type StartPoint =
  | { kind: "bootstrap" }
  | { kind: "position"; afterSeq: bigint }
  | { kind: "cursor"; sinceNs: bigint }
  | { kind: "beginning" };

/**
 * `positionHolds` tells whether the recorded position still bounds the archive: its message is there, or
 * it was removed (reset, rm-message) and its seq, never reused, still separates done from new.
 */
export function findStart(
  file: SummaryFile,
  cursor: CursorFile,
  position: SummaryPosition | undefined,
  positionHolds: (p: SummaryPosition) => boolean,
): StartPoint {
  if (file.state !== "ok") return { kind: "beginning" };
  const p = position;
  // A cursor that holds no time (edited by hand, written by another tool) is not a missing one: the exact
  // position still says where the summary ends, and bootstrapping would skip every message since.
  if (cursor.state === "invalid" && p && positionHolds(p)) return { kind: "position", afterSeq: p.seq };
  if (cursor.state !== "ok") {
    // An empty summary (Agenvoy created `{}` before its first run) holds nothing to keep: start over.
    const empty = summaryIsEmpty(file.summary) && Object.keys(file.legacy).length === 0;
    return empty ? { kind: "beginning" } : { kind: "bootstrap" };
  }
  if (p && p.cursor === cursor.text && positionHolds(p)) return { kind: "position", afterSeq: p.seq };
  return { kind: "cursor", sinceNs: cursor.ns };
}
