// Hybrid search: reciprocal rank fusion of keyword search, bm25 over the recent tier and semantic
// similarity. The union is kept, so a message only one side finds still surfaces; without vectors
// (none yet, another embedder's, an unreachable server) it degrades to the keyword sides.
import type { StoredMessage } from "../shared/message.ts";
import { rankRecent } from "../storage/sqlite/semantic-queries.ts";
import type { Db } from "../storage/sqlite/db.ts";
import { expandHits } from "./expand.ts";
import { reciprocalRankFusion, type RankedList } from "./fusion.ts";
import { keywordSearch } from "./keyword.ts";
import { ftsAllQuery, ftsAnyQuery, queryTerms } from "./query-terms.ts";
import { scopeFilter, type SearchHit, type SearchResult } from "./search-types.ts";
import { focusFor, semanticRanking, statusNotes, type SemanticOptions, type SemanticSource } from "./semantic.ts";
import { makeSnippet } from "./snippet.ts";
import type { QueryFocus } from "./participants.ts";

/** RRF constants, chosen on the LoCoMo dev split (bench/locomo.ts). */
export const HYBRID = { k: 10, keyword: 1, lexical: 1, semantic: 1, lexicalOtherSender: 0.7 };

type Candidate = { message: StoredMessage; source: SearchHit["source"] };

export async function hybridSearch(
  db: Db,
  src: SemanticSource | { unavailable: string },
  o: SemanticOptions,
): Promise<SearchResult> {
  const limit = Math.max(1, o.limit ?? 10);
  const depth = Math.max(limit * 4, 50);
  const focus = focusFor(db, o.query, o.session);
  const lists: RankedList<Candidate>[] = [];

  const keyword = keywordSearch(db, {
    query: o.query,
    session: o.session,
    range: o.range,
    filter: o.filter,
    limit: depth,
    now: o.now,
    rankRecent: false,
    typing: o.typing,
  });
  lists.push({ weight: HYBRID.keyword, items: keyword.map((h) => ({ message: h.message, source: h.source })) });
  lists.push({
    weight: HYBRID.lexical,
    items: lexicalRecent(db, focus, o, depth).map((message) => ({ message, source: "recent" as const })),
  });

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
      lists.push({
        weight: HYBRID.semantic,
        items: ranked.map((r) => ({ message: r.message, source: "semantic" as const })),
      });
    }
  }

  const fused = reciprocalRankFusion(lists, (c) => c.message.id, HYBRID.k).slice(0, limit);
  // Keyword sides name the tier a hit came from; "semantic" only when vectors alone found it.
  const sourceOf = new Map<string, SearchHit["source"]>();
  for (const list of lists)
    for (const c of list.items)
      if (!sourceOf.has(c.message.id) || sourceOf.get(c.message.id) === "semantic")
        sourceOf.set(c.message.id, c.source);
  const recent = fused.filter((f) => f.item.message.recent).map((f) => f.item.message);
  const expanded = expandHits(db, recent);
  const runs = new Map(recent.map((m, i) => [m.id, expanded[i]!] as const));
  const terms = queryTerms(o.query);
  const hits: SearchHit[] = fused.map((f, i) => {
    const m = f.item.message;
    const s = makeSnippet(m.content, terms);
    const hit: SearchHit = {
      message: m,
      source: sourceOf.get(m.id)!,
      score: f.score,
      snippet: s.text,
      highlights: s.highlights,
      rank: i + 1,
    };
    const run = runs.get(m.id);
    if (run) hit.context = run;
    return hit;
  });
  const result: SearchResult = { hits, notes };
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
  const scored = rows.map((r) => ({
    m: r.message,
    s: -r.rank * (focus.sender !== undefined && r.message.sender !== focus.sender ? HYBRID.lexicalOtherSender : 1),
  }));
  return scored.sort((a, b) => b.s - a.s).map((x) => x.m);
}
