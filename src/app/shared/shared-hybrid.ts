// Hybrid in shared mode: the keyword, recent-tier and semantic lists fused by reciprocal rank, each hit kept and
// scored by its calibrated relevance as the embedded hybrid does (search/hybrid.ts): the larger of its semantic score,
// the share of the query's terms it holds and its neighbour's share, in [0, 1] (the terms weigh the same here).
import type { StoredMessage } from "../../shared/message.ts";
import { coverage, type TermWeights } from "../../search/coverage.ts";
import { hybridOrder, reciprocalRankFusion } from "../../search/fusion.ts";
import { HYBRID, lexicalOrder } from "../../search/hybrid.ts";
import { CONTEXT, inContext, type InContext } from "../../search/context.ts";
import type { QueryFocus } from "../../search/participants.ts";
import { holdsSymbols, querySymbols } from "../../search/symbols.ts";
import { textQueryAll, textQueryAny } from "../../search/text-query.ts";
import type { MessageFilter } from "../../shared/time-filter.ts";
import type { SharedContext } from "./shared-context.ts";
import { ftsPhrases, type QueryTerm } from "../../search/query-terms.ts";
import { timeFactor, type TimeSpan } from "../../search/time-hints.ts";

type Ranked = { message: StoredMessage; score: number };

/** The query's content terms, each weighing one. */
export function evenWeights(terms: readonly QueryTerm[]): TermWeights {
  const phrases = ftsPhrases(terms).filter((p) => p.kind !== "prefix");
  return { phrases, weights: phrases.map(() => 1), total: phrases.length };
}

export interface HybridLists {
  keyword: readonly Ranked[];
  /** The recent messages holding any term, with the neighbours that lent them shares (hybrid.ts lexicalRecent). */
  lexical: readonly InContext[];
  /** Every semantic candidate with its calibrated score, under min_score too. */
  semantic: readonly Ranked[];
  minScore: number;
  terms: TermWeights;
  /** The query holds symbol pieces (every keyword hit holds them). */
  symbols: boolean;
  /** The query names someone or something no message mentions: a lexical hit must hold half its terms. */
  unknownName: boolean;
  limit: number;
  /** The span of time the query names: hits outside it rank lower (time-hints.ts). */
  when?: TimeSpan;
}

/** The best `limit` hits, each with its relevance as its score. */
export function fuseHybrid(l: HybridLists): Ranked[] {
  const semantic = new Map(l.semantic.map((r) => [r.message.id, r.score]));
  const lexicalSides = new Set([...l.keyword, ...l.lexical].map((r) => r.message.id));
  const lent = new Map(l.lexical.map((c) => [c.message.id, c.from] as const));
  // A recent row the keyword side found holds the terms as substrings (the spec's match there), inside a longer
  // word too, as in the embedded hybrid.
  const substrings = new Set(l.keyword.filter((r) => r.message.recent).map((r) => r.message.id));
  const relevance = new Map<string, { sem: number; cov: number; score: number }>();
  const fused = reciprocalRankFusion(
    [
      { items: l.keyword, weight: HYBRID.keyword },
      { items: l.lexical, weight: HYBRID.lexical },
      { items: l.semantic.filter((r) => r.score >= l.minScore), weight: HYBRID.semantic },
    ],
    (r) => r.message.id,
    HYBRID.k,
  )
    .filter((f) => {
      const id = f.item.message.id;
      const sem = semantic.get(id) ?? 0;
      const cov = l.terms.total > 0 ? coverage(f.item.message.content, l.terms, substrings.has(id)) : l.symbols ? 1 : 0;
      // A message next to one that holds the terms stands by that one's coverage (at the context share).
      const near = Math.max(0, ...(lent.get(id) ?? []).map((n) => coverage(n.content, l.terms)));
      const lexicalOk = (c: number) => c > 0 && (!l.unknownName || c >= HYBRID.coverage);
      if (sem < l.minScore && !lexicalOk(cov) && !lexicalOk(near)) return false;
      relevance.set(id, { sem, cov, score: Math.max(sem, cov, CONTEXT.prev * near) });
      return true;
    })
    .map((f) => ({
      item: f.item,
      fused:
        (f.score + HYBRID.relevance * relevance.get(f.item.message.id)!.score) *
        timeFactor(l.when, f.item.message.sendAt),
    }))
    .sort((a, b) => b.fused - a.fused);
  const ordered = hybridOrder(fused, relevance, (id) => !lexicalSides.has(id), HYBRID.strong);
  return ordered.slice(0, l.limit).map((f) => ({
    message: f.item.message,
    score: Math.round(relevance.get(f.item.message.id)!.score * 1000) / 1000,
  }));
}

/**
 * The embedded hybrid's third list (hybrid.ts lexicalRecent): recent messages holding any of the query's terms, best
 * first by the archive's ranking, each with its recent neighbours' shares (context.ts: a reply next to a question
 * that holds the terms comes in too), preferring the participant the query names.
 */
export async function lexicalRecent(
  ctx: SharedContext,
  o: { query: string; session?: string; filter: MessageFilter; focus: QueryFocus },
  /** The terms of the query without the participant, their other spellings marked (markHeldFolds). */
  terms: readonly QueryTerm[],
  depth: number,
): Promise<InContext[]> {
  const q = textQueryAny(terms) ?? textQueryAll(terms);
  if (!q) return [];
  const rows = await ctx.archive.searchText(q, {
    ...(o.session !== undefined ? { session: o.session } : {}),
    filter: o.filter,
    limit: depth,
    recent: true,
  });
  if (rows.length === 0) return [];
  const near = inContext(rows, o.filter, await ctx.archive.recentNeighbours(rows.map((r) => r.message.seq)));
  const symbols = querySymbols(o.query);
  return lexicalOrder(
    near.filter((c) => holdsSymbols(c.message.content, symbols)),
    o.focus,
    depth,
  );
}
