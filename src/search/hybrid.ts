// Hybrid search: reciprocal rank fusion of keyword search, bm25 over the recent tier and semantic
// similarity. The union is kept, so a message only one side finds still surfaces; without vectors
// (none yet, another embedder's, an unreachable server) it degrades to the keyword sides.
import type { StoredMessage } from "../shared/message.ts";
import { rankRecent } from "../storage/sqlite/semantic-queries.ts";
import type { Db } from "../storage/sqlite/db.ts";
import { expandHits } from "./expand.ts";
import { reciprocalRankFusion, type RankedList } from "./fusion.ts";
import { keywordSearch } from "./keyword.ts";
import { ftsAllQuery, ftsAnyQuery, queryTerms, type QueryTerm } from "./query-terms.ts";
import { scopeFilter, type SearchHit, type SearchResult } from "./search-types.ts";
import { focusFor, semanticRanking, statusNotes, type SemanticOptions, type SemanticSource } from "./semantic.ts";
import { findMatches, makeSnippet } from "./snippet.ts";
import type { QueryFocus } from "./participants.ts";

/** RRF constants, chosen on the LoCoMo dev split (bench/locomo.ts). */
export const HYBRID = { k: 10, keyword: 1, lexical: 1, semantic: 1, lexicalOtherSender: 0.7 };

type Candidate = { message: StoredMessage; source: SearchHit["source"]; score?: number };

/** A semantic-only hit below this calibrated score never outranks a message that holds every query term. */
export const STRONG_SEMANTIC = 0.65;

export async function hybridSearch(db: Db, src: SemanticSource | { unavailable: string }, o: SemanticOptions): Promise<SearchResult> {
  const limit = Math.max(1, o.limit ?? 10);
  const depth = Math.max(limit * 4, 50);
  const focus = focusFor(db, o.query, o.session);
  const lists: RankedList<Candidate>[] = [];

  const keyword = keywordSearch(db, { query: o.query, session: o.session, range: o.range, filter: o.filter, limit: depth, now: o.now, rankRecent: false });
  lists.push({ weight: HYBRID.keyword, items: keyword.map((h) => ({ message: h.message, source: h.source })) });
  lists.push({ weight: HYBRID.lexical, items: lexicalRecent(db, focus, o, depth).map((message) => ({ message, source: "recent" as const })) });

  const notes: string[] = [];
  let notIndexed: number | undefined;
  let reindexNeeded: boolean | undefined;
  if ("unavailable" in src) notes.push(`semantic side unavailable (${src.unavailable}): keyword results only`);
  else {
    notIndexed = src.notIndexed;
    reindexNeeded = src.reindexNeeded;
    notes.push(...statusNotes(src));
    if (src.table) {
      const ranked = await semanticRanking(db, src, o, focus, depth);
      lists.push({ weight: HYBRID.semantic, items: ranked.map((r) => ({ message: r.message, source: "semantic" as const, score: r.score })) });
    }
  }

  const terms = queryTerms(o.query);
  // Keyword sides name the tier a hit came from; "semantic" only when vectors alone found it.
  const sourceOf = new Map<string, SearchHit["source"]>();
  const foundBy = new Map<string, Set<SearchHit["source"]>>();
  const semScore = new Map<string, number>();
  for (const list of lists)
    for (const c of list.items) {
      if (!sourceOf.has(c.message.id) || sourceOf.get(c.message.id) === "semantic") sourceOf.set(c.message.id, c.source);
      foundBy.set(c.message.id, (foundBy.get(c.message.id) ?? new Set()).add(c.source));
      if (c.source === "semantic" && c.score !== undefined) semScore.set(c.message.id, c.score);
    }
  const allTerms = (m: StoredMessage) => holdsEveryTerm(m.content, terms);
  const weak = (id: string, m: StoredMessage) => sourceOf.get(id) === "semantic" && (semScore.get(id) ?? 0) < STRONG_SEMANTIC && !allTerms(m);
  const ranked = reciprocalRankFusion(lists, (c) => c.message.id, HYBRID.k);
  // A message holding every term verbatim or by stem is never below a weak semantic-only hit.
  const anyAll = ranked.some((f) => sourceOf.get(f.item.message.id) !== "semantic" && allTerms(f.item.message));
  const fused = (anyAll ? [...ranked.filter((f) => !weak(f.item.message.id, f.item.message)), ...ranked.filter((f) => weak(f.item.message.id, f.item.message))] : ranked).slice(0, limit);
  const recent = fused.filter((f) => f.item.message.recent).map((f) => f.item.message);
  const expanded = expandHits(db, recent);
  const runs = new Map(recent.map((m, i) => [m.id, expanded[i]!] as const));
  const hits: SearchHit[] = fused.map((f, i) => {
    const m = f.item.message;
    const s = makeSnippet(m.content, terms);
    const hit: SearchHit = { message: m, source: sourceOf.get(m.id)!, foundBy: [...foundBy.get(m.id)!], score: f.score, snippet: s.text, highlights: s.highlights, rank: i + 1 };
    const run = runs.get(m.id);
    if (run) hit.context = run;
    return hit;
  });
  const result: SearchResult = { hits, notes };
  if (hits.length === 0) result.emptyReason = "no message holds the query's terms and nothing is semantically close";
  if (notIndexed !== undefined) result.notIndexed = notIndexed;
  if (reindexNeeded !== undefined) result.reindexNeeded = reindexNeeded;
  return result;
}

/** bm25 (any content term) over the recent tier, preferring the named participant's messages. */
function lexicalRecent(db: Db, focus: QueryFocus, o: SemanticOptions, depth: number): StoredMessage[] {
  const terms = queryTerms(focus.text);
  const match = ftsAnyQuery(terms) ?? ftsAllQuery(terms);
  if (!match) return [];
  const rows = rankRecent(db, match, { session: o.session, ...scopeFilter(o) }, depth);
  // An any-term match must hold at least half of the content terms: one shared common word is noise.
  const content = terms.filter((t) => !t.stop);
  const need = Math.ceil(content.length / 2);
  const scored = rows.filter((r) => content.length < 2 || countTerms(r.message.content, content) >= need).map((r) => ({
    m: r.message,
    s: -r.rank * (focus.sender !== undefined && r.message.sender !== focus.sender ? HYBRID.lexicalOtherSender : 1),
  }));
  return scored.sort((a, b) => b.s - a.s).map((x) => x.m);
}

/** How many of the terms the text holds (same stem, or the term as a prefix, as snippets highlight them). */
function countTerms(content: string, terms: readonly QueryTerm[]): number {
  let n = 0;
  for (const t of terms) if (findMatches(content, [t]).length > 0) n++;
  return n;
}

function holdsEveryTerm(content: string, terms: readonly QueryTerm[]): boolean {
  const content_ = terms.filter((t) => !t.stop);
  const use = content_.length ? content_ : terms;
  return use.length > 0 && countTerms(content, use) === use.length;
}
