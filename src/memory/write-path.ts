// The dual write: append to history.json (atomic) and to the SQLite archive in one step under the home's
// writer lock; backfill a session the archive has never seen; compact history.json past its byte limit.
// Order: stage the new history.json (a temp file, synced while the archive rows are written), commit SQLite
// once the temp file is on disk, then rename the file into place.
// A failure before the SQLite commit (full disk included) leaves both stores as they were; a crash between
// the commit and the rename is rolled forward from SQLite by the next writer (see home-lock.ts).
import { lstatSync, rmdirSync } from "node:fs";
import { ensureDir, ensureDirIn } from "../shared/atomic-write.ts";
import { faultPoint } from "../shared/fault-point.ts";
import { newId } from "../shared/ids.ts";
import type { MessageRecord } from "../shared/message.ts";
import { assertSessionId } from "../shared/session-id.ts";
import { refuseSessionSymlinks } from "../storage/history/no-symlink.ts";
import {
  beginAppend,
  forgetHistoryCache,
  historyStamp,
  readHistory,
  serializeHistory,
  recordJson,
  serializeRecord,
  stageHistory,
  type HistoryDoc,
  type StagedHistory,
} from "../storage/history/history-file.ts";
import { forgetHistoryStamp, historyStampOf, saveHistoryStamp } from "../storage/sqlite/history-stamps-repo.ts";
import {
  archiveBefore,
  insertMessages,
  messagesByIdempotencyKey,
  seqOfMessage,
} from "../storage/sqlite/messages-repo.ts";
import { flushPendingIndex, withWriteLock } from "../storage/sqlite/write-lock.ts";
import { isTombstoned, keyTombstone } from "../storage/sqlite/tombstones-repo.ts";
import { compactionPlan } from "./compaction.ts";
import { rollForward } from "./crash-recovery.ts";
import { leaveWindow, reconcileHistory, type ReconcileOptions, type Reconciled } from "./history-reconcile.ts";
import { withHomeLock } from "./home-lock.ts";
import { rememberStyle, styleToRemember, styleUnknown, withSessionStyle } from "./history-style.ts";
import type { MemoryContext } from "./memory-context.ts";
import { checkNewMessage, checkRepeatedKeys, REMOVED_ID, type NewMessage } from "./message-input.ts";

export interface AppendResult {
  ids: string[];
  /** Messages moved out of history.json by compaction during this write. */
  compacted: number;
  /** Legacy or unseen history.json records adopted into the archive during this write. */
  adopted: number;
  /** Messages not added because their idempotency key was already stored (their stored ids are in `ids`). */
  duplicates: number;
  /**
   * Messages not added because their idempotency key belonged to a message removed since (tombstoned: never
   * brought back); each has "" in `ids`, so `ids` stays one entry per input.
   */
  removed: number;
  /** Set when compaction had to cut off a pair boundary (a run of one role): the caller logs it. */
  compactionNote?: string;
}

export function appendMessages(ctx: MemoryContext, session: string, inputs: readonly NewMessage[]): AppendResult {
  assertSessionId(session);
  const where = (i: number) => (inputs.length > 1 ? `message ${i + 1}` : "message");
  inputs.forEach((m, i) => checkNewMessage(m, ctx.config.limits.max_message_bytes, where(i)));
  checkRepeatedKeys(inputs, where);
  if (inputs.length === 0) return { ids: [], compacted: 0, adopted: 0, duplicates: 0, removed: 0 };
  const r = appendRecords(ctx, session, () => recordsOfInputs(ctx, session, inputs));
  const removed = r.ids.filter((id) => id === REMOVED_ID).length;
  const result: AppendResult = {
    ids: r.ids,
    compacted: r.compacted,
    adopted: r.adopted,
    duplicates: inputs.length - r.added.length - removed,
    removed,
  };
  if (r.compactionNote) result.compactionNote = r.compactionNote;
  return result;
}

/** What appendRecords writes: the new records, the ids to report (stored duplicates included), their keys. */
export interface BuiltRecords {
  added: MessageRecord[];
  ids: string[];
  idempotencyKeys?: Map<MessageRecord, string>;
}

/**
 * New records for the inputs, under the lock: an idempotency key already stored gives the stored id and no
 * record; a key whose message was removed since (tombstoned) gives REMOVED_ID and no record.
 */
function recordsOfInputs(ctx: MemoryContext, session: string, inputs: readonly NewMessage[]): BuiltRecords {
  const keys = inputs.flatMap((m) => (m.idempotencyKey !== undefined ? [m.idempotencyKey] : []));
  const stored = messagesByIdempotencyKey(ctx.db, session, keys);
  const removed = new Set(keys.filter((k) => !stored.has(k) && isTombstoned(ctx.db, keyTombstone(session, k))));
  const byKey = new Map<string, MessageRecord>();
  const idempotencyKeys = new Map<MessageRecord, string>();
  const ids: string[] = [];
  const added: MessageRecord[] = [];
  for (const m of inputs) {
    const key = m.idempotencyKey;
    const earlier = key !== undefined ? (stored.get(key)?.id ?? byKey.get(key)?.id) : undefined;
    if (earlier !== undefined) {
      ids.push(earlier);
      continue;
    }
    if (key !== undefined && removed.has(key)) {
      ids.push(REMOVED_ID);
      continue;
    }
    const r: MessageRecord = { id: newId(), role: m.role, content: m.content, sendAt: m.sendAt ?? ctx.now() };
    if (m.sender !== undefined && m.sender !== "") r.sender = m.sender;
    if (key !== undefined) {
      byKey.set(key, r);
      idempotencyKeys.set(r, key);
    }
    added.push(r);
    ids.push(r.id);
  }
  return { added, ids, idempotencyKeys };
}

/** How far below the byte limit a file must be for its append to begin early (a compaction rewrites it). */
const EARLY_HEADROOM = 64 * 1024;

/** What appendRecords wrote: the new records, the ids to report, and what compaction and adoption did. */
export interface AppendedRecords {
  added: MessageRecord[];
  ids: string[];
  compacted: number;
  adopted: number;
  compactionNote?: string;
}

/**
 * Append records with their ids and times set, built under the home's lock by `build`: compaction, history.json
 * and the archive in one step. `inTransaction` runs inside the SQLite transaction (e.g. session metadata).
 */
export function appendRecords(
  ctx: MemoryContext,
  session: string,
  build: () => MessageRecord[] | BuiltRecords,
  inTransaction?: (now: bigint) => void,
): AppendedRecords {
  const file = ctx.paths.history(session);
  const dir = ctx.paths.session(session);
  refuseSessionSymlinks(dir);
  return withHomeLock(
    ctx,
    () => {
      // A new session's folder is made under the lock, so that a write that fails (a full disk) can take it away
      // again: a failed add leaves no empty session behind. (A recursive mkdir of an existing folder costs more
      // than the check.)
      const made = lstatSync(dir, { throwIfNoEntry: false }) === undefined;
      if (made) ensureDir(dir);
      const doc = withSessionStyle(ctx, session, readHistory(file, { shared: true }));
      const limit = ctx.config.limits.max_history_bytes;
      // Away from the limit (most adds) the file's current bytes are written, and their write-back started,
      // before the new records are worked out: the disk is busy meanwhile.
      const early = doc.bytes + EARLY_HEADROOM <= limit ? beginAppend(file, doc.records) : undefined;
      // One write transaction for the reads (adoption, idempotency) and the rows: no separate read transactions.
      let staged: StagedHistory | undefined;
      let result: AppendedRecords | undefined;
      try {
        withWriteLock(ctx.db, () => {
          const reconciled = adoptable(ctx, session, doc, file, { quick: true, restoreAll: made });
          const { unseen: missing, changed: rewrite } = reconciled;
          const built = build();
          const { added, ids, idempotencyKeys } = Array.isArray(built)
            ? { added: built, ids: built.map((r) => r.id), idempotencyKeys: undefined }
            : built;
          result = { added, ids, compacted: 0, adopted: missing.length };
          if (added.length === 0 && missing.length === 0 && !rewrite && !inTransaction) return;
          const json = new Map(added.map((r) => [r, serializeRecord(r, doc.style)] as const)); // serialised once, for the size and the file
          let bytes = doc.bytes;
          for (const text of json.values()) bytes += Buffer.byteLength(text) + 2; // recordBytes()
          // Under the limit (most adds) the records are appended to the cached file, the list never copied.
          const all = bytes > limit ? doc.records.concat(added) : undefined;
          const { cut, note } = all ? compactionPlan(all, bytes, limit, doc.style) : { cut: 0, note: undefined };
          const kept = all && cut > 0 ? all.slice(cut) : undefined;
          result.compacted = cut;
          if (note) result.compactionNote = note;
          // The file is written back to disk while the archive rows are written; the transaction commits only
          // once the file is on disk (a failed sync rolls it back).
          const syncLater = { syncLater: true };
          staged = kept
            ? stageHistory(file, kept, doc.style, json, syncLater)
            : (early?.stage(doc.records, added, json, syncLater) ??
              stageHistory(file, doc.records.concat(added), doc.style, json, syncLater));
          const now = ctx.now();
          leaveWindow(ctx, session, reconciled, now);
          if (missing.length > 0) insertMessages(ctx.db, session, missing, now); // (the index writers cost to set up)
          insertMessages(ctx.db, session, added, now, idempotencyKeys ? { idempotencyKeys } : undefined);
          // What the file will be once renamed into place: a read that finds it so parses nothing (sessions-list.ts).
          saveHistoryStamp(ctx.db, session, staged.stamp());
          rememberStyle(ctx, session, styleToRemember(doc, true));
          inTransaction?.(now);
          if (kept) {
            const first = kept[0]!;
            archiveBefore(ctx.db, session, seqOfMessage(ctx.db, first.id)!, first.sendAt, now);
          }
          flushPendingIndex(ctx.db);
          staged.synced();
          faultPoint("after-history-staged");
        });
      } catch (err) {
        staged?.discard();
        early?.discard();
        if (made) removeEmptyDir(dir);
        throw err;
      } finally {
        early?.discard(); // when it was not staged (nothing to write, compaction)
      }
      if (staged) {
        faultPoint("after-archive-commit");
        commitUnlessRewritten(ctx, session, staged, doc.stamp);
      }
      return result!;
    },
    session,
  );
}

/** Remove the folder `dir` if it is empty (what else is in it, and any failure, leaves it). */
function removeEmptyDir(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty, or already gone
  }
}

/**
 * Records of history.json the archive lacks, to adopt (see history-reconcile.ts). When the file must change (a
 * record removed once, put back with an old file; a legacy form), `doc` becomes what it should hold, in full.
 */
function adoptable(
  ctx: MemoryContext,
  session: string,
  doc: HistoryDoc,
  file: string,
  o: ReconcileOptions,
): Reconciled {
  const c = reconcileHistory(ctx, session, doc, file, o);
  if (c.changed)
    Object.assign(doc, {
      records: c.records,
      legacy: true,
      bytes: Buffer.byteLength(serializeHistory(c.records, recordJson(doc.style))),
    });
  return c;
}

/**
 * Backfill without a new message: adopt what history.json holds that the archive lacks, and rewrite the file as
 * the archive has it (history-reconcile.ts). Returns how many records were adopted.
 */
export function backfillSession(ctx: MemoryContext, session: string): number {
  return adoptHistory(ctx, session).unseen.length;
}

/**
 * backfillSession, telling what changed: records adopted, removed ones left out, recent rows put back. doctor
 * --repair reads the file with `read` (one whose repeated ids are left out) and gives records with another
 * session's message ids new ids (`renewForeign`).
 */
export function adoptHistory(
  ctx: MemoryContext,
  session: string,
  o: { read?: (file: string) => HistoryDoc; renewForeign?: boolean } = {},
): Reconciled {
  assertSessionId(session);
  refuseSessionSymlinks(ctx.paths.session(session));
  const file = ctx.paths.history(session);
  return withHomeLock(
    ctx,
    () => {
      const doc = withSessionStyle(ctx, session, (o.read ?? readHistory)(file));
      const c = adoptable(ctx, session, doc, file, { renewForeign: o.renewForeign });
      const stamp = doc.stamp;
      if (c.unseen.length === 0 && !c.changed) {
        // The file agrees with the archive: reads take it as it is until it changes (sessions-list.ts).
        const known = historyStampOf(ctx.db, session);
        const style = styleToRemember(doc);
        if (stamp !== known || styleUnknown(ctx, session, style))
          withWriteLock(ctx.db, () => {
            if (stamp !== undefined) saveHistoryStamp(ctx.db, session, stamp);
            else forgetHistoryStamp(ctx.db, session);
            rememberStyle(ctx, session, style);
          });
        return c;
      }
      // A history.json deleted by its other writer (Agenvoy's reset) stays deleted: its rows only leave the window.
      const staged = stamp !== undefined || doc.records.length > 0 ? stageHistoryIn(ctx, session, doc) : undefined;
      try {
        withWriteLock(ctx.db, () => {
          const now = ctx.now();
          leaveWindow(ctx, session, c, now);
          insertMessages(ctx.db, session, c.unseen, now);
          if (staged) saveHistoryStamp(ctx.db, session, staged.stamp());
          else forgetHistoryStamp(ctx.db, session);
          rememberStyle(ctx, session, styleToRemember(doc, staged !== undefined));
        });
      } catch (err) {
        staged?.discard();
        throw err;
      }
      if (staged) commitUnlessRewritten(ctx, session, staged, stamp);
      return c;
    },
    session,
  );
}

function stageHistoryIn(ctx: MemoryContext, session: string, doc: HistoryDoc): StagedHistory {
  ensureDirIn(ctx.paths.session(session)); // doctor puts back the file of a folder removed by hand
  return stageHistory(ctx.paths.history(session), doc.records, doc.style);
}

/**
 * Rename the staged history.json into place, unless another program rewrote the file since it was read as `read`
 * (Agenvoy writes its whole list back without memvoy's lock): the rename would drop that program's new records,
 * which the archive has never seen. The file is then rolled forward from the archive instead (which holds this
 * write's rows), keeping those records for the next read to adopt; a file still being written is left to it.
 */
function commitUnlessRewritten(
  ctx: MemoryContext,
  session: string,
  staged: StagedHistory,
  read: string | undefined,
): void {
  const file = ctx.paths.history(session);
  if (historyStamp(file) === read) return staged.commit();
  staged.discard();
  forgetHistoryCache(file);
  try {
    rollForward(ctx, session);
  } catch {
    // Half written by the other program, or no room for the new file: the rows are committed, so the write is done
    // and must not read as failed ("nothing was changed"); the next read or write of the session rolls forward.
  }
}
