// Keyword search: bm25 over the newest FTS5 matches in the archive (rows no longer in history.json) plus a
// case-insensitive substring match over recent rows, merged, deduplicated by id and ranked. Recent rows
// are also ranked by bm25 on their stems (a question rarely holds all its words verbatim), so match
// quality decides there too. bm25 is computed here on the window's rows (src/search/bm25.ts).
import type { StoredMessage } from "../shared/message.ts";
import type { TimeRange } from "../shared/time.ts";
import type { MessageFilter } from "../shared/time-filter.ts";
import type { Db } from "../storage/sqlite/db.ts";
import {
  ftsTotals,
  hasArchived,
  matchShare,
  rankWindow,
  scanArchive,
  scanRecent,
  windowRows,
  type KeywordFilter,
} from "../storage/sqlite/keyword-queries.ts";
import { bm25 } from "./bm25.ts";
import { ftsAllQuery, ftsAnyQuery, ftsPhrases, queryTerms, type FtsPhrase, type QueryTerm } from "./query-terms.ts";
import { hasMatch, makeSnippet } from "./snippet.ts";
import { scopeFilter, type SearchHit, type TierScope } from "./search-types.ts";
import { holdsSymbols, querySymbols } from "./symbols.ts";
import { trigramReady } from "../storage/sqlite/substring-index.ts";
import { senderFactor, senderFocus } from "./participants.ts";
import { timeFactor, timeHint } from "./time-hints.ts";
import { liftByContext } from "./context.ts";

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

type Candidate = Pick<SearchHit, "message" | "source" | "score">;

/** A match window loaded once per search and expression, shared by both tiers. */
interface Window {
  rows: StoredMessage[];
  score: Map<string, number>;
}

export function keywordSearch(db: Db, o: KeywordOptions): SearchHit[] {
  const limit = Math.max(1, o.limit ?? 10);
  // A participant named in a ranked query matches the messages they sent: the name leaves the text to match.
  const focus = o.order === "newest" ? { text: o.query } : senderFocus(db, o.query, o.session);
  const terms = queryTerms(focus.text, { typing: o.typing });
  const when = o.order === "newest" ? undefined : timeHint(o.query, o.now);
  const symbols = querySymbols(o.query);
  if (terms.length === 0 && symbols.length === 0) return [];
  const filter: KeywordFilter = { session: o.session, ...scopeFilter(o) };
  const hits = new Map<string, Candidate>();
  const add = (m: StoredMessage, source: SearchHit["source"], score: number) => {
    // A query with symbols holds them verbatim in every hit.
    if (symbols.length > 0 && !holdsSymbols(m.content, symbols)) return;
    score *= senderFactor(focus, m.sender) * timeFactor(when, m.sendAt);
    const prev = hits.get(m.id);
    if (!prev || prev.score < score) hits.set(m.id, { message: m, source, score });
  };
  // Snippets for the hits returned only: finding the matched words is the costliest per-row step.
  const finish = (list: Candidate[]): SearchHit[] =>
    list.slice(0, limit).map((h) => {
      const s = makeSnippet(h.message.content, terms);
      return { ...h, snippet: s.text, highlights: s.highlights };
    });

  if (symbols.length > 0)
    for (const [m, q] of symbolMatches(db, symbols, terms, filter, limit, o.now))
      add(m, m.recent ? "recent" : "archive", q);
  if (terms.length === 0)
    return finish([...hits.values()].sort((a, b) => b.score - a.score || Number(b.message.sendAt - a.message.sendAt)));
  const all = ftsAllQuery(terms);
  const any = ftsAnyQuery(terms);
  if (o.order === "newest") {
    if (all) {
      const rows = windowRows(db, all, Math.max(limit * 8, 200), filter)
        .map((r) => r.message)
        .sort((a, b) => (a.seq < b.seq ? 1 : -1));
      for (const m of rows.slice(0, limit)) add(m, m.recent ? "recent" : "archive", 0.5);
    }
    if (hits.size < limit) for (const [m, q] of recentMatches(db, terms, filter, limit, o.now)) add(m, "recent", q);
    return finish([...hits.values()].sort((a, b) => Number(b.message.sendAt - a.message.sendAt) || b.score - a.score));
  }

  let totals: { rows: number; avgTokens: number } | undefined;
  const phrasesOf = new Map<string, FtsPhrase[]>();
  const windows = new Map<string, Window>();
  const archived = hasArchived(db, filter.session);
  // One-term queries rank the same window in both tiers: it is read once and split.
  const bothTiers = archived && any === undefined && o.rankRecent !== false;
  // A window holds one tier's rows only (each list below ranks one tier): a row's score does not depend
  // on the other rows, and the other tier's rows are never read or scored.
  const load = (expr: string, isAny: boolean, recent: boolean): Window => {
    const key = `${recent}:${expr}`;
    const known = windows.get(key);
    if (known) return known;
    totals ??= ftsTotals(db);
    let phrases = phrasesOf.get(expr);
    if (!phrases) {
      phrases = ftsPhrases(terms, isAny);
      // Document frequencies (estimated, cheap): they order multi-term matches, and keep one-term scores on the scale recent-tier scores share.
      for (const p of phrases) p.share = matchShare(db, p.expr, totals.rows);
      phrasesOf.set(expr, phrases);
    }
    const split = bothTiers && expr === all;
    const found = windowRows(db, expr, rankWindow(phrases.length), split ? filter : { ...filter, recent });
    for (const tier of split ? [false, true] : [recent]) {
      const scored = found
        .filter((r) => !split || r.message.recent === tier)
        .map((r) => ({
          m: r.message,
          s: bm25(r.message.content.toLowerCase(), r.tokens, phrases, totals!.rows, totals!.avgTokens, !isAny),
        }));
      if (tier) liftByContext(db, scored);
      // Best first; ties: oldest first (as FTS5 ordered equal ranks)
      scored.sort((a, b) => b.s - a.s || (a.m.seq < b.m.seq ? -1 : 1));
      windows.set(`${tier}:${expr}`, {
        rows: scored.map((x) => x.m),
        score: new Map(scored.map((x) => [x.m.id, x.s])),
      });
    }
    return windows.get(key)!;
  };
  const top = (w: Window, n: number) => w.rows.slice(0, n);

  if (all && archived)
    for (const m of top(load(all, false, false), limit))
      add(m, "archive", archiveScore(load(all, false, false).score.get(m.id)!));
  if (any && archived && hits.size < limit)
    for (const m of top(load(any, true, false), limit))
      add(m, "archive", archiveScore(load(any, true, false).score.get(m.id)!) * 0.6);
  const substring = new Map(recentMatches(db, terms, filter, limit, o.now).map(([m, q]) => [m.id, { m, q }]));
  if (o.rankRecent !== false && (any ?? all)) {
    // Match quality on recent rows: bm25 over any term, lifted when every term is there verbatim.
    const w = load((any ?? all)!, any !== undefined, true);
    for (const m of top(w, limit * 2)) {
      const verbatim = substring.get(m.id);
      add(m, "recent", archiveScore(w.score.get(m.id)!) + (verbatim ? 0.1 + verbatim.q * 0.1 : 0));
    }
  }
  for (const { m, q } of substring.values()) add(m, "recent", q);

  return finish([...hits.values()].sort((a, b) => b.score - a.score || Number(b.message.sendAt - a.message.sendAt)));
}

/** Recent rows containing every content term, scored by match quality and recency. */
function recentMatches(
  db: Db,
  terms: readonly QueryTerm[],
  filter: KeywordFilter,
  limit: number,
  now: bigint,
): [StoredMessage, number][] {
  const content = terms.filter((t) => !t.stop);
  const needles = (content.length ? content : terms).map((t) => t.text);
  const rows = scanRecent(db, needles, filter, Math.max(limit * 5, 50));
  const phrase = terms.map((t) => t.text).join(" ");
  const out: [StoredMessage, number][] = [];
  for (const m of rows) {
    const lower = m.content.toLowerCase();
    if (!needles.every((n) => lower.includes(n))) continue;
    const whole = hasMatch(m.content, terms);
    let q = 0.55;
    if (whole) q = 0.7;
    if (terms.length > 1 && lower.includes(phrase)) q = 0.85;
    const ageDays = Number(now - m.sendAt) / 86_400e9;
    const recency = 0.1 / (1 + Math.max(0, ageDays) / 30);
    out.push([m, q + recency]);
  }
  return out;
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
): [StoredMessage, number][] {
  // The query's words too, as recent rows are matched (every content word as a substring).
  const words = terms.some((t) => !t.stop) ? terms.filter((t) => !t.stop) : terms;
  const needles = [...new Set([...pieces.flatMap((p) => p.split(" ")), ...words.map((t) => t.text)])];
  // The pieces select candidates in the substring index (`c > d` as its trigrams).
  const select = [...pieces, ...words.map((t) => t.text)];
  const rows = scanRecent(db, needles, filter, limit * 5, select);
  if (hasArchived(db, filter.session)) {
    // The substring index once built; before, words in the query or its pieces (`#123`, `C++`, `.env`)
    // narrow the archive through the word index, and a query of symbols alone is a scan.
    const all = trigramReady(db) ? undefined : ftsAllQuery(queryTerms(pieces.join(" ")).concat(words));
    if (all) rows.push(...windowRows(db, all, SYMBOL_WINDOW, { ...filter, recent: false }).map((r) => r.message));
    else rows.push(...scanArchive(db, needles, filter, limit * 5, select));
  }
  const out: [StoredMessage, number][] = [];
  for (const m of rows) {
    if (!holdsSymbols(m.content, pieces)) continue;
    const ageDays = Number(now - m.sendAt) / 86_400e9;
    out.push([m, 0.6 + 0.1 / (1 + Math.max(0, ageDays) / 30)]);
  }
  return out;
}
