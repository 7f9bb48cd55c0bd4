// Where Generate starts: after the exact position (last summarized message) when it agrees with
// .summary_cursor, else after the cursor's second (UTC), else from the first message; a summary with no
// cursor only gets its cursor (bootstrap), unless it is empty.
import type { StoredMessage } from "../../shared/message.ts";
import { NS_PER_SEC } from "../../shared/time.ts";
import { findPositionMessage, listUnsummarized, type SummaryRunRow } from "../../storage/sqlite/summary-runs-repo.ts";
import type { MemoryContext } from "../memory-context.ts";
import type { CursorFile, SummaryFile } from "./summary-file.ts";
import { summaryIsEmpty } from "./summary-types.ts";

export type StartPoint =
  | { kind: "bootstrap" }
  | { kind: "position"; afterSeq: bigint }
  | { kind: "cursor"; sinceNs: bigint }
  | { kind: "beginning" };

export function findStart(ctx: MemoryContext, session: string, file: SummaryFile, cursor: CursorFile, run: SummaryRunRow | undefined): StartPoint {
  if (file.state !== "ok") return { kind: "beginning" };
  if (cursor.state !== "ok") {
    // An empty summary (Agenvoy created `{}` before its first run) holds nothing to keep: start over.
    const empty = summaryIsEmpty(file.summary) && Object.keys(file.legacy).length === 0;
    return empty ? { kind: "beginning" } : { kind: "bootstrap" };
  }
  const p = run?.position;
  if (p && p.cursor === cursor.text && findPositionMessage(ctx.db, session, p.seq, p.id)) return { kind: "position", afterSeq: p.seq };
  return { kind: "cursor", sinceNs: cursor.ns + NS_PER_SEC };
}

export function newMessages(ctx: MemoryContext, session: string, start: StartPoint): StoredMessage[] {
  switch (start.kind) {
    case "position":
      return listUnsummarized(ctx.db, session, { afterSeq: start.afterSeq });
    case "cursor":
      return listUnsummarized(ctx.db, session, { sinceNs: start.sinceNs });
    default:
      return listUnsummarized(ctx.db, session, "all");
  }
}
