// Writing imported messages: given ids and times (deterministic per source record), existing ids skipped,
// secrets redacted unless told otherwise; history.json and the archive change together through the write path.
import { describeError } from "../../shared/describe-error.ts";
import type { MessageRecord } from "../../shared/message.ts";
import { assertSessionId } from "../../shared/session-id.ts";
import { knownIds } from "../../storage/sqlite/messages-repo.ts";
import { tombstonedIds } from "../../storage/sqlite/tombstones-repo.ts";
import { upsertSessionMeta, type MetaUpdate } from "../../storage/sqlite/session-meta-repo.ts";
import { withWriteLock } from "../../storage/sqlite/write-lock.ts";
import { redactSecrets } from "../../shared/redact.ts";
import type { MemoryContext } from "../memory-context.ts";
import { checkNewMessage } from "../message-input.ts";
import { appendRecords } from "../write-path.ts";

export interface ImportWriteOptions {
  /** Redact secrets from the content (default true; memvoy's own export format is imported as is). */
  redact?: boolean;
  /** Count what would be written, write nothing. */
  dryRun?: boolean;
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
  // The records not in the archive yet, checked again under the lock when writing (another import may run).
  const fresh = (result: ImportWriteResult): MessageRecord[] => {
    const ids = records.map((r) => r.id);
    const known = knownIds(ctx.db, ids);
    const dead = tombstonedIds(ctx.db, ids);
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
      const rec = prepare(ctx, r, o.redact !== false, result);
      if (rec) out.push(rec);
    }
    result.added = out.length;
    return out;
  };
  const result: ImportWriteResult = { added: 0, existing: 0, tombstoned: 0, invalid: [], redacted: 0 };
  if (o.dryRun) {
    fresh(result);
    return result;
  }
  const ids = records.map((r) => r.id);
  const known = knownIds(ctx.db, ids);
  const dead = tombstonedIds(ctx.db, ids);
  if (records.every((r) => known.has(r.id) || dead.has(r.id))) {
    // Nothing new (the usual re-run): no lock, no history.json rewrite; the metadata may still change.
    result.tombstoned = records.filter((r) => dead.has(r.id)).length;
    result.existing = records.length - result.tombstoned;
    if (meta) withWriteLock(ctx.db, () => upsertSessionMeta(ctx.db, session, meta, ctx.now()));
    return result;
  }
  appendRecords(
    ctx,
    session,
    () => fresh(result),
    (now) => meta && upsertSessionMeta(ctx.db, session, meta, now),
  );
  return result;
}

/** The record as it will be stored (redacted), or undefined with the reason when the message checks refuse it. */
function prepare(
  ctx: MemoryContext,
  r: MessageRecord,
  redact: boolean,
  result: ImportWriteResult,
): MessageRecord | undefined {
  let content = r.content;
  if (redact) {
    const red = redactSecrets(content);
    if (red.kinds.length > 0) result.redacted++;
    content = red.text;
  }
  const rec: MessageRecord = { id: r.id, role: r.role, content, sendAt: r.sendAt };
  if (r.sender !== undefined) rec.sender = r.sender;
  try {
    checkNewMessage(rec, ctx.config.limits.max_message_bytes);
    return rec;
  } catch (err) {
    result.invalid.push({ id: r.id, reason: describeError(err) });
    return undefined;
  }
}
