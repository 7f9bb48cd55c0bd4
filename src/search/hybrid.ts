// Hybrid search: reciprocal rank fusion of keyword search, bm25 over the recent tier and semantic
// similarity, lifted by each hit's calibrated relevance. The union is kept, so a message only one side
// finds still surfaces, if it is relevant enough: its calibrated semantic score reaches min_score, or it
// holds enough of the query's (rarity-weighted) terms. Without vectors (none yet, another embedder's, an
// unreachable server) it degrades to the keyword sides.
import { describeError } from "../shared/describe-error.ts";
import type { StoredMessage } from "../shared/message.ts";
import type { Db } from "../storage/sqlite/db.ts";
import { NO_TERMS, unknownNamesReason } from "./empty-reason.ts";
import { expandHits } from "./expand.ts";
import { hybridOrder, reciprocalRankFusion, type RankedList } from "./fusion.ts";
import { keywordSearch, rankRecentRows } from "./keyword.ts";
import { ftsAllQuery, ftsAnyQuery, queryTerms } from "./query-terms.ts";
import { coverage, noSharedWord, termWeights, unknownNames } from "./coverage.ts";
import { RELEVANCE } from "./relevance.ts";
import { holdsSymbols, querySymbols, unspacedWords } from "./symbols.ts";
import { scopeFilter, type SearchHit, type SearchResult } from "./search-types.ts";
import { focusFor, semanticRanking, statusNotes, type SemanticOptions, type SemanticSource } from "./semantic.ts";
import { makeSnippet } from "./snippet.ts";
import { senderFactor, type QueryFocus } from "./participants.ts";
import { withContext, CONTEXT, type InContext } from "./context.ts";
import { timeFactor, timeHint } from "./time-hints.ts";

/**
 * RRF constants, chosen on the LoCoMo dev split (bench/locomo.ts). `coverage`: the weighted share of the
 * query's terms a message needs to stay without semantic support when the query names what this memory
 * has never seen (else any of its terms will do); `relevance`: how much a hit's calibrated
 * relevance adds to its fused rank score; `strong`: semantic-only hits at least this relevant may rank
 * above a message holding every query term.
 */
export const HYBRID = {
  k: 10,
  keyword: 1,
  lexical: 1,
  semantic: 1,
  lexicalOtherSender: 0.7,
  coverage: 0.5,
  relevance: 0.1,
  strong: 0.65,
};

type Candidate = { message: StoredMessage; source: SearchHit["source"]; score?: number };

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
  await between(o.signal);
  const lexical = lexicalRecent(db, focus, o, depth);
  lists.push({
    weight: HYBRID.lexical,
    items: lexical.map((c) => ({ message: c.message, source: "recent" as const })),
  });

  const notes: string[] = [];
  let notIndexed: number | undefined;
  let reindexNeeded: boolean | undefined;
  // Without vectors, only lexical relevance can keep a hit.
  let minScore = 1.01;
  if ("unavailable" in src) notes.push(`semantic side unavailable (${src.unavailable}): keyword results only`);
  else {
    notIndexed = src.notIndexed;
    reindexNeeded = src.reindexNeeded;
    notes.push(...statusNotes(src));
    if (src.table) {
      await between(o.signal);
      try {
        const ranked = await semanticRanking(db, src, o, focus, depth, 0);
        lists.push({
          weight: HYBRID.semantic,
          items: ranked.map((r) => ({ message: r.message, source: "semantic" as const, score: r.score })),
        });
        minScore = src.minScore;
      } catch (err) {
        // The embedder failing on the query (down, refusing, too slow) leaves the keyword sides.
        o.signal?.throwIfAborted();
        notes.push(`semantic side unavailable (${describeError(err)}): keyword results only`);
      }
    }
  }

  // Keyword sides name the tier a hit came from; "semantic" only when vectors alone found it.
  const sourceOf = new Map<string, SearchHit["source"]>();
  const foundBy = new Map<string, Set<SearchHit["source"]>>();
  const semScore = new Map<string, number>();
  for (const list of lists)
    for (const c of list.items) {
      if (!sourceOf.has(c.message.id) || sourceOf.get(c.message.id) === "semantic")
        sourceOf.set(c.message.id, c.source);
      foundBy.set(c.message.id, (foundBy.get(c.message.id) ?? new Set()).add(c.source));
      if (c.score !== undefined) semScore.set(c.message.id, c.score);
    }
  const tw = termWeights(db, focus.text);
  const substringsFound = new Set(keyword.filter((h) => h.source === "recent").map((h) => h.message.id));
  const lent = new Map(lexical.map((c) => [c.message.id, c.from] as const));
  const unknownNamed = unknownNames(db, focus.text);
  const unknown = unknownNamed.length > 0 ? RELEVANCE.unknownName : 1;
  const symbols = querySymbols(o.query);
  const when = timeHint(o.query, o.now);
  const relevance = new Map<string, { sem: number; cov: number; score: number }>();
  const fused = reciprocalRankFusion(lists, (c) => c.message.id, HYBRID.k)
    .filter((f) => {
      const id = f.item.message.id;
      if (!holdsSymbols(f.item.message.content, symbols)) return false;
      const sem = semScore.get(id) ?? 0;
      // A query of symbols alone: holding them verbatim is the whole lexical match. A recent row the keyword side
      // found holds the terms as substrings (the spec's match there), inside a longer word too.
      const cov =
        tw.total > 0 ? coverage(f.item.message.content, tw, substringsFound.has(id)) : symbols.length > 0 ? 1 : 0;
      // A message next to one that holds the terms stands by that one's coverage (at the context share).
      const near = Math.max(0, ...(lent.get(id) ?? []).map((n) => coverage(n.content, tw)));
      // A query about another memory keeps only messages that hold much of it.
      const lexicalOk = (c: number) => c > 0 && (unknown === 1 || c >= HYBRID.coverage);
      if (sem < minScore && !lexicalOk(cov) && !lexicalOk(near)) return false;
      relevance.set(id, { sem, cov, score: Math.max(sem, cov, CONTEXT.prev * near) });
      return true;
    })
    .map((f) => ({
      ...f,
      score:
        (f.score + HYBRID.relevance * relevance.get(f.item.message.id)!.score) *
        timeFactor(when, f.item.message.sendAt),
    }))
    .sort((a, b) => b.score - a.score);
  const ordered = hybridOrder(fused, relevance, (id) => sourceOf.get(id) === "semantic", HYBRID.strong).slice(0, limit);
  const recent = ordered.filter((f) => f.item.message.recent).map((f) => f.item.message);
  const expanded = expandHits(db, recent);
  const runs = new Map(recent.map((m, i) => [m.id, expanded[i]!] as const));
  const terms = queryTerms(o.query);
  // A Thai (Lao, Myanmar, Khmer) word is shown and marked where its run holds it, as a symbol piece is.
  const shown = [...symbols, ...unspacedWords(o.query)];
  const hits: SearchHit[] = ordered.map((f, i) => {
    const m = f.item.message;
    const s = makeSnippet(m.content, terms, undefined, shown, foundBy.get(m.id)!.has("recent"));
    const hit: SearchHit = {
      message: m,
      source: sourceOf.get(m.id)!,
      foundBy: [...foundBy.get(m.id)!],
      score: Math.round(relevance.get(m.id)!.score * 1000) / 1000,
      snippet: s.text,
      highlights: s.highlights,
      rank: i + 1,
    };
    const run = runs.get(m.id);
    if (run) hit.context = run;
    return hit;
  });
  const result: SearchResult = { hits, notes };
  if (hits.length === 0)
    result.emptyReason = hybridEmptyReason(
      unknownNamed,
      minScore < 1,
      unknownNamed.length > 0 && noSharedWord(db, focus.text),
    );
  if (notIndexed !== undefined) result.notIndexed = notIndexed;
  if (reindexNeeded !== undefined) result.reindexNeeded = reindexNeeded;
  return result;
}

/** With a signal (an interactive caller): let other events run between the synchronous steps; stop once aborted. */
async function between(signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return;
  await new Promise((resolve) => setImmediate(resolve));
  signal.throwIfAborted();
}

/**
 * bm25 (any content term) over the recent tier, each message with its neighbours' shares (context.ts),
 * preferring the named participant's messages; best first.
 */
function lexicalRecent(db: Db, focus: QueryFocus, o: SemanticOptions, depth: number): InContext[] {
  const scope = scopeFilter(o);
  const rows = rankRecentRows(db, focus.text, { session: o.session, ...scope }, depth);
  return lexicalOrder(withContext(db, rows, scope), focus, depth);
}

/** The lexical list's messages in context preferring the named participant's, best first (shared mode's too). */
export function lexicalOrder(near: InContext[], focus: QueryFocus, depth: number): InContext[] {
  for (const c of near) c.score *= senderFactor(focus, c.message.sender, HYBRID.lexicalOtherSender);
  // Equal scores (a message said again and again): the newest first, as keyword search orders them.
  return near.sort((a, b) => b.score - a.score || (a.message.seq > b.message.seq ? -1 : 1)).slice(0, depth);
}

/**
 * Why a hybrid answer is empty: no message holds a word of the query (`noneShared`), or a name the query gives is in
 * no message (its lexical hits then had to hold half its terms), or no term held and nothing close; `semantic`:
 * whether the semantic side answered.
 */
export function hybridEmptyReason(unknown: readonly string[], semantic: boolean, noneShared: boolean): string {
  if (unknown.length > 0 && !noneShared) {
    const close = semantic ? " or is close enough in meaning" : "";
    return `${unknownNamesReason(unknown)}, and none holds most of the query's terms${close}`;
  }
  return semantic ? `${NO_TERMS} and nothing is semantically close` : NO_TERMS;
}
