// Where Generate starts: after the exact position (last summarized message, kept in SQLite) when it agrees
// with .summary_cursor, else from the start of the cursor's second (local time; a cursor written elsewhere
// may repeat a message of that second but never skips one), else from the first message; a summary with no
// cursor only gets its cursor (bootstrap), unless it is empty. Untimed messages come once whatever the cursor.
import type { StoredMessage } from "../../shared/message.ts";
import { NS_PER_SEC } from "../../shared/time.ts";
import { findPositionMessage, lastSessionMessage, listUnsummarized, messageBefore, seqInUse, untimedSeqs, type SummaryRunRow } from "../../storage/sqlite/summary-runs-repo.ts";
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
  // seq is never reused: a position whose message a reset or rm-message removed still bounds what came after.
  if (p && p.cursor === cursor.text && positionHolds(ctx, session, p.seq, p.id)) return { kind: "position", afterSeq: p.seq };
  return { kind: "cursor", sinceNs: cursor.ns };
}

function positionHolds(ctx: MemoryContext, session: string, seq: bigint, id: string): boolean {
  return findPositionMessage(ctx.db, session, seq, id) !== undefined || !seqInUse(ctx.db, seq);
}

export interface NewMessages {
  /** The messages Generate has not summarized, in session order. */
  fresh: StoredMessage[];
  /** The session's newest message when they were listed: the position once everything is summarized. */
  last: StoredMessage | undefined;
}

export function newMessages(ctx: MemoryContext, session: string, start: StartPoint): NewMessages {
  // The newest message first: one added while listing waits for the next run instead of being passed over.
  const last = lastSessionMessage(ctx.db, session);
  if (!last) return { fresh: [], last };
  const upTo = (list: StoredMessage[]) => list.filter((m) => m.seq <= last.seq);
  switch (start.kind) {
    case "position":
      return { fresh: upTo(listUnsummarized(ctx.db, session, { afterSeq: start.afterSeq })), last };
    case "cursor":
      return { fresh: upTo(afterForeignCursor(ctx, session, start.sinceNs)), last };
    default:
      return { fresh: upTo(listUnsummarized(ctx.db, session, "all")), last };
  }
}

/**
 * After a second-resolution cursor with no exact position: the messages from the start of its second on
 * (and untimed ones). A lone message in the cursor's second is the one the cursor was written for: it is
 * done. Several in that second cannot be told apart: they are all taken (a repeat, never a skip).
 */
function afterForeignCursor(ctx: MemoryContext, session: string, sinceNs: bigint): StoredMessage[] {
  const list = listUnsummarized(ctx.db, session, { sinceNs });
  const untimed = untimedSeqs(ctx.db, session);
  const inSecond = list.filter((m) => !untimed.has(m.seq) && m.sendAt >= sinceNs && m.sendAt < sinceNs + NS_PER_SEC);
  return inSecond.length === 1 ? list.filter((m) => m !== inSecond[0]) : list;
}

/**
 * The position once `fresh[0..i]` is summarized: the message just before the next fresh one (messages the
 * cursor had already passed in between count as done), or the newest listed when none is left.
 */
export function positionAfter(ctx: MemoryContext, session: string, fresh: readonly StoredMessage[], i: number, last: StoredMessage): StoredMessage {
  const next = fresh[i + 1];
  if (!next) return last;
  return next.seq === fresh[i]!.seq + 1n ? fresh[i]! : (messageBefore(ctx.db, session, next.seq) ?? fresh[i]!);
}
