// Record a tool error and its fix: redact, normalise the signature, merge with the same tool + signature
// (newest text, fix and outcome; count bumped; TTL refreshed) or insert; then embed it, best effort.
import { describeAfterSome } from "../../shared/describe-error.ts";
import { NS_PER_DAY } from "../../shared/time.ts";
import {
  deleteErrorRows,
  findBySignature,
  insertErrorRow,
  markEmbedded,
  mergeErrorRow,
  resignErrors,
  type ErrorFields,
  type ErrorRow,
} from "../../storage/sqlite/error-memory-repo.ts";
import { withWriteLock } from "../../storage/sqlite/write-lock.ts";
import type { MemoryContext } from "../memory-context.ts";
import { newErrorId } from "./error-ids.ts";
import { checkRecordInput } from "./error-input.ts";
import { recordEmbedder, toErrorRecord, type ErrorRecord } from "./error-record.ts";
import { errorEmbedder, errorVectorStore } from "./error-vectors.ts";
import { redactSecrets, secretValues } from "../../shared/redact.ts";
import { errorSignature, SIGNATURE_RULES } from "./signature.ts";
import { getEmbedState, setEmbedState } from "../../storage/sqlite/embed-queue-repo.ts";

export interface RecordErrorResult {
  record: ErrorRecord;
  /** true when an existing record of the same tool and error signature was updated. */
  merged: boolean;
  /** Kinds of secret that were redacted from the input. */
  redacted: string[];
  /** Things the caller should know, e.g. that embedding was deferred. */
  notes: string[];
}

/** A slow embedding server delays `errors record` at most this long; the record is embedded later. */
const RECORD_EMBED_TIMEOUT_MS = 5000;

export function errorTtlNs(ctx: Pick<MemoryContext, "config">): bigint {
  return BigInt(ctx.config.error_memory.ttl_days) * NS_PER_DAY;
}

/**
 * The redacted fields of a record input, its signature set; `kinds` names the secrets redacted. `keys`: the values
 * of the configured key variables (secretValues), taken out wherever they appear.
 */
export function errorFieldsOf(raw: unknown, keys: readonly string[]): { fields: ErrorFields; kinds: string[] } {
  const kinds = new Set<string>();
  // A secret found in one field (the URL's password in the error) is redacted in the others too (the cause).
  const plain = checkRecordInput(raw);
  const found = [plain.tool, plain.error, plain.cause ?? "", plain.fix].flatMap((s) => redactSecrets(s, keys).values);
  const clean = (s: string) => {
    const r = redactSecrets(s, [...keys, ...found]);
    r.kinds.forEach((k) => kinds.add(k));
    return r.text;
  };
  const input = checkRecordInput(raw, clean);
  const fields: ErrorFields = {
    tool: clean(input.tool),
    error: clean(input.error),
    cause: input.cause === null ? null : clean(input.cause),
    fix: clean(input.fix),
    outcome: input.outcome,
    keywords: input.keywords,
    signature: "",
  };
  fields.signature = errorSignature(fields.error);
  return { fields, kinds: [...kinds] };
}

/** A new sighting merged into a live record: its cause kept when none is given, keywords united. */
export function mergedFields(existing: ErrorRow, fields: ErrorFields): ErrorFields {
  return {
    ...fields,
    cause: fields.cause ?? existing.cause,
    keywords: [...new Set([...existing.keywords, ...fields.keywords])],
  };
}

export async function recordError(ctx: MemoryContext, raw: unknown): Promise<RecordErrorResult> {
  const { fields, kinds } = errorFieldsOf(raw, secretValues(ctx.env ?? process.env));
  const now = ctx.now();
  const expiresAt = now + errorTtlNs(ctx);

  const { row, merged } = withWriteLock(ctx.db, () => {
    resignIfRulesChanged(ctx);
    const existing = findBySignature(ctx.db, fields.tool, fields.signature);
    if (existing && existing.expiresAt > now) {
      const merge = mergedFields(existing, fields);
      return {
        row: mergeErrorRow(ctx.db, existing.seq, merge, now, expiresAt, existing.error !== fields.error),
        merged: true,
      };
    }
    // An expired record of the same error is gone for every reader: a fresh record replaces it.
    if (existing) deleteErrorRows(ctx.db, [existing], now);
    return { row: insertErrorRow(ctx.db, newErrorId(ctx.db), fields, now, expiresAt), merged: false };
  });

  const notes: string[] = [];
  let embeddedBy = row.embeddedBy;
  if (embeddedBy === null) {
    try {
      embeddedBy = await embedRecord(ctx, row, merged);
    } catch (err) {
      notes.push(
        `recorded without a vector for now (it is embedded at a later search or by the daemon): ${describeAfterSome(err)}`,
      );
    }
  }
  return { record: toErrorRecord({ ...row, embeddedBy }, recordEmbedder(ctx)), merged, redacted: kinds, notes };
}

/** The archive key holding the signature rules its records were signed with. */
export const RULES_KEY = "error_signature_rules";

/**
 * Records signed by an older memvoy, whose rules differed, are signed again with today's (once, under the writer
 * lock): else the same error recorded again would miss its record and add a duplicate.
 */
function resignIfRulesChanged(ctx: MemoryContext): void {
  if (getEmbedState(ctx.db, RULES_KEY) === SIGNATURE_RULES) return;
  resignErrors(ctx.db, errorSignature);
  setEmbedState(ctx.db, RULES_KEY, SIGNATURE_RULES);
}

/** Embed one record's error text; `replace` when an older vector of it may exist (a merge). */
async function embedRecord(ctx: MemoryContext, row: ErrorRow, replace: boolean): Promise<string | null> {
  const embedder = await errorEmbedder(ctx);
  const [vector] = await embedder.embed([row.error], AbortSignal.timeout(RECORD_EMBED_TIMEOUT_MS), "document");
  const store = await errorVectorStore(ctx);
  await store.upsert(embedder.id, embedder.dim, [{ id: row.id, vector: vector! }], { replace });
  withWriteLock(ctx.db, () => markEmbedded(ctx.db, [row], embedder.id));
  return embedder.id;
}
