// Search in shared mode: keyword hits from the archive's full-text index, semantic hits from the shared
// vectors (joined with the archive, so removed or compacted vectors never surface), and hybrid as their
// reciprocal rank fusion. The ranking pieces (query terms, snippets, calibration, fusion, the cut for a query no
// message shares a word with, names never seen, a named participant, dates in the query, neighbours' shares, the
// recent tier's verbatim quality) are the embedded mode's; the corpus statistics the embedded ranking adds (bm25
// rarity, and the content check of a query whose rarer words no message holds) are not.
import { type MessageFilter } from "../../shared/time-filter.ts";
import { resolveFilter } from "../../shared/time-filter.ts";
import { describeError } from "../../shared/describe-error.ts";
import type { StoredMessage } from "../../shared/message.ts";
import { EXPAND_AFTER, EXPAND_BEFORE, mergeRuns } from "../../search/expand.ts";
import { capitalisedNames, coverage, type TermWeights } from "../../search/coverage.ts";
import {
  contentTerms,
  markFoldedForms,
  needleOf,
  queryForms,
  queryTerms,
  type QueryTerm,
} from "../../search/query-terms.ts";
import { backgroundVectors, calibrate, contentWordsFar, defaultMinScore, RELEVANCE } from "../../search/relevance.ts";
import {
  scopeFilter,
  type SearchHit,
  type SearchOptions,
  type SearchResult,
  type TierScope,
} from "../../search/search-types.ts";
import {
  bestFirst,
  candidateDepth,
  candidateScorer,
  semanticEmptyReason,
  SENDER_IDS_MAX,
  statusNotes,
} from "../../search/semantic.ts";
import { queryFocus, senderFactor, type QueryFocus } from "../../search/participants.ts";
import { timeFactor, timeHint } from "../../search/time-hints.ts";
import { contextLenders, lendShares } from "../../search/context.ts";
import { hybridEmptyReason } from "../../search/hybrid.ts";
import { liftAboveWeak } from "../../search/fusion.ts";
import { verbatimQuality } from "../../search/keyword.ts";
import { ELSEWHERE_ROWS, elsewhere, explainEmpty, NO_TERMS, unheldPieceReason } from "../../search/empty-reason.ts";
import { makeSnippet } from "../../search/snippet.ts";
import { holdsSymbols, querySymbols } from "../../search/symbols.ts";
import { textQueryAll, textQueryAny } from "../../search/text-query.ts";
import type { TextQuery } from "../../storage/ports/archive-port.ts";
import { refuseSessionSymlinks } from "../../storage/history/no-symlink.ts";
import { VECTOR_WRITE_JOB } from "../../storage/ports/lease-turn.ts";
import type { MessageVectorTable } from "../../storage/ports/vector-port.ts";
import { checkSearchOptions } from "../memory-api.ts";
import { UnknownSessionError } from "../../memory/session-admin.ts";
import type { SharedContext } from "./shared-context.ts";
import { evenWeights, fuseHybrid, lexicalRecent } from "./shared-hybrid.ts";
import { archiveWeights, mostlyUnheld, noSharedWord } from "./shared-rarity.ts";

type Scope = TierScope & {
  order?: "relevance" | "newest";
  /** The query's focus: a participant it names prefers their messages (ranked searches only). */
  focus?: QueryFocus;
  /** A person is typing the query: its last word also matches as a prefix (keyword side), as in embedded mode. */
  typing?: boolean;
};
/** A recent row holding every term inside its words only: between the all-term hits (> 0.5) and the any-term ones. */
const SUBSTRING_SCORE = 0.5;
type Ranked = { message: StoredMessage; score: number };

export async function sharedSearch(
  home: { ctx: SharedContext; describe(): string },
  options: SearchOptions,
): Promise<SearchResult> {
  const o = checkSearchOptions(options);
  const { ctx } = home;
  if (o.session !== undefined && !(await ctx.archive.getSession(o.session)))
    throw new UnknownSessionError({ session: o.session, home: home.describe() });
  if (o.session !== undefined) refuseSessionSymlinks(ctx.paths.session(o.session)); // as history refuses it
  const now = ctx.now();
  const scope: Scope = { query: o.query, session: o.session, range: o.range, filter: resolveFilter(o, now), now };
  if (o.order) scope.order = o.order;
  if (o.typing) scope.typing = true;
  if (o.order !== "newest") scope.focus = queryFocus(o.query, await ctx.archive.knownSenders(o.session, KNOWN_SENDERS));
  const limit = Math.max(1, o.limit ?? 10);
  const match = o.match ?? "keyword";
  const result = await rankedSearch(ctx, o, scope, limit, match);
  if (result.hits.length === 0) {
    const unfiltered: Scope = { query: o.query, session: o.session, now };
    const keywordHit = async (query: string) => (await keywordRanking(ctx, { ...unfiltered, query }, 1)).length > 0;
    // The sessions other than the one searched whose messages hold the query (or one of its pieces).
    const others = async (query: string) => {
      const all = await keywordRanking(ctx, { query, now }, ELSEWHERE_ROWS);
      return elsewhere(
        o.session ?? "",
        all.map((r) => r.message.session),
        ELSEWHERE_ROWS,
      );
    };
    result.emptyReason =
      (await unheldPieceReason(querySymbols(o.query), keywordHit, o.session, others)) ??
      (await explainEmpty(
        result.emptyReason,
        scope,
        async () =>
          match === "semantic"
            ? (await semanticRanking(ctx, unfiltered, 1, false)).ranked.length > 0
            : keywordHit(o.query),
        () => others(o.query),
      ));
  }
  return result;
}

async function rankedSearch(
  ctx: SharedContext,
  o: SearchOptions,
  scope: Scope,
  limit: number,
  match: "keyword" | "semantic" | "hybrid",
): Promise<SearchResult> {
  if (match === "keyword") {
    const ranked = await keywordRanking(ctx, scope, limit);
    const result: SearchResult = { hits: asHits(o.query, ranked.slice(0, limit), () => undefined), notes: [] };
    if (result.hits.length === 0) result.emptyReason = NO_TERMS;
    return result;
  }
  const depth = Math.max(limit * 4, 50);
  if (match === "semantic") {
    const sem = await semanticRanking(ctx, scope, limit, false);
    const hits = asHits(o.query, sem.ranked, () => "semantic");
    await expand(ctx, hits);
    const result: SearchResult = { hits, notIndexed: sem.notIndexed, reindexNeeded: false, notes: sem.notes };
    if (hits.length === 0) {
      // An archive whose every message was removed keeps its (empty) vector table: nothing is indexed there either.
      const none = !!sem.table && (await sem.sharesNone());
      const empty = !sem.table || (none && (await ctx.archive.countMessages()) === 0);
      const unknown = none || empty ? [] : await unknownNames(ctx, focusText(scope));
      result.emptyReason = semanticEmptyReason(sem, none && !empty, empty, unknown);
    }
    return result;
  }
  const sem = await semanticRanking(ctx, scope, depth, true).catch(
    (err): Omit<SemanticRanking, "sharesNone"> => ({
      // The vector store or the embedder failing (down, refusing, a bucket gone) leaves the keyword side, as in
      // the embedded hybrid; only lexical relevance can then keep a hit.
      ranked: [],
      notes: [`semantic side unavailable (${describeError(err)}): keyword results only`],
      minScore: 1.01,
    }),
  );
  const keyword = await keywordRanking(ctx, scope, depth);
  const terms = queryTerms(focusText(scope));
  await markHeldFolds(ctx, terms);
  const filter = scopeFilter(scope);
  const lexical = await lexicalRecent(ctx, { ...scope, filter, focus: scope.focus ?? { text: o.query } }, terms, depth);
  const unknown = await unknownNames(ctx, focusText(scope));
  const bySemantic = new Set(sem.ranked.map((r) => r.message.id));
  const byKeyword = new Set(keyword.map((r) => r.message.id));
  const byLexical = new Set(lexical.map((r) => r.message.id));
  const fused = fuseHybrid({
    when: timeHint(o.query, scope.now),
    keyword,
    lexical,
    semantic: sem.ranked,
    minScore: sem.minScore,
    // A query naming what no message mentions keeps a lexical hit holding half its terms by their rarity, as in
    // embedded mode; else the terms weigh the same (their rows would be counted on every search).
    terms: (unknown.length > 0 && (await archiveWeights(ctx, terms))) || evenWeights(terms),
    symbols: querySymbols(o.query).length > 0,
    unknownName: unknown.length > 0,
    limit,
  });
  const hits = asHits(o.query, fused, (id) => (byKeyword.has(id) || byLexical.has(id) ? undefined : "semantic"));
  for (const [i, h] of hits.entries()) {
    h.foundBy = [];
    if (byKeyword.has(h.message.id)) h.foundBy.push(h.source);
    if (byLexical.has(h.message.id) && !h.foundBy.includes("recent")) h.foundBy.push("recent");
    if (bySemantic.has(h.message.id)) h.foundBy.push("semantic");
    h.rank = i + 1;
  }
  await expand(
    ctx,
    hits.filter((h) => h.message.recent),
  );
  const result: SearchResult = { hits, notIndexed: sem.notIndexed, reindexNeeded: false, notes: sem.notes };
  if (hits.length === 0) {
    // No message of any session holds a word of the query (a keyword search of them all finds nothing).
    const noneShared = unknown.length > 0 && (await noSharedWord(ctx, focusText(scope)));
    result.emptyReason = hybridEmptyReason(unknown, sem.minScore < 1, noneShared);
  }
  return result;
}

function asHits(query: string, ranked: readonly Ranked[], source: (id: string) => "semantic" | undefined) {
  const terms = queryTerms(query);
  const pieces = querySymbols(query);
  return ranked.map((r, i): SearchHit => {
    const from = source(r.message.id) ?? (r.message.recent ? "recent" : "archive");
    const s = makeSnippet(r.message.content, terms, undefined, pieces, from === "recent");
    const hit: SearchHit = {
      message: r.message,
      source: from,
      score: r.score,
      snippet: s.text,
      highlights: s.highlights,
    };
    if (from === "semantic") {
      hit.foundBy = ["semantic"];
      hit.rank = i + 1;
    }
    return hit;
  });
}

/** Every term (else any of them, ranked lower), best first by the archive's ranking or newest first. */
async function keywordRanking(ctx: SharedContext, o: Scope, limit: number): Promise<Ranked[]> {
  // A participant the query names leaves the text to match and prefers their messages; dates in it prefer the
  // messages of that span (the embedded keyword search's factors, participants.ts and time-hints.ts).
  const focus = o.focus ?? { text: o.query };
  const when = o.order === "newest" ? undefined : timeHint(o.query, o.now);
  const factor = (m: StoredMessage) => senderFactor(focus, m.sender) * timeFactor(when, m.sendAt);
  const factored = focus.sender !== undefined || when !== undefined;
  // Messages are indexed as written: a query in compatibility forms is also looked for as typed.
  const forms = queryForms(o.query).map((asTyped) => {
    const terms = queryTerms(focus.text, { asTyped, typing: o.typing });
    const symbols = querySymbols(o.query, asTyped);
    // A recent row holding every term verbatim scores as in embedded mode (0.55 to 0.95: a whole word, the phrase,
    // recency), the query's text counting as its phrase when it has no symbol pieces.
    const typed = symbols.length > 0 ? undefined : asTyped ? focus.text : focus.text.normalize("NFKC");
    return { terms, symbols, asTyped, verbatim: verbatimQuality(terms, o.now, typed) };
  });
  for (const form of forms) await markHeldFolds(ctx, form.terms);
  const filter = scopeFilter(o);
  const found = new Map<string, Ranked>();
  /** The backend's score of each full-text hit, and its list's weight. */
  const raw = new Map<string, { s: number; weight: number }>();
  /** The hits holding every term (the all-term list's, the substring match's). */
  const whole = new Set<string>();
  // The backend ranks without the factors: the messages they prefer (the named sender's, those of the span the query
  // names) are also asked for on their own, so that a short page is the start of a long one (a list of all cut at
  // its length could leave out a preferred message that outscores the others once the factors apply).
  const preferred: MessageFilter[] = [];
  if (focus.sender !== undefined && filter.sender === undefined) preferred.push({ ...filter, sender: focus.sender });
  if (when !== undefined && !("month" in when)) {
    const since = filter.since !== undefined && filter.since > when.since ? filter.since : when.since;
    const until = filter.until !== undefined && filter.until < when.until ? filter.until : when.until;
    if (since < until) preferred.push({ ...filter, since, until });
  }
  const run = async (form: (typeof forms)[number], q: TextQuery | undefined, weight: number) => {
    // An any-term list only fills a page the all-term one left short (its hits rank below every all-term hit).
    if (!q || (weight < 1 && found.size >= limit)) return;
    const ask = (f: MessageFilter) =>
      ctx.archive.searchText(q, {
        ...(o.session !== undefined ? { session: o.session } : {}),
        filter: f,
        limit: form.symbols.length > 0 || (when !== undefined && "month" in when) ? limit * 5 : limit,
        order: o.order === "newest" ? "newest" : "rank",
      });
    const lists = await Promise.all([filter, ...preferred].map(ask));
    for (const h of lists.flat()) {
      if (found.has(h.message.id) || !holdsSymbols(h.message.content, form.symbols, form.asTyped)) continue;
      found.set(h.message.id, { message: h.message, score: textScore(weight, h.score) * factor(h.message) });
      raw.set(h.message.id, { s: h.score, weight });
      if (weight === 1) whole.add(h.message.id);
    }
  };
  // The recent tier's substring match (a fragment inside a word, `netes` in kubernetes), as embedded mode adds it:
  // every content term held in any case. Its hits rank below every all-term hit and above every any-term hit.
  let inside = false;
  const recentHolding = async (form: (typeof forms)[number]) => {
    // The symbol pieces too (`=>`, `C++`, `~/`): a query of symbols alone has no word for the index to find. Space
    // inside a piece may differ in the text, so each part of it is a needle; holdsSymbols checks the whole piece.
    const pieces = form.symbols.flatMap((p) => p.toLowerCase().split(" ")).filter((p) => p !== "");
    const needles = [...new Set([...contentTerms(form.terms).map(needleOf), ...pieces])];
    if (needles.length === 0 || found.size >= limit) return;
    const size = (limit + found.size) * (form.symbols.length > 0 ? 5 : 1);
    const scope = { session: o.session, filter };
    const rows = await ctx.archive.recentHolding(needles, scope, size);
    // Archived rows holding the symbol pieces too, as the embedded archive's substring index finds them: the word
    // index drops punctuation, so `=>` or `&&` alone is in no full-text hit.
    if (form.symbols.length > 0) rows.push(...(await ctx.archive.archivedHolding(needles, scope, size)));
    for (const m of rows) {
      if (found.has(m.id) || !holdsSymbols(m.content, form.symbols, form.asTyped)) continue;
      found.set(m.id, { message: m, score: SUBSTRING_SCORE * factor(m) });
      whole.add(m.id);
      inside = true;
    }
  };
  for (const form of forms) await run(form, textQueryAll(form.terms), 1);
  for (const form of forms) await recentHolding(form);
  if (o.order !== "newest") for (const form of forms) await run(form, textQueryAny(form.terms), 0.5);
  // A recent hit earns shares of its neighbours' scores (the question before it, the reply after it), as in
  // embedded keyword search (context.ts): the backend's scores lend, before they are mapped.
  let lifted = false;
  if (o.order !== "newest") {
    const scored = [...found.values()]
      .filter((r) => r.message.recent && raw.has(r.message.id))
      .map((hit) => ({ r: { seq: hit.message.seq }, s: raw.get(hit.message.id)!.s, hit }));
    const best = contextLenders(scored);
    if (best.length > 1) {
      lendShares(scored, best, await ctx.archive.recentNeighbourSeqs(best.map((x) => x.r.seq)));
      for (const x of scored) x.hit.score = textScore(raw.get(x.hit.message.id)!.weight, x.s) * factor(x.hit.message);
      lifted = true;
    }
    for (const hit of found.values()) {
      if (!hit.message.recent) continue;
      const q = Math.max(-1, ...forms.map((f) => f.verbatim(hit.message.content, hit.message.sendAt) ?? -1));
      if (q < 0) continue;
      hit.score = Math.max(hit.score, q * factor(hit.message));
      whole.add(hit.message.id);
      lifted = true;
    }
  }
  let ranked = [...found.values()];
  // Equal scores: the newest sent first, as the embedded keyword search orders them.
  const newest = (a: Ranked, b: Ranked) => Number(b.message.sendAt - a.message.sendAt);
  if (forms.length > 1 || inside || factored || lifted)
    ranked.sort((a, b) => (o.order === "newest" ? newest(a, b) : b.score - a.score || newest(a, b)));
  // An archived hit holding every term is never below one that does not, as in embedded mode.
  if (o.order !== "newest")
    ranked = liftAboveWeak(
      ranked,
      (r) => !r.message.recent && whole.has(r.message.id),
      (r) => !whole.has(r.message.id),
    );
  return ranked.slice(0, limit);
}

/** The backend's scores map into (0, 1); any-term hits (weight 0.5) rank below every all-term hit. */
const textScore = (weight: number, score: number) => weight * (0.5 + 0.5 * (score / (score + 0.1)));

/**
 * markFoldedForms with the archive asked which other forms it holds: a word's spelling without its marks is
 * indexed as written, unstemmed (naïve as "naive"), while the plain word typed is stemmed ("naiv"), so each is
 * also looked for in the other's form, as the embedded search does.
 */
async function markHeldFolds(ctx: SharedContext, terms: QueryTerm[]): Promise<void> {
  const asked = new Set<string>();
  markFoldedForms(terms, (expr) => {
    asked.add(expr);
    return false;
  });
  if (asked.size === 0) return;
  const held = new Set<string>();
  await Promise.all(
    [...asked].map(async (expr) => {
      const token = expr.slice(1, -1); // the FTS5 phrase "word"
      if (
        (await ctx.archive.searchText({ mode: "all", terms: [[{ tokens: [token] }]] }, { limit: 1, order: "newest" }))
          .length > 0
      )
        held.add(expr);
    }),
  );
  if (held.size > 0) markFoldedForms(terms, (expr) => held.has(expr));
}

interface SemanticRanking {
  ranked: Ranked[];
  notIndexed?: number;
  notes: string[];
  minScore: number;
  table?: MessageVectorTable;
  /** Whether no message holds a word of the query (the archive's any-term search), asked once a search. */
  sharesNone(): Promise<boolean>;
}

/** Recent messages most similar to the query, best first, by calibrated relevance (at least min_score unless `all`). */
async function semanticRanking(ctx: SharedContext, o: Scope, depth: number, all: boolean): Promise<SemanticRanking> {
  await ctx.vectors.drain(ctx.now);
  const embedder = await ctx.vectors.embedder();
  const table = await ctx.vectors.table();
  const notIndexed = await ctx.archive.queuedCount(o.session);
  const minScore = ctx.config.search?.min_score ?? defaultMinScore(embedder);
  const pendingStep = notIndexed > 0 ? await sharedPendingStep(ctx) : undefined;
  const refused = notIndexed > 0 ? await ctx.archive.refusedCount(o.session) : undefined;
  const notes = statusNotes({ notIndexed, reindexNeeded: false, otherEmbedders: [], embedder, pendingStep, refused });
  let noneShared: Promise<boolean> | undefined;
  const sharesNone = () =>
    // As the embedded noSharedWord: whether the index holds a word of the query (a word inside another is not one).
    (noneShared ??= noSharedWord(ctx, focusText(o)));
  if (!table) return { ranked: [], notIndexed, notes, minScore, sharesNone };
  const focus = o.focus ?? { text: o.query };
  const [qv] = await embedder.embed([focus.text], undefined, "query");
  const scope = scopeFilter(o);
  // As in embedded mode: the search is held to the ids of a sender's recent messages while they are few, so the
  // sender's messages are found behind any number of closer ones of others; past that, a deeper candidate list.
  const ids =
    scope.sender === undefined
      ? undefined
      : await ctx.archive.recentIds({ session: o.session, filter: scope }, SENDER_IDS_MAX);
  const [found, bg] = await Promise.all([
    table.search(
      qv!,
      { session: o.session, since: scope.since, until: scope.until, role: scope.role, ids },
      candidateDepth(depth, scope.sender !== undefined && ids === undefined),
    ),
    backgroundVectors(table, embedder),
  ]);
  const cal = calibrate(qv!, bg);
  const byId = new Map((await ctx.archive.messagesById(found.map((h) => h.id))).map((m) => [m.id, m]));
  const symbols = querySymbols(o.query);
  // As in the embedded mode (semantic.ts): a query that no message holds a word of (no keyword hit in any session)
  // needs a calibrated RELEVANCE.noSharedWord, and with the builtin embedder its hits close in their content words.
  const wordsFar = embedder.id.startsWith("builtin:") ? contentWordsFar(embedder, focus.text) : undefined;
  const unknown = (await unknownNames(ctx, focus.text)).length > 0 ? RELEVANCE.unknownName : 1;
  // As in embedded mode: when the words some message holds weigh less than RELEVANCE.heldShare of the query (by their
  // rarity in the archive), a hit holding none of them must also be close in its content words; of a query no
  // message holds a word of, every hit, word by word too.
  let unheld: TermWeights | undefined | null;
  const farOff = async (content: string) => {
    if (!wordsFar) return false;
    if (unheld === undefined) unheld = (await mostlyUnheld(ctx, focus.text, RELEVANCE.heldShare)) ?? null;
    if (unheld === null) return false;
    const none = await sharesNone();
    return (none || coverage(content, unheld, true) === 0) && (await wordsFar(content, none));
  };
  const scoreOf = candidateScorer(scope, symbols, focus, embedder.partScale?.(focus.text), cal, unknown);
  const ranked: Ranked[] = [];
  for (const h of found) {
    const m = byId.get(h.id);
    const score = scoreOf(h, m);
    if (m === undefined || score === undefined) continue;
    if (score < minScore) {
      if (all) ranked.push({ message: m, score });
      continue;
    }
    if (score < RELEVANCE.noSharedWord && (await sharesNone())) continue;
    if (await farOff(m.content)) continue;
    ranked.push({ message: m, score });
  }
  ranked.sort(bestFirst);
  return { ranked: ranked.slice(0, depth), notIndexed, notes, minScore, table, sharesNone };
}

/** Senders looked for in a query, at most (as many as the embedded search reads). */
const KNOWN_SENDERS = 500;

/** The text a search matches: the query without the participant it names. */
const focusText = (o: Scope) => o.focus?.text ?? o.query;

/** What embeds the messages still queued: the process holding the drain lease, or the way to start one. */
async function sharedPendingStep(ctx: SharedContext): Promise<string> {
  const held = await ctx.archive.leaseHolder(VECTOR_WRITE_JOB, "*");
  if (held) return `another process (${held.holder}) is embedding them`;
  return "run memvoy reindex --pending, or start a daemon on a host of the shared archive (memvoy --daemon)";
}

/**
 * The names of the query no message of the archive holds (the embedded mode's unknownNames): capitalised words that
 * a search of every session finds in no form.
 */
async function unknownNames(ctx: SharedContext, query: string): Promise<string[]> {
  const names: string[] = [];
  for (const word of capitalisedNames(query)) {
    let held = false;
    for (const asTyped of queryForms(word)) {
      const q = textQueryAll(queryTerms(word, { asTyped }));
      held = !q || (await ctx.archive.searchText(q, { limit: 1, order: "newest" })).length > 0;
      if (held) break;
    }
    if (!held) names.push(word);
  }
  return names;
}

/** Each hit's neighbours in its session's recent order, overlapping runs merged. */
async function expand(ctx: SharedContext, hits: SearchHit[]): Promise<void> {
  const runs = await Promise.all(
    hits.map(async ({ message: m }) => {
      const [before, after] = await Promise.all([
        ctx.archive.listMessages(m.session, {
          recentOnly: true,
          beforeSeq: m.seq,
          newestFirst: true,
          limit: EXPAND_BEFORE,
        }),
        ctx.archive.listMessages(m.session, { recentOnly: true, afterSeq: m.seq, limit: EXPAND_AFTER }),
      ]);
      return [...before, m, ...after];
    }),
  );
  const merged = mergeRuns(
    hits.map((h) => h.message),
    runs,
  );
  hits.forEach((h, i) => (h.context = merged[i]!));
}
