// Writing imported messages: given ids and times (deterministic per source record), existing ids skipped,
// secrets redacted unless told otherwise; history.json and the archive change together, as in the write path.
import { describeError } from "../../shared/describe-error.ts";
import { existsSync } from "node:fs";
import { ensureDir } from "../../shared/atomic-write.ts";
import type { MessageRecord } from "../../shared/message.ts";
import { assertSessionId } from "../../shared/session-id.ts";
import { readHistory, serializeRecord, stageHistory } from "../../storage/history/history-file.ts";
import { archiveBefore, insertMessages, knownIds, seqOfMessage } from "../../storage/sqlite/messages-repo.ts";
import { upsertSessionMeta, type MetaUpdate } from "../../storage/sqlite/session-meta-repo.ts";
import { withWriteLock } from "../../storage/sqlite/write-lock.ts";
import { compactionCut } from "../compaction.ts";
import { redactSecrets } from "../error-memory/redact.ts";
import { withHomeLock } from "../home-lock.ts";
import type { MemoryContext } from "../memory-context.ts";
import { checkNewMessage } from "../message-input.ts";
import { unarchived } from "../write-path.ts";

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
  const result: ImportWriteResult = { added: 0, existing: 0, invalid: [], redacted: 0 };
  const known = knownIds(ctx.db, records.map((r) => r.id));
  const seen = new Set<string>();
  const fresh: MessageRecord[] = [];
  for (const r of records) {
    if (known.has(r.id) || seen.has(r.id)) {
      result.existing++;
      continue;
    }
    seen.add(r.id);
    let content = r.content;
    if (o.redact !== false) {
      const red = redactSecrets(content);
      if (red.kinds.length > 0) result.redacted++;
      content = red.text;
    }
    const rec: MessageRecord = { id: r.id, role: r.role, content, sendAt: r.sendAt };
    if (r.sender !== undefined) rec.sender = r.sender;
    try {
      checkNewMessage(rec, ctx.config.limits.max_message_bytes);
    } catch (err) {
      result.invalid.push({ id: r.id, reason: describeError(err) });
      continue;
    }
    fresh.push(rec);
  }
  result.added = fresh.length;
  if (o.dryRun) return result;
  if (fresh.length === 0) {
    if (meta) withWriteLock(ctx.db, () => upsertSessionMeta(ctx.db, session, meta, ctx.now()));
    return result;
  }
  const dir = ctx.paths.session(session);
  if (!existsSync(dir)) ensureDir(dir);
  withHomeLock(ctx, () => {
    const file = ctx.paths.history(session);
    const doc = readHistory(file);
    const missing = unarchived(ctx, session, doc);
    const all = doc.records.concat(fresh);
    const json = new Map(fresh.map((r) => [r, serializeRecord(r)] as const));
    let bytes = doc.bytes;
    for (const text of json.values()) bytes += Buffer.byteLength(text) + 2;
    const cut = compactionCut(all, bytes, ctx.config.limits.max_history_bytes);
    const kept = cut > 0 ? all.slice(cut) : all;
    const staged = stageHistory(file, kept, json);
    try {
      withWriteLock(ctx.db, () => {
        const now = ctx.now();
        insertMessages(ctx.db, session, missing, now);
        insertMessages(ctx.db, session, fresh, now);
        if (meta) upsertSessionMeta(ctx.db, session, meta, now);
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
  });
  return result;
}
