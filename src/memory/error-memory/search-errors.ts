// Error lookup: keyword + semantic candidates fused into one ranking, from which the page [offset, offset + limit)
// is returned; every record returned (and no other) gets last_hit_at = now and expires_at = now + TTL, unless
// hit is false (a look that is no hit, as list and show). Expired records are never returned; no hit is an empty list.
import { getLiveBySeqs, touchHits } from "../../storage/sqlite/error-memory-repo.ts";
import { withWriteLockWaiting } from "../../storage/sqlite/write-lock.ts";
import type { MemoryContext } from "../memory-context.ts";
import { collectCandidates, type Candidate } from "./error-candidates.ts";
import { checkSearchInput } from "./error-input.ts";
import { recordEmbedder, toErrorRecord, type ErrorRecord } from "./error-record.ts";
import { rankErrors, type RankInput } from "./rank-errors.ts";
import { redactSecrets, secretValues } from "../../shared/redact.ts";
import { errorTtlNs } from "./record-error.ts";

export interface ErrorHit {
  record: ErrorRecord;
  /** Relevance in (0, 1], 1 = the most relevant record found. */
  score: number;
  matchedBy: ("keyword" | "semantic")[];
}

export interface ErrorSearchResult {
  hits: ErrorHit[];
  /** Live records not embedded yet (found by keyword only). */
  notEmbedded: number;
  notes: string[];
}

export async function searchErrors(ctx: MemoryContext, raw: unknown): Promise<ErrorSearchResult> {
  const o = checkSearchInput(raw);
  // The query may be embedded by a remote service: secrets never leave in it.
  const query = redactSecrets(o.query, secretValues(ctx.env ?? process.env)).text;
  const start = ctx.now();
  const narrow = o.otherTools ? undefined : o.tool;
  const pool = Math.max(50, (o.offset + o.limit) * 10);
  const c = await collectCandidates(ctx, query, start, narrow, pool);

  // Every candidate is a live record at `start`, read with its tool and outcome.
  const items = new Map<bigint, RankInput>();
  const item = (x: Candidate) => {
    let it = items.get(x.seq);
    if (!it) items.set(x.seq, (it = { seq: x.seq, tool: x.tool, outcome: x.outcome }));
    return it;
  };
  for (const k of c.keyword) item(k).keyword = k.score;
  for (const s of c.semantic) item(s).semantic = s.score;
  for (const w of c.words) {
    const it = item(w);
    it.words = w.score;
    it.wordRank = w.rank;
  }
  const ranked = rankErrors([...items.values()], c.background, o.tool).slice(o.offset, o.offset + o.limit);
  if (ranked.length === 0) return { hits: [], notEmbedded: c.notEmbedded, notes: c.notes };

  // The hit is stamped at the time of the answer; a record that expired meanwhile is not revived.
  const now = ctx.now();
  const seqs = ranked.map((r) => r.seq);
  const live = () => new Map(getLiveBySeqs(ctx.db, seqs, now).map((r) => [r.seq, r]));
  const fresh =
    o.hit === false
      ? live()
      : await withWriteLockWaiting(ctx.db, () => {
          touchHits(ctx.db, seqs, now, now + errorTtlNs(ctx));
          return live();
        });
  const embedderId = recordEmbedder(ctx);
  const hits: ErrorHit[] = [];
  for (const r of ranked) {
    const row = fresh.get(r.seq);
    if (row) hits.push({ record: toErrorRecord(row, embedderId), score: r.score, matchedBy: r.matchedBy });
  }
  return { hits, notEmbedded: c.notEmbedded, notes: c.notes };
}
