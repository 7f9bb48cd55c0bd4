// Keyword search: bm25 over the newest FTS5 matches in the archive (rows no longer in history.json) plus a
// case-insensitive substring match over recent rows, merged, deduplicated by id and ranked. Recent rows
// are also ranked by bm25 on their stems (a question rarely holds all its words verbatim), so match
// quality decides there too. bm25 is computed here on the window's rows (src/search/bm25.ts).
import { isAscii } from "../shared/ascii.ts";
import type { StoredMessage } from "../shared/message.ts";
import type { TimeRange } from "../shared/time.ts";
import type { MessageFilter } from "../shared/time-filter.ts";
import type { Db } from "../storage/sqlite/db.ts";
import {
  contentOf,
  indexStats,
  newestOfWindow,
  rankWindow,
  scanArchive,
  recentTextMatches,
  scanRecent,
  windowRows,
  matchingSeqs,
  windowTexts,
  withLower,
  type IndexStats,
  type KeywordFilter,
  type WindowFilter,
  type WindowText,
} from "../storage/sqlite/keyword-queries.ts";
import { getMessagesBySeq } from "../storage/sqlite/messages-repo.ts";
import { allWeightless, bm25, bm25Ceiling, repeatKeys, type Phrase } from "./bm25.ts";
import {
  ftsAllQuery,
  ftsAnyQuery,
  ftsPhrases,
  contentTerms,
  hasCompatibilityForms,
  decomposedHangul,
  markFoldedForms,
  needleOf,
  queryTerms,
  substringInIndex,
  type FtsPhrase,
  type QueryTerm,
} from "./query-terms.ts";
import { hasMatch, makeSnippet } from "./snippet.ts";
import { scopeFilter, type SearchHit, type TierScope } from "./search-types.ts";
import { holdsFoundSymbols, holdsSymbols, querySymbols, unspacedWords } from "./symbols.ts";
import { trigramReady } from "../storage/sqlite/substring-index.ts";
import { indexCandidates, type LightRead } from "../storage/sqlite/substring-queries.ts";
import { hasArchived } from "../storage/sqlite/recent-tier-size.ts";
import { readScope } from "../storage/sqlite/write-stamp.ts";
import { lowerStart, rankedStart } from "../storage/sqlite/ranked-text.ts";
import { SENDER, senderFactor, senderFocus } from "./participants.ts";
import { TIME_HINT, timeFactor, timeHint } from "./time-hints.ts";
import { newestTypedWindow } from "./typed-prefix.ts";
import { CONTEXT, liftByContext } from "./context.ts";
import { liftAboveWeak } from "./fusion.ts";
import { firstInOrder } from "./first-in-order.ts";
import { commonWordsSplit } from "./common-words.ts";
import { cjkFirstSubstrings } from "./cjk-first.ts";
import { rowsHoldingAll } from "./rows-holding.ts";
import { foldedRecentRows, foldMarks } from "./folded-matches.ts";

export interface KeywordOptions extends TierScope {
  /** Rank recent rows by bm25 on their stems too (default true; hybrid search has its own such list). */
  rankRecent?: boolean;
  /** "newest": every term must match, newest first, no bm25 — fast enough to run on every keystroke. */
  order?: "relevance" | "newest";
  /** The last word is still being typed: it also matches as a prefix. */
  typing?: boolean;
}

/** bm25 magnitudes map into (0, 1); recent-row quality is on the same scale. */
const archiveScore = (bm25: number) => {
  const x = Math.abs(bm25);
  return 0.2 + 0.7 * (x / (x + 4));
};

interface Candidate extends Pick<SearchHit, "source" | "score"> {
  /** A message, or a window row whose message is loaded only if it is returned. */
  row: StoredMessage | WindowText;
  /** It holds every term of the query (an all-term match, or every term verbatim). */
  whole?: boolean;
}

/** A match window of one tier, best first: loaded once per search and expression. */
type Window = { r: WindowText; s: number }[];

export function keywordSearch(db: Db, o: KeywordOptions): SearchHit[] {
  return readScope(db, () => keywordSearchNow(db, o));
}

function keywordSearchNow(db: Db, o: KeywordOptions): SearchHit[] {
  const hits = searchInForm(db, o, false);
  const inSpan = spanSearch(db, o);
  const jamo = decomposedHangul(o.query, (expr) => indexStats(db).has(expr));
  if (!hasCompatibilityForms(o.query) && jamo === undefined && inSpan.length === 0) return hits;
  // Messages are indexed as written: a query in compatibility forms is also looked for as typed, and Korean
  // as the decomposed jamo text copied from macOS holds (each word as the start of one: a particle follows).
  const asTyped = hasCompatibilityForms(o.query) ? searchInForm(db, o, true) : [];
  const decomposed = jamo === undefined ? [] : searchInForm(db, { ...o, query: jamo }, true, true);
  const best = new Map<string, SearchHit>();
  for (const h of [...hits, ...inSpan, ...asTyped, ...decomposed]) {
    const prev = best.get(h.message.id);
    if (!prev || prev.score < h.score) best.set(h.message.id, h);
  }
  const bySendAt = (a: SearchHit, b: SearchHit) => Number(b.message.sendAt - a.message.sendAt);
  return [...best.values()]
    .sort((a, b) => (o.order === "newest" ? bySendAt(a, b) || b.score - a.score : b.score - a.score || bySendAt(a, b)))
    .slice(0, Math.max(1, o.limit ?? 10));
}

/**
 * The ranked search again within the span of time the query names ("in March 2026"), when it names one: its windows
 * rank rows by match alone and keep the best few, while the span's rows score more than the others (timeFactor), so
 * a row of the span can be left out of a short page's windows and shown on a longer page's. Merged with the search
 * over the whole scope, the page holds the best of both, whatever its length.
 */
function spanSearch(db: Db, o: KeywordOptions): SearchHit[] {
  if (o.order === "newest") return [];
  const span = timeHint(o.query, o.now);
  if (span === undefined || "month" in span) return [];
  const f = scopeFilter(o);
  const since = f.since === undefined || span.since > f.since ? span.since : f.since;
  const until = f.until === undefined || span.until < f.until ? span.until : f.until;
  if (since >= until) return [];
  return searchInForm(db, { ...o, range: undefined, filter: { ...f, since, until } }, false);
}

/** keywordSearch with the query NFKC-normalised, or as typed (`asTyped`); `prefixes`: every word as a prefix too. */
function searchInForm(db: Db, o: KeywordOptions, asTyped: boolean, prefixes = false): SearchHit[] {
  const limit = Math.max(1, o.limit ?? 10);
  // A participant named in a ranked query matches the messages they sent: the name leaves the text to match.
  const focus = o.order === "newest" ? { text: o.query } : senderFocus(db, o.query, o.session);
  const terms = queryTerms(focus.text, { typing: o.typing, asTyped });
  if (prefixes) for (const t of terms) t.partial = !t.stop;
  markFoldedForms(terms, indexStats(db).has);
  const when = o.order === "newest" ? undefined : timeHint(o.query, o.now);
  const symbols = [...new Set([...querySymbols(o.query, asTyped), ...unspacedWords(o.query, asTyped)])];
  if (terms.length === 0 && symbols.length === 0) return [];
  // The query's words with what it puts between them (a hyphen, a slash) are its phrase too; every hit of a query
  // with symbol pieces holds them as typed, so there they would lift every hit alike.
  const typedText = symbols.length > 0 ? undefined : asTyped ? focus.text : focus.text.normalize("NFKC");
  const filter: KeywordFilter = { session: o.session, ...scopeFilter(o) };
  // Candidates by seq: window rows carry their text only; messages are loaded for the hits returned.
  const hits = new Map<bigint, Candidate>();
  // The rows symbolMatches returns: they hold every piece already.
  const holding = new WeakSet<Candidate["row"]>();
  const add = (m: Candidate["row"], source: SearchHit["source"], score: number, whole = false) => {
    // A query with symbols holds them verbatim in every hit: a window row's content is read for it here, for the
    // few rows of a window that get this far (a row removed since is left out).
    if (symbols.length > 0 && !holding.has(m)) {
      const content = (m.content ??= contentOf(db, m.seq));
      if (content === undefined || !holdsSymbols(content, symbols, asTyped)) return;
    }
    score *= senderFactor(focus, m.sender) * timeFactor(when, m.sendAt);
    const prev = hits.get(m.seq);
    if (!prev || prev.score < score) hits.set(m.seq, { row: m, source, score, whole: whole || prev?.whole === true });
    else if (whole) prev.whole = true;
  };
  // Snippets for the hits returned only: finding the matched words is the costliest per-row step.
  const finish = (list: Candidate[]): SearchHit[] => {
    const page = list.slice(0, limit);
    const loaded = new Map(
      getMessagesBySeq(
        db,
        page.filter((h) => !("id" in h.row)).map((h) => h.row.seq),
      ).map((m) => [m.seq, m]),
    );
    const out: SearchHit[] = [];
    // Scores never rise down the page: a hit placed below an archived all-term match (liftAboveWeak) shows at most
    // that match's score.
    let cap = Number.POSITIVE_INFINITY;
    for (const h of page) {
      const message = "id" in h.row ? h.row : loaded.get(h.row.seq);
      if (!message) continue; // removed since the window was read
      const s = makeSnippet(message.content, terms, undefined, symbols, h.source === "recent");
      cap = Math.min(cap, h.score);
      out.push({ message, source: h.source, score: cap, snippet: s.text, highlights: s.highlights });
    }
    return out;
  };
  const byScore = () => [...hits.values()].sort((a, b) => b.score - a.score || Number(b.row.sendAt - a.row.sendAt));

  if (symbols.length > 0)
    for (const [m, q] of symbolMatches(db, symbols, terms, filter, limit, o.now, asTyped)) {
      holding.add(m);
      // It holds every piece and word as written, as a substring match does: no all-term row is lifted above it.
      add(m, m.recent ? "recent" : "archive", q, true);
    }
  // Rows the any-term archive list below fills in for: the symbol matches and the all-term list.
  const early = new Set(hits.keys());
  if (terms.length === 0) return finish(byScore());
  const all = ftsAllQuery(terms);
  if (o.order === "newest") {
    if (all) {
      // The newest `limit` matches; a window of more when symbols or a filter may drop some of them.
      const typed = symbols.length === 0 ? newestTypedWindow(db, terms, filter, limit) : undefined;
      const rows = (typed ?? windowTexts(db, all, Math.max(limit * 8, 200), filter)).sort((a, b) =>
        a.seq < b.seq ? 1 : -1,
      );
      for (const m of rows.slice(0, limit)) add(m, m.recent ? "recent" : "archive", 0.5);
    }
    if (hits.size < limit)
      for (const [m, q] of recentMatches(
        db,
        terms,
        filter,
        limit,
        verbatimQuality(terms, o.now, typedText),
        lightRead(symbols, undefined),
      ))
        add(m, "recent", q);
    return finish([...hits.values()].sort((a, b) => Number(b.row.sendAt - a.row.sendAt) || b.score - a.score));
  }

  let stats: IndexStats | undefined;
  // Of all rows only: the index's shares count all of them, not a session's or a filter's.
  const unscoped = Object.values(filter).every((v) => v === undefined);
  const weighing = unscoped ? weighingTerms(terms, (stats ??= indexStats(db)), limit * 2) : undefined;
  const weighs = weighing && ((t: QueryTerm) => weighing.has(t));
  // A query whose words all lie in its symbol pieces: every hit holds every word, so an any-term list's rows that
  // hold only some of them are never hits (they only took the places of rows that may be).
  const any = wordsInPieces(terms, symbols) ? undefined : ftsAnyQuery(terms, weighs);
  const phrasesOf = new Map<string, FtsPhrase[]>();
  const phrasesFor = (expr: string, isAny: boolean) => {
    let phrases = phrasesOf.get(expr);
    if (!phrases)
      phrasesOf.set(
        expr,
        (phrases = weightedPhrases(terms, isAny, (stats ??= indexStats(db)), isAny ? weighs : undefined)),
      );
    return phrases;
  };
  const archived = hasArchived(db, filter.session);
  // A query whose words all lie in its symbol pieces ranks the rows that may hold the pieces (the substring index's
  // candidates for them), not the newest rows holding its words: only the former can be hits, and the others took
  // their places in the window and among its best (most of a window of code words, on a coding agent's home).
  const ranksPieceHolders = (f: WindowFilter) =>
    symbols.length > 0 && any === undefined && f.session === undefined && f.recent !== undefined;
  const read = new Map<string, WindowText[]>();
  /** A window's rows as read, once per search; `ranked`: the window ranked for hits (ranksPieceHolders). */
  const readWindow = (expr: string, phrases: readonly FtsPhrase[], f: WindowFilter, ranked = false) => {
    const pieces = ranked && expr === all && ranksPieceHolders(f);
    const key = `${f.recent}:${expr}${pieces ? ":pieces" : ""}`;
    let rows = read.get(key);
    if (!rows) {
      // An all-term window's rows count each phrase once unless they hold its key twice: only those are read
      // whole. None is when there are several phrases and each weighs nothing: counts would move a score by a
      // millionth at most, and such rows are then ranked by their length alone. (A one-phrase window's order is
      // its rows' counts and lengths, whatever the phrase's weight.)
      const weighsNothing = () => phrases.length > 1 && allWeightless(phrases, stats!.rows);
      const repeated = expr !== all ? undefined : weighsNothing() ? [] : repeatKeys(phrases);
      // Across sessions only: a session's AND carries its token, whose short row list leads FTS5's walk.
      const split = expr === all && f.session === undefined ? commonWordsSplit(terms, stats!) : undefined;
      const size = rankWindow(phrases.length);
      const among = pieces ? indexCandidates(db, symbols, f.recent!, size) : undefined;
      rows = windowTexts(db, expr, size, among ? { ...f, among } : f, false, repeated, split);
      if (expr !== all) rows = withRareRows(db, rows, phrases, stats!, size, f);
      read.set(key, rows);
    }
    return rows;
  };
  // The recent rows ranked below, when they hold the substring matches sought first (see indexedSubstrings):
  // a one-term query's, with no archived row in scope (its window is then the recent tier's alone).
  const rankedRecent =
    !archived && any === undefined && all !== undefined && o.rankRecent !== false
      ? () => readWindow(all, phrasesFor(all, false), { ...filter, recent: true })
      : undefined;
  // The share of rows holding every term, as if they were independent (a guess on the low side for terms
  // that go together): where the recent text held in memory likely holds enough substring matches.
  const ranked = any ?? all;
  const heldShare = ranked
    ? () => phrasesFor(ranked, any !== undefined).reduce((p, x) => p * (x.share ?? 1), 1)
    : undefined;
  const verbatim = verbatimQuality(terms, o.now, typedText);
  const substringRows = () =>
    recentMatches(db, terms, filter, limit, verbatim, lightRead(symbols, focus.sender), rankedRecent, heldShare);
  // The recent tier first: when `limit` of its hits outscore any archived row, the archive is not read. Beside
  // archived rows, its substring matches are found first (how many there are decides how the windows are read).
  // An any-term window of words in most rows (each weighing nothing) scores its rows at about the floor, below
  // a substring match: the matches are found first, and the window is read only if they leave room.
  const floorWindow =
    FLOOR_WINDOW.matchesFirst &&
    any !== undefined &&
    o.rankRecent !== false &&
    allWeightless(phrasesFor(any, true), (stats ??= indexStats(db)).rows);
  const substringFirst = archived || floorWindow ? substringRows() : undefined;
  if (floorWindow) for (const [m, q] of substringFirst!) add(m, "recent", q, true);
  // A one-term query with fewer than `limit` recent rows holding its text most likely reads the archive too:
  // its window is then read once for both tiers and split (either way gives the same lists).
  const bothTiers =
    archived && any === undefined && o.rankRecent !== false && symbols.length === 0 && substringFirst!.length < limit;
  // Else a window holds one tier's rows only (each list below ranks one tier): a row's score does not depend
  // on the other rows, and the other tier's rows are never read or scored.
  const windows = new Map<string, Window>();
  const load = (expr: string, isAny: boolean, recent: boolean): Window => {
    const key = `${recent}:${expr}`;
    const known = windows.get(key);
    if (known) return known;
    const phrases = phrasesFor(expr, isAny);
    const st = stats!;
    const split = bothTiers && expr === all;
    const found = readWindow(expr, phrases, split ? filter : { ...filter, recent }, true);
    for (const tier of split ? [false, true] : [recent])
      windows.set(
        `${tier}:${expr}`,
        scoreWindow(db, split ? found.filter((r) => r.recent === tier) : found, phrases, st, !isAny, limit * 2, tier),
      );
    return windows.get(key)!;
  };

  const windowOutscored =
    floorWindow && outscored(hits, limit, recentCeiling(phrasesFor(any!, true), stats!, verbatim.ceiling));
  if (o.rankRecent !== false && (any ?? all) && !windowOutscored) {
    // Match quality on recent rows: bm25 over any term, lifted when every term is there verbatim.
    const best = load((any ?? all)!, any !== undefined, true).slice(0, limit * 2);
    withLower(
      db,
      best.map((x) => x.r),
    );
    for (const { r, s } of best) {
      const q = r.lower === undefined ? undefined : verbatim(r.lower, r.sendAt);
      add(r, "recent", archiveScore(s) + (q === undefined ? 0 : 0.1 + q * 0.1), q !== undefined);
      // Holding the terms only with accents folded (café for cafe), it is no substring match: it scores as one.
      if (q !== undefined && !verbatim.written(r.lower!)) add(r, "recent", q, true);
    }
  }
  // The substring matches: not looked for when `limit` hits already score above any of them.
  if (!floorWindow) {
    const substring = substringFirst ?? (outscored(hits, limit, verbatim.ceiling) ? [] : substringRows());
    for (const [m, q] of substring) add(m, "recent", q, true);
  }

  // Only hits holding every term can keep an archived row holding them all off the page (liftAboveWeak, below).
  const archiveCounts = () => !outscored(hits, limit, archiveCeiling(phrasesFor(all!, false), stats!), true);
  if (all && archived && archiveCounts()) {
    for (const { r, s } of load(all, false, false).slice(0, limit)) {
      add(r, "archive", archiveScore(s), true);
      if (hits.has(r.seq)) early.add(r.seq);
    }
    if (any && early.size < limit)
      for (const { r, s } of load(any, true, false).slice(0, limit)) add(r, "archive", archiveScore(s) * 0.6);
  }
  // An archived row holding every term is never below a hit that does not (a recent row its neighbour lifted).
  return finish(
    liftAboveWeak(
      byScore(),
      (c) => c.source === "archive" && c.whole === true,
      (c) => c.whole !== true,
    ),
  );
}

/** A word in fewer rows than this is rare: its rows are read whole for an any-term window (withRareRows). */
const RARE_ROWS = 200;

/**
 * An any-term window holds the newest `size` rows of its words: a rare word (RARE_ROWS), which bm25 weighs most, may
 * have none there when the common words' rows fill it ("deploy zebra": the two rows holding zebra, older than the
 * newest 2,000 holding deploy, were never ranked). Its rows are added: one indexed read of at most RARE_ROWS rows,
 * made only when the words' rows may be more than the window holds.
 */
function withRareRows(
  db: Db,
  rows: WindowText[],
  phrases: readonly FtsPhrase[],
  st: IndexStats,
  size: number,
  f: WindowFilter,
): WindowText[] {
  const count = (p: FtsPhrase) => (p.share ?? 1) * st.rows;
  const rare = phrases.filter((p) => p.kind !== "prefix" && count(p) < RARE_ROWS);
  if (rare.length === 0 || rare.length === phrases.length) return rows;
  if (phrases.reduce((n, p) => n + count(p), 0) <= size) return rows;
  const seen = new Set(rows.map((r) => r.seq));
  const more = windowTexts(db, rare.map((p) => p.expr).join(" OR "), RARE_ROWS, f).filter((r) => !seen.has(r.seq));
  return more.length === 0 ? rows : [...rows, ...more].sort((a, b) => (a.seq < b.seq ? 1 : a.seq > b.seq ? -1 : 0));
}

/** Whether the query has symbol pieces and each of its content words lies in one of them. */
const wordsInPieces = (terms: readonly QueryTerm[], pieces: readonly string[]) =>
  pieces.length > 0 && terms.every((t) => t.stop || pieces.some((p) => p.includes(needleOf(t))));

/** The most a hit's score is multiplied by (the sender and time-hint factors at their largest). */
const largestFactors = () => Math.max(1, SENDER.otherFactor) * Math.max(1, TIME_HINT.outside);

/**
 * A score no archived row reaches (the all-term list's bm25 ceiling, with the factors at their largest); the
 * any-term list scores less (its phrases are among these, its scores scaled down).
 */
function archiveCeiling(phrases: readonly FtsPhrase[], st: IndexStats): number {
  return archiveScore(bm25Ceiling(phrases, st.rows)) * largestFactors();
}

/**
 * A score no recent window row reaches: its bm25 ceiling with the most its neighbours lend it (context.ts),
 * lifted as far as holding the query verbatim lifts (`verbatimCeiling`, the factors at their largest already),
 * with the factors at their largest.
 */
function recentCeiling(phrases: readonly FtsPhrase[], st: IndexStats, verbatimCeiling: number): number {
  const bm25 = bm25Ceiling(phrases, st.rows) * (1 + CONTEXT.prev + CONTEXT.next);
  return (archiveScore(bm25) + 0.1) * largestFactors() + 0.1 * verbatimCeiling;
}

/**
 * Whether `limit` candidates (`whole`: of those holding every term) score above `ceiling` (then a row scoring at most
 * that is never on the page).
 */
function outscored(hits: ReadonlyMap<bigint, Candidate>, limit: number, ceiling: number, whole = false): boolean {
  if (hits.size < limit) return false;
  let above = 0;
  for (const h of hits.values()) if (h.score > ceiling && (!whole || h.whole) && ++above >= limit) return true;
  return false;
}

/**
 * A word in at least this share of rows weighs nothing in bm25 (its idf is clamped to almost 0, bm25.ts): the
 * newest rows holding it, most of an any-term list with it, would all score about 0 there.
 */
const WEIGHTLESS_SHARE = 0.5;

/**
 * The words of a query of Latin words for its any-term list: those that weigh in bm25, when they are in at least
 * `fill` rows (the best rows kept of the list are then theirs, whatever the newest rows holding only the other
 * words); undefined for every word.
 */
function weighingTerms(terms: readonly QueryTerm[], st: IndexStats, fill: number): Set<QueryTerm> | undefined {
  const content = terms.filter((t) => !t.stop);
  if (content.length < 2) return undefined;
  const shares = new Map<QueryTerm, number>();
  for (const t of content) {
    const phrases = ftsPhrases([t], true);
    if (phrases.length !== 1 || phrases[0]!.kind !== "stem") return undefined;
    shares.set(t, st.share(phrases[0]!.expr));
  }
  const kept = content.filter((t) => shares.get(t)! < WEIGHTLESS_SHARE);
  if (kept.length === 0 || kept.length === content.length) return undefined;
  return Math.max(...kept.map((t) => shares.get(t)!)) * st.rows >= fill ? new Set(kept) : undefined;
}

/** The phrases of the query's all (or any) expression with their document frequencies (estimated, cheap): they order multi-term matches, and keep one-term scores on the scale recent-tier scores share. */
function weightedPhrases(
  terms: readonly QueryTerm[],
  isAny: boolean,
  st: IndexStats,
  weighs?: (t: QueryTerm) => boolean,
): FtsPhrase[] {
  const phrases = ftsPhrases(terms, isAny, weighs);
  for (const p of phrases) p.share = st.share(p.expr);
  return phrases;
}

/**
 * The best `keep` window rows scored by bm25, best first; ties: newest first, as the page orders equal scores (a
 * message said again and again scores the same each time: the oldest kept would leave the newest off a short page).
 */
function scoreWindow(
  db: Db,
  rows: readonly WindowText[],
  phrases: readonly FtsPhrase[],
  st: IndexStats,
  matchedAll: boolean,
  keep: number,
  /** Recent rows: the best lend shares of their score to scored neighbours (context.ts). */
  lift = false,
): Window {
  // A phrase no row holds counts nothing in any row (a pasted stack trace names many): it is not looked for.
  const counted = matchedAll ? phrases : phrases.filter((p) => p.share !== 0);
  const holders = matchedAll ? undefined : phraseHolders(db, rows, counted);
  const cutHolds = matchedAll ? undefined : startHolders(db, rows);
  const scored = rows.map((r) => ({
    r,
    s: bm25(
      r.lower,
      r.tokens,
      counted,
      st.rows,
      st.avgTokens,
      matchedAll,
      holders && ((p) => holders.get(p)?.has(r.seq) === false && !tokenizedApart(r.lower)),
      r.cut && cutHolds && ((p) => cutHolds(p, r.seq)),
    ),
  }));
  if (lift) liftByContext(db, scored);
  // Equal scores: the newest sent first, as the page orders them (an import writes rows out of their time order).
  return firstInOrder(
    scored,
    keep,
    (a, b) =>
      b.s - a.s || (a.r.sendAt === b.r.sendAt ? (a.r.seq > b.r.seq ? -1 : 1) : a.r.sendAt > b.r.sendAt ? -1 : 1),
  );
}

/**
 * Rows of a match window that each multi-token phrase is in, by the index, for the phrases rare enough that
 * looking them up costs less than tokenizing every row (what counting such a phrase takes): a row outside
 * holds none of it.
 */
function phraseHolders(db: Db, rows: readonly WindowText[], phrases: readonly FtsPhrase[]) {
  const tokens = phrases.filter((p) => p.kind === "tokens" && p.share !== undefined);
  if (tokens.length === 0 || rows.length === 0) return undefined;
  let lo = rows[0]!.seq;
  let hi = lo;
  for (const r of rows) {
    if (r.seq < lo) lo = r.seq;
    if (r.seq > hi) hi = r.seq;
  }
  const out = new Map<Phrase, Set<bigint>>();
  for (const p of tokens)
    if (p.share! * Number(hi - lo + 1n) <= PHRASE_LOOKUP.perRow * rows.length)
      out.set(p, matchingSeqs(db, p.expr, lo, hi));
  return out.size > 0 ? out : undefined;
}

/**
 * For the rows of an any-term window whose text was read in part (WindowText.cut): whether the index holds a
 * phrase in such a row, which then counts it once where its start does not show it. Each phrase is looked up on
 * first need, over the span of those rows. Undefined when no row was cut.
 */
function startHolders(db: Db, rows: readonly WindowText[]) {
  let lo: bigint | undefined;
  let hi = 0n;
  for (const r of rows) {
    if (!r.cut) continue;
    if (lo === undefined || r.seq < lo) lo = r.seq;
    if (r.seq > hi) hi = r.seq;
  }
  if (lo === undefined) return undefined;
  const from = lo;
  const holders = new Map<Phrase, Set<bigint>>();
  return (p: Phrase, seq: bigint) => {
    let found = holders.get(p);
    if (!found) holders.set(p, (found = matchingSeqs(db, (p as FtsPhrase).expr, from, hi)));
    return found.has(seq);
  };
}

/**
 * Text the index may split or fold otherwise than the text count does (beyond ASCII: Greek and Cyrillic letters
 * with diacritics, which unicode61 keeps, or marks, at which it splits): the count decides there, as it does
 * where no lookup is made, so that the page does not depend on which was cheaper.
 */
const tokenizedApart = (lower: string | undefined) => lower !== undefined && !isAscii(lower);

/** Whether a window of words in most rows is read only when its substring matches leave room (see searchInForm). */
export const FLOOR_WINDOW = { matchesFirst: true };

/** Index matches looked up per window row at most, instead of tokenizing the rows (a match costs far less). */
export const PHRASE_LOOKUP = { perRow: 8 };

/** Recent rows the index matches for any content term (every term of a one-term query). */
const RECENT_RANK_WINDOW = 2_000;

/**
 * Recent rows matching any content term of the query, best bm25 first (bm25 computed here, as keyword
 * search does): the newest RECENT_RANK_WINDOW matches are ranked, the best `limit` returned.
 */
export function rankRecentRows(
  db: Db,
  query: string,
  filter: KeywordFilter,
  limit: number,
): { message: StoredMessage; score: number }[] {
  const terms = queryTerms(query);
  const st = indexStats(db);
  markFoldedForms(terms, st.has);
  const any = ftsAnyQuery(terms);
  const expr = any ?? ftsAllQuery(terms);
  if (!expr) return [];
  const phrases = weightedPhrases(terms, any !== undefined, st);
  const scope = { ...filter, recent: true };
  const rows = windowTexts(db, expr, RECENT_RANK_WINDOW, scope, false, any ? undefined : repeatKeys(phrases));
  const best = scoreWindow(
    db,
    any ? withRareRows(db, rows, phrases, st, RECENT_RANK_WINDOW, scope) : rows,
    phrases,
    st,
    any === undefined,
    limit,
  );
  const loaded = new Map(
    getMessagesBySeq(
      db,
      best.map((x) => x.r.seq),
    ).map((m) => [m.seq, m]),
  );
  return best.flatMap(({ r, s }) => {
    const message = loaded.get(r.seq);
    return message ? [{ message, score: s }] : [];
  });
}

/**
 * Recent rows containing every content term, scored by match quality and recency. From the recent text held
 * in memory when it answers (`light`: a query without symbols, whose hits need not carry their content; read
 * light, with their sender when a sender is named).
 */
function recentMatches(
  db: Db,
  terms: readonly QueryTerm[],
  filter: KeywordFilter,
  limit: number,
  /** A row's score for holding the query verbatim (verbatimQuality). */
  quality: ReturnType<typeof verbatimQuality>,
  read?: LightRead,
  /** The recent rows of the query's all-term window, as ranking reads them (see indexedSubstrings). */
  rankedRecent?: () => readonly WindowText[],
  /** The share of rows expected to hold every term (see recentTextMatches). */
  heldShare?: () => number,
): [Candidate["row"], number][] {
  const used = contentTerms(terms);
  const needles = used.map(needleOf);
  const size = Math.max(limit * 5, 50);
  const light = read !== undefined;
  // A row's text for the checks below: its content, or that with ASCII letters in lower case, the same to them.
  const rows =
    (light
      ? recentTextMatches(
          db,
          needles,
          filter,
          size,
          // Terms the word index finds exactly are found from the ranked window instead (indexedSubstrings).
          used.every(substringInIndex) ? undefined : heldShare,
        )
      : undefined) ??
    indexedSubstrings(db, terms, used, filter, size, light, rankedRecent) ??
    cjkFirstSubstrings(db, used, filter, size, light, () => indexStats(db)) ??
    scanRecent(db, needles, filter, size, undefined, light, read).map((m) => ({ row: m, text: m.content }));
  // Each source returns rows holding every needle (in JS lower case).
  const out: [Candidate["row"], number][] = [];
  for (const { row: m, text } of rows) {
    const q = quality(text, m.sendAt, true);
    if (q !== undefined) out.push([m, q]);
  }
  // A word spelled with or without its accents matches as the word itself would (the archive's ranking does too).
  const seen = new Set(rows.map((r) => r.row.seq));
  for (const { row: m, text } of foldedRecentRows(db, terms, filter, size)) {
    if (seen.has(m.seq)) continue;
    const q = quality(text, m.sendAt);
    if (q !== undefined) out.push([m, q]);
  }
  return out;
}

/** How a query's recent substring matches are read: light unless it has symbols (see recentMatches). */
const lightRead = (symbols: readonly string[], sender: string | undefined): LightRead | undefined =>
  symbols.length === 0 ? { sender: sender !== undefined } : undefined;

/** How much less a text holding the query's words only with their accents folded scores than one holding them as typed. */
const FOLDED_SHORTFALL = 0.001;

/**
 * A recent row's score for holding the query verbatim, every content term as a substring (ASCII or Unicode case
 * folded): 0.55, 0.7 with a whole word (or one of the same stem), 0.85 with the whole phrase, plus up to 0.1 for recency; undefined when
 * it does not hold them all. `ceiling`: a score no such row reaches, with the factors at their largest.
 */
export function verbatimQuality(
  terms: readonly QueryTerm[],
  now: bigint,
  /** The query's text (in the form its terms were read from): its words as typed between them count as the phrase. */
  query?: string,
): ((text: string, sendAt: bigint, held?: boolean) => number | undefined) & {
  ceiling: number;
  written: (lower: string) => boolean;
} {
  const needles = contentTerms(terms).map(needleOf);
  const written = (lower: string) => needles.every((n) => lower.includes(n));
  // The index folds Latin accents (and the words markFoldedForms looks up in their other spelling): a row it matched
  // holding the terms only with marks folded (café for cafe, naïve for naive) holds them, scored a hair lower.
  const folded = needles.map(foldMarks);
  const asciiNeedles = needles.every(isAscii);
  const foldedHolds = (lower: string) => {
    if (asciiNeedles && isAscii(lower)) return false;
    const plain = foldMarks(lower);
    return folded.every((n) => plain.includes(n));
  };
  const phrase = terms.map(needleOf).join(" ");
  const typed = query === undefined ? undefined : typedPhrase(query, terms, phrase);
  /** `held`: the text is known to hold every needle (then only its start is lower-cased). */
  const quality = (text: string, sendAt: bigint, held = false) => {
    let start: string;
    let shortfall = 0;
    if (held) start = lowerStart(text);
    else {
      const lower = text.toLowerCase();
      if (!written(lower)) {
        if (!foldedHolds(lower)) return undefined;
        shortfall = FOLDED_SHORTFALL;
      }
      // The whole-word and phrase lifts read the text's start, as ranking does (ranked-text.ts): of its lower case,
      // the same whichever form of the text was read (the content, or the recent text held in memory).
      start = rankedStart(lower).text;
    }
    let q = 0.55;
    if (hasMatch(start, terms, true)) q = 0.7;
    const inStart = (p: string) => start.includes(p) || (shortfall > 0 && foldMarks(start).includes(foldMarks(p)));
    if (terms.length > 1 && (inStart(phrase) || (typed !== undefined && inStart(typed)))) q = 0.85;
    const ageDays = Number(now - sendAt) / 86_400e9;
    return q + 0.1 / (1 + Math.max(0, ageDays) / 30) - shortfall;
  };
  const top = (terms.length > 1 ? 0.85 : 0.7) + 0.1;
  return Object.assign(quality, { ceiling: top * largestFactors(), written });
}

/**
 * The query's words with what it puts between them (`payment-service`, `x86_64 build`), lower case and spaces
 * collapsed, when that differs from the words joined by spaces: a text holding it holds the query's phrase.
 */
function typedPhrase(query: string, terms: readonly QueryTerm[], phrase: string): string | undefined {
  if (terms.length < 2) return undefined;
  const lower = query.toLowerCase().replace(/\s+/g, " ");
  const last = needleOf(terms.at(-1)!);
  const from = lower.indexOf(needleOf(terms[0]!));
  const to = lower.lastIndexOf(last);
  if (from < 0 || to < from) return undefined;
  const span = lower.slice(from, to + last.length);
  return span !== phrase ? span : undefined;
}

/**
 * The newest `size` recent rows holding every needle, from the word index when it finds exactly those (every
 * needle a CJK term it holds as bigrams: see substringInIndex), without reading the other recent rows.
 * Undefined when a scan must find them instead.
 */
function indexedSubstrings(
  db: Db,
  terms: readonly QueryTerm[],
  /** The terms whose text every row must hold (ftsAllQuery's). */
  used: readonly QueryTerm[],
  filter: KeywordFilter,
  size: number,
  light: boolean,
  rankedRecent?: () => readonly WindowText[],
): { row: Candidate["row"]; text: string }[] | undefined {
  const all = ftsAllQuery(terms);
  if (!all || !used.every(substringInIndex)) return undefined;
  const ranked = rankedRecent?.();
  const rows =
    (ranked && newestOfWindow(ranked, size)) ??
    windowTexts(db, all, size, { ...filter, recent: true, passing: true }, !light);
  const held = rowsHoldingAll(db, rows, used);
  // A row the index matched without the text (none is known) could stand for an older one it left out.
  if (held.length < rows.length && rows.length >= size) return undefined;
  return held;
}

/** Newest word-index matches of a query with symbols that are checked for the symbols verbatim. */
const SYMBOL_WINDOW = 5_000;

/**
 * Rows holding every symbol piece, newest first in each tier: recent rows by their covering index, archived
 * ones by a scan (the word index drops punctuation). Whitespace inside a piece may differ in the text.
 */
function symbolMatches(
  db: Db,
  pieces: readonly string[],
  terms: readonly QueryTerm[],
  filter: KeywordFilter,
  limit: number,
  now: bigint,
  /** The pieces are as typed, not NFKC-normalised. */
  asTyped: boolean,
): [Candidate["row"], number][] {
  // The query's words too, as recent rows are matched (every content word as a substring).
  const words = contentTerms(terms);
  const needles = [...new Set([...pieces.flatMap((p) => p.split(" ")), ...words.map(needleOf)])];
  // The pieces select candidates in the substring index (`c > d` as its trigrams).
  const select = [...pieces, ...words.map(needleOf)];
  // The scans' rows hold every needle (in JS lower case).
  const rows = scanRecent(db, needles, filter, limit * 5, select);
  const scanned = new Set(rows);
  if (hasArchived(db, filter.session)) {
    // The substring index once built; before, words in the query or its pieces (`#123`, `C++`, `.env`)
    // narrow the archive through the word index, and a query of symbols alone is a scan.
    const all = trigramReady(db) ? undefined : ftsAllQuery(queryTerms(pieces.join(" "), { asTyped }).concat(words));
    if (all) rows.push(...windowRows(db, all, SYMBOL_WINDOW, { ...filter, recent: false }).map((r) => r.message));
    else
      for (const m of scanArchive(db, needles, filter, limit * 5, select)) {
        scanned.add(m);
        rows.push(m);
      }
  }
  const out: [Candidate["row"], number][] = [];
  for (const m of rows) {
    const holds = scanned.has(m) ? holdsFoundSymbols : holdsSymbols;
    if (!holds(m.content, pieces, asTyped)) continue;
    const ageDays = Number(now - m.sendAt) / 86_400e9;
    out.push([m, 0.6 + 0.1 / (1 + Math.max(0, ageDays) / 30)]);
  }
  return out;
}
