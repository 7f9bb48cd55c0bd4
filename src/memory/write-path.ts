// The dual write: append to history.json (atomic) and to the SQLite archive in one step under the home's
// writer lock; backfill a session the archive has never seen; compact history.json past its byte limit.
// Order: stage the new history.json (synced temp file), commit SQLite, then rename the file into place.
// A failure before the rename (full disk included) leaves both stores as they were.
import { existsSync } from "node:fs";
import { ensureDir } from "../shared/atomic-write.ts";
import { newId } from "../shared/ids.ts";
import type { MessageRecord } from "../shared/message.ts";
import { assertSessionId } from "../shared/session-id.ts";
import { readHistory, serializeRecord, stageHistory, type HistoryDoc } from "../storage/history/history-file.ts";
import { archiveBefore, insertMessages, knownIds, seqOfMessage, sessionHasMessages } from "../storage/sqlite/messages-repo.ts";
import { withWriteLock } from "../storage/sqlite/write-lock.ts";
import { tombstonedIds } from "../storage/sqlite/tombstones-repo.ts";
import { compactionPlan } from "./compaction.ts";
import { withHomeLock } from "./home-lock.ts";
import type { MemoryContext } from "./memory-context.ts";
import { checkNewMessage, type NewMessage } from "./message-input.ts";

export interface AppendResult {
  ids: string[];
  /** Messages moved out of history.json by compaction during this write. */
  compacted: number;
  /** Legacy or unseen history.json records adopted into the archive during this write. */
  adopted: number;
  /** Set when compaction had to cut off a pair boundary (a run of one role): the caller logs it. */
  compactionNote?: string;
}

export function appendMessages(ctx: MemoryContext, session: string, inputs: readonly NewMessage[]): AppendResult {
  assertSessionId(session);
  inputs.forEach((m, i) => checkNewMessage(m, ctx.config.limits.max_message_bytes, inputs.length > 1 ? `message ${i + 1}` : "message"));
  if (inputs.length === 0) return { ids: [], compacted: 0, adopted: 0 };
  const r = appendRecords(ctx, session, () =>
    inputs.map((m) => {
      const rec: MessageRecord = { id: newId(), role: m.role, content: m.content, sendAt: m.sendAt ?? ctx.now() };
      if (m.sender !== undefined && m.sender !== "") rec.sender = m.sender;
      return rec;
    }),
  );
  const result: AppendResult = { ids: r.added.map((x) => x.id), compacted: r.compacted, adopted: r.adopted };
  if (r.compactionNote) result.compactionNote = r.compactionNote;
  return result;
}

/**
 * Append records with their ids and times set, built under the home's lock by `build`: compaction, history.json
 * and the archive in one step. `inTransaction` runs inside the SQLite transaction (e.g. session metadata).
 */
export function appendRecords(
  ctx: MemoryContext,
  session: string,
  build: () => MessageRecord[],
  inTransaction?: (now: bigint) => void,
): { added: MessageRecord[]; compacted: number; adopted: number; compactionNote?: string } {
  const file = ctx.paths.history(session);
  const dir = ctx.paths.session(session);
  if (!existsSync(dir)) ensureDir(dir); // a recursive mkdir of an existing folder costs more than the check
  return withHomeLock(ctx, () => {
    const doc = readHistory(file);
    const missing = unarchived(ctx, session, doc);
    const added = build();
    const all = doc.records.concat(added);
    const json = new Map(added.map((r) => [r, serializeRecord(r)] as const)); // serialised once, for the size and the file
    let bytes = doc.bytes;
    for (const text of json.values()) bytes += Buffer.byteLength(text) + 2; // recordBytes()
    const { cut, note } = compactionPlan(all, bytes, ctx.config.limits.max_history_bytes);
    const kept = cut > 0 ? all.slice(cut) : all;
    const staged = stageHistory(file, kept, json);
    try {
      withWriteLock(ctx.db, () => {
        const now = ctx.now();
        insertMessages(ctx.db, session, missing, now);
        insertMessages(ctx.db, session, added, now);
        inTransaction?.(now);
        if (cut > 0) {
          const first = kept[0]!;
          archiveBefore(ctx.db, session, seqOfMessage(ctx.db, first.id)!, first.sendAt, now);
        }
      });
    } catch (err) {
      staged.discard();
      throw err;
    }
    staged.commit();
    return note ? { added, compacted: cut, adopted: missing.length, compactionNote: note } : { added, compacted: cut, adopted: missing.length };
  });
}

/**
 * Records of history.json the archive lacks: the whole file when the archive has never seen the session
 * (backfill), or records an older writer appended without ids. Gives id-less records their ids.
 */
export function unarchived(ctx: MemoryContext, session: string, doc: HistoryDoc): MessageRecord[] {
  if (doc.records.length === 0) return [];
  dropTombstoned(ctx, session, doc);
  let missing: MessageRecord[];
  if (!sessionHasMessages(ctx.db, session)) missing = doc.records;
  else if (doc.legacy) {
    const known = knownIds(ctx.db, doc.records.filter((r) => r.id !== "").map((r) => r.id));
    missing = doc.records.filter((r) => r.id === "" || !known.has(r.id));
  } else return [];
  for (const r of doc.records) if (r.id === "") r.id = newId(Number(r.sendAt / 1_000_000n));
  return missing;
}

/**
 * A record whose id was removed once (rm-message, reset, rm) never comes back through an old history.json:
 * it is left out of the file too (the doc is marked for rewriting). Checked only when adopting records.
 */
function dropTombstoned(ctx: MemoryContext, session: string, doc: HistoryDoc): void {
  if (sessionHasMessages(ctx.db, session) && !doc.legacy) return;
  const gone = tombstonedIds(ctx.db, doc.records.filter((r) => r.id !== "").map((r) => r.id));
  if (gone.size === 0) return;
  doc.records = doc.records.filter((r) => !gone.has(r.id));
  doc.legacy = true;
}

/** Backfill without a new message: adopt what history.json holds that the archive lacks. */
export function backfillSession(ctx: MemoryContext, session: string): number {
  assertSessionId(session);
  const file = ctx.paths.history(session);
  return withHomeLock(ctx, () => {
    const doc = readHistory(file);
    const missing = unarchived(ctx, session, doc);
    if (missing.length === 0 && !doc.legacy) return 0;
    const staged = stageHistory(file, doc.records);
    try {
      withWriteLock(ctx.db, () => insertMessages(ctx.db, session, missing, ctx.now()));
    } catch (err) {
      staged.discard();
      throw err;
    }
    staged.commit();
    return missing.length;
  });
}
