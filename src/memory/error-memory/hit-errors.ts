// Hits stamped on given error records (the ones a lookup looked at without a hit, then showed): each live one gets
// hits + 1, last_hit_at = now and expires_at = now + TTL. An id of no live record (removed or expired since) is skipped.
import { getLiveByIds, getLiveBySeqs, touchHits } from "../../storage/sqlite/error-memory-repo.ts";
import { withWriteLockWaiting } from "../../storage/sqlite/write-lock.ts";
import type { MemoryContext } from "../memory-context.ts";
import { recordEmbedder, toErrorRecord, type ErrorRecord } from "./error-record.ts";
import { errorTtlNs } from "./record-error.ts";

/** The records stamped, in the order of `ids`. */
export async function hitErrors(ctx: MemoryContext, ids: readonly string[]): Promise<ErrorRecord[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const now = ctx.now();
  const rows = await withWriteLockWaiting(ctx.db, () => {
    const seqs = getLiveByIds(ctx.db, unique, now).map((r) => r.seq);
    touchHits(ctx.db, seqs, now, now + errorTtlNs(ctx));
    return getLiveBySeqs(ctx.db, seqs, now);
  });
  const byId = new Map(rows.map((r) => [r.id, r]));
  const embedderId = recordEmbedder(ctx);
  return unique.flatMap((id) => {
    const row = byId.get(id);
    return row ? [toErrorRecord(row, embedderId)] : [];
  });
}
