// Writing imported messages: given ids and times (deterministic per source record), existing ids skipped,
// secrets redacted unless told otherwise; history.json and the archive change together through the write path.
import { existsSync } from "node:fs";
import { describeError } from "../../shared/describe-error.ts";
import type { MessageRecord, StoredMessage } from "../../shared/message.ts";
import { assertSessionId } from "../../shared/session-id.ts";
import { readHistory, stageHistory } from "../../storage/history/history-file.ts";
import { historyStampOf, saveHistoryStamp } from "../../storage/sqlite/history-stamps-repo.ts";
import { replaceMessageContent } from "../../storage/sqlite/message-content-repo.ts";
import { getMessagesById, knownIds } from "../../storage/sqlite/messages-repo.ts";
import { tombstonedIds } from "../../storage/sqlite/tombstones-repo.ts";
import { getSessionRow } from "../../storage/sqlite/sessions-repo.ts";
import { holdsTitle, upsertSessionMeta, type MetaUpdate } from "../../storage/sqlite/session-meta-repo.ts";
import { withWriteLock } from "../../storage/sqlite/write-lock.ts";
import { redactSecrets } from "../../shared/redact.ts";
import { rollForward } from "../crash-recovery.ts";
import { withHomeLock } from "../home-lock.ts";
import type { MemoryContext } from "../memory-context.ts";
import { checkNewMessage } from "../message-input.ts";
import { appendRecords } from "../write-path.ts";

export interface ImportWriteOptions {
  /** Redact secrets from the content (default true; memvoy's own export format is imported as is). */
  redact?: boolean;
  /** Count what would be written, write nothing. */
  dryRun?: boolean;
  /**
   * Ids whose record holds only the text that continues the message stored under that id (a reply streamed
   * across two import passes): the text is appended to it. Without a stored message it is added as is.
   */
  continues?: ReadonlySet<string>;
  /** The records are memvoy's own export: their text is taken as the archive held it (see checkNewMessage). */
  asStored?: boolean;
}

export interface ImportWriteResult {
  added: number;
  /** Already in the archive (an earlier import), or a duplicate within this batch. */
  existing: number;
  /** Removed once (rm-message, a rewind): a tombstone keeps them out. */
  tombstoned: number;
  /** Refused by the message checks (empty, too large, invalid text), with the reason. */
  invalid: { id: string; reason: string }[];
  /** Messages in which at least one secret was redacted. */
  redacted: number;
  /** Stored messages whose text grew (more of a streamed reply arrived): their text was extended. */
  extended: number;
  /** Of `existing`: ids stored under another session (ids are unique across sessions), with that session. */
  elsewhere: { id: string; session: string }[];
}

/** Append imported records (in order) to a session and set its metadata, in one step. */
export function writeImported(
  ctx: MemoryContext,
  session: string,
  records: readonly MessageRecord[],
  meta: MetaUpdate | undefined,
  o: ImportWriteOptions = {},
): ImportWriteResult {
  assertSessionId(session);
  meta = storedMeta(
    meta,
    records,
    tombstonedIds(
      ctx.db,
      records.map((r) => r.id),
    ),
    o.redact !== false,
  );
  const max = ctx.config.limits.max_message_bytes;
  // The records not in the archive yet, checked again under the lock when writing (another import may run).
  const fresh = (result: ImportWriteResult): MessageRecord[] => {
    const ids = records.map((r) => r.id);
    return freshRecords(records, knownIds(ctx.db, ids), tombstonedIds(ctx.db, ids), o, max, result);
  };
  const result = emptyImportResult();
  const stored = getMessagesById(
    ctx.db,
    records.map((r) => r.id),
  );
  const growth = grownMessages(stored, session, records, o, max, result);
  result.elsewhere = storedElsewhere(stored, session);
  if (o.dryRun) {
    fresh(result);
    result.existing -= growth.length;
    result.extended = growth.length;
    return result;
  }
  const ids = records.map((r) => r.id);
  const known = knownIds(ctx.db, ids);
  const dead = tombstonedIds(ctx.db, ids);
  if (records.every((r) => known.has(r.id) || dead.has(r.id))) {
    // Nothing new (the usual re-run): no lock, no history.json rewrite; the metadata may still change. A session
    // removed since (every record tombstoned) is not brought back empty.
    result.tombstoned = records.filter((r) => dead.has(r.id)).length;
    result.existing = records.length - result.tombstoned;
    if (meta && getSessionRow(ctx.db, session))
      withWriteLock(ctx.db, () => upsertSessionMeta(ctx.db, session, meta, ctx.now()));
  } else {
    appendRecords(
      ctx,
      session,
      () => fresh(result),
      (now) => meta && upsertSessionMeta(ctx.db, session, meta, now),
    );
  }
  if (growth.length > 0) {
    result.extended = extendMessages(ctx, session, growth);
    result.existing -= result.extended;
  }
  return result;
}

/**
 * The metadata as it is stored: the title and project redacted like the messages, and no title taken from a
 * message that was removed (its tombstone keeps the message out; its text must not come back as the title).
 */
export function storedMeta(
  meta: MetaUpdate | undefined,
  records: readonly MessageRecord[],
  dead: ReadonlySet<string>,
  redact: boolean,
): MetaUpdate | undefined {
  if (!meta) return meta;
  const out: MetaUpdate = { ...meta };
  const title = meta.title;
  if (title !== undefined && records.some((r) => dead.has(r.id) && holdsTitle(r.content, title))) {
    delete out.title;
    delete out.titleIsFallback;
  }
  if (redact)
    for (const k of ["title", "project"] as const) {
      const v = out[k];
      if (v !== undefined) out[k] = redactSecrets(v).text;
    }
  return out;
}

/** A fresh result: nothing counted yet. */
export function emptyImportResult(): ImportWriteResult {
  return { added: 0, existing: 0, tombstoned: 0, invalid: [], redacted: 0, extended: 0, elsewhere: [] };
}

/** The stored messages that belong to another session than `session`: their ids are not this session's to take. */
export function storedElsewhere(stored: readonly StoredMessage[], session: string): ImportWriteResult["elsewhere"] {
  return stored.filter((m) => m.session !== session).map((m) => ({ id: m.id, session: m.session }));
}

/**
 * The records to append (redacted and checked, in order): those neither `known` (stored already) nor `dead`
 * (tombstoned), each id once. Counts added, existing, tombstoned and invalid into `result`.
 */
export function freshRecords(
  records: readonly MessageRecord[],
  known: ReadonlySet<string>,
  dead: ReadonlySet<string>,
  o: ImportWriteOptions,
  maxBytes: number,
  result: ImportWriteResult,
): MessageRecord[] {
  const seen = new Set<string>();
  const out: MessageRecord[] = [];
  for (const r of records) {
    if (dead.has(r.id)) {
      result.tombstoned++;
      continue;
    }
    if (known.has(r.id) || seen.has(r.id)) {
      result.existing++;
      continue;
    }
    seen.add(r.id);
    const rec = prepare(r, o, maxBytes, result);
    if (rec) out.push(rec);
  }
  result.added = out.length;
  return out;
}

/**
 * Stored messages of this session whose text the records extend: a `continues` record's text appended (once),
 * or a record whose whole text is the stored text plus more blocks (a streamed reply read again from the start).
 */
export function grownMessages(
  storedMessages: readonly StoredMessage[],
  session: string,
  records: readonly MessageRecord[],
  o: ImportWriteOptions,
  maxBytes: number,
  result: ImportWriteResult,
): { id: string; content: string }[] {
  const stored = new Map(storedMessages.filter((m) => m.session === session).map((m) => [m.id, m.content] as const));
  const out: { id: string; content: string }[] = [];
  for (const r of records) {
    const before = stored.get(r.id);
    if (before === undefined || before === r.content) continue;
    const scratch: ImportWriteResult = { ...result, invalid: [], redacted: 0 };
    const rec = prepare(r, o, maxBytes, scratch);
    if (!rec) continue;
    let content: string | undefined;
    if (o.continues?.has(r.id)) {
      const part = rec.content;
      const has = before === part || before.endsWith(`\n\n${part}`) || before.includes(`\n\n${part}\n\n`);
      if (!has && !before.startsWith(`${part}\n\n`)) content = `${before}\n\n${part}`;
    } else if (rec.content.startsWith(`${before}\n\n`)) content = rec.content;
    if (content === undefined) continue;
    try {
      checkNewMessage({ ...rec, content }, maxBytes);
    } catch (err) {
      result.invalid.push({ id: r.id, reason: describeError(err) });
      continue;
    }
    result.redacted += scratch.redacted;
    out.push({ id: r.id, content });
  }
  return out;
}

/** Give stored messages their grown text: history.json (when they are still there) and the archive in one step. */
function extendMessages(
  ctx: MemoryContext,
  session: string,
  growth: readonly { id: string; content: string }[],
): number {
  const file = ctx.paths.history(session);
  return withHomeLock(
    ctx,
    () => {
      // A file changed behind memvoy's back (an old one put back) is first rewritten as the archive has it.
      if (existsSync(file)) rollForward(ctx, session, { quick: true });
      const next = new Map(growth.map((g) => [g.id, g.content] as const));
      const doc = readHistory(file);
      let inFile = false;
      const records = doc.records.map((r) => {
        const content = next.get(r.id);
        if (content === undefined) return r;
        inFile = true;
        return { ...r, content };
      });
      const staged = inFile ? stageHistory(file, records, doc.style) : undefined;
      let n = 0;
      try {
        withWriteLock(ctx.db, () => {
          for (const g of growth) if (replaceMessageContent(ctx.db, session, g.id, g.content)) n++;
          // The file stays as much in agreement with the archive as it was (records left unseen stay to adopt).
          if (staged && doc.stamp !== undefined && historyStampOf(ctx.db, session) === doc.stamp)
            saveHistoryStamp(ctx.db, session, staged.stamp());
        });
      } catch (err) {
        staged?.discard();
        throw err;
      }
      staged?.commit();
      return n;
    },
    session,
  );
}

/** The record as it will be stored (redacted), or undefined with the reason when the message checks refuse it. */
function prepare(
  r: MessageRecord,
  o: ImportWriteOptions,
  maxBytes: number,
  result: ImportWriteResult,
): MessageRecord | undefined {
  let content = r.content;
  if (o.redact !== false) {
    const red = redactSecrets(content);
    if (red.kinds.length > 0) result.redacted++;
    content = red.text;
  }
  const rec: MessageRecord = { id: r.id, role: r.role, content, sendAt: r.sendAt };
  if (r.sender !== undefined) rec.sender = r.sender;
  try {
    checkNewMessage(rec, maxBytes, "message", o.asStored === true);
    return rec;
  } catch (err) {
    result.invalid.push({ id: r.id, reason: describeError(err) });
    return undefined;
  }
}
