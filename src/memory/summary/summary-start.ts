// Where Generate starts: after the exact position (last summarized message) when it agrees with
// .summary_cursor, else after the cursor's second (UTC), else from the first message; a summary with no
// cursor only gets its cursor (bootstrap), unless it is empty.
import { NS_PER_SEC } from "../../shared/time.ts";
import type { CursorFile } from "../../storage/history/cursor-file.ts";
import type { SummaryPosition } from "../../storage/sqlite/summary-runs-repo.ts";
import { summaryIsEmpty, type SummaryFile } from "./summary-types.ts";

export type StartPoint =
  | { kind: "bootstrap" }
  | { kind: "position"; afterSeq: bigint }
  | { kind: "cursor"; sinceNs: bigint }
  | { kind: "beginning" };

/** `positionHolds` tells whether the recorded position's message is still in the archive. */
export function findStart(file: SummaryFile, cursor: CursorFile, position: SummaryPosition | undefined, positionHolds: (p: SummaryPosition) => boolean): StartPoint {
  if (file.state !== "ok") return { kind: "beginning" };
  if (cursor.state !== "ok") {
    // An empty summary (Agenvoy created `{}` before its first run) holds nothing to keep: start over.
    const empty = summaryIsEmpty(file.summary) && Object.keys(file.legacy).length === 0;
    return empty ? { kind: "beginning" } : { kind: "bootstrap" };
  }
  const p = position;
  if (p && p.cursor === cursor.text && positionHolds(p)) return { kind: "position", afterSeq: p.seq };
  return { kind: "cursor", sinceNs: cursor.ns + NS_PER_SEC };
}
