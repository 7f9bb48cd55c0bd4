// Keyword search: FTS5 bm25 over the archive (rows no longer in history.json) plus a case-insensitive
// substring match over recent rows, merged, deduplicated by id and ranked. When the substring match
// finds too little (a question rarely holds all its words verbatim), recent rows are also ranked by
// bm25 on their stems, so match quality decides there too.
import type { StoredMessage } from "../shared/message.ts";
import type { TimeRange } from "../shared/time.ts";
import type { MessageFilter } from "../shared/time-filter.ts";
import type { Db } from "../storage/sqlite/db.ts";
import { scanRecent, searchFts, type KeywordFilter, type WindowMatch } from "../storage/sqlite/keyword-queries.ts";
import { ftsAllQuery, ftsAnyQuery, queryTerms, type QueryTerm } from "./query-terms.ts";
import { findMatches, makeSnippet } from "./snippet.ts";
import { scopeFilter, type SearchHit } from "./search-types.ts";

export interface KeywordOptions {
  query: string;
  session?: string;
  range?: TimeRange;
  /** Time bounds, role and sender (range is folded in; the narrower lower bound wins). */
  filter?: MessageFilter;
  limit?: number;
  now: bigint;
  /** Rank recent rows by bm25 on their stems too (default true; hybrid search has its own such list). */
  rankRecent?: boolean;
  /** "newest": every term must match, newest first, no bm25 — fast enough to run on every keystroke. */
  order?: "relevance" | "newest";
}

/** bm25 magnitudes map into (0, 1); recent-row quality is on the same scale. */
const archiveScore = (bm25: number) => {
  const x = Math.abs(bm25);
  return 0.2 + 0.7 * (x / (x + 4));
};

export function keywordSearch(db: Db, o: KeywordOptions): SearchHit[] {
  const limit = Math.max(1, o.limit ?? 10);
  const terms = queryTerms(o.query);
  if (terms.length === 0) return [];
  const filter: KeywordFilter = { session: o.session, ...scopeFilter(o) };
  const hits = new Map<string, SearchHit>();
  const add = (m: StoredMessage, source: SearchHit["source"], score: number) => {
    const prev = hits.get(m.id);
    if (prev && prev.score >= score) return;
    const s = makeSnippet(m.content, terms);
    hits.set(m.id, { message: m, source, score, snippet: s.text, highlights: s.highlights });
  };

  const all = ftsAllQuery(terms);
  const any = ftsAnyQuery(terms);
  const windows = new Map<string, WindowMatch[]>(); // one FTS pass per expression, shared by both tiers
  if (o.order === "newest") {
    if (all) for (const tier of ["archive", "recent"] as const) for (const r of searchFts(db, all, filter, limit, tier, windows, true)) add(r.message, tier, 0.5);
    if (hits.size < limit) for (const [m, q] of recentMatches(db, terms, filter, limit, o.now)) add(m, "recent", q);
    return [...hits.values()].sort((a, b) => Number(b.message.sendAt - a.message.sendAt) || b.score - a.score).slice(0, limit);
  }
  if (all) for (const r of searchFts(db, all, filter, limit, "archive", windows)) add(r.message, "archive", archiveScore(r.rank));
  if (any && hits.size < limit) for (const r of searchFts(db, any, filter, limit, "archive", windows)) add(r.message, "archive", archiveScore(r.rank) * 0.6);
  const substring = new Map(recentMatches(db, terms, filter, limit, o.now).map(([m, q]) => [m.id, { m, q }]));
  if (o.rankRecent !== false && (any ?? all)) {
    // Match quality on recent rows: bm25 over any term, lifted when every term is there verbatim.
    for (const r of searchFts(db, (any ?? all)!, filter, limit * 2, "recent", windows)) {
      const verbatim = substring.get(r.message.id);
      add(r.message, "recent", archiveScore(r.rank) + (verbatim ? 0.1 + verbatim.q * 0.1 : 0));
    }
  }
  for (const { m, q } of substring.values()) add(m, "recent", q);

  return [...hits.values()].sort((a, b) => b.score - a.score || Number(b.message.sendAt - a.message.sendAt)).slice(0, limit);
}

/** Recent rows containing every content term, scored by match quality and recency. */
function recentMatches(db: Db, terms: readonly QueryTerm[], filter: KeywordFilter, limit: number, now: bigint): [StoredMessage, number][] {
  const content = terms.filter((t) => !t.stop);
  const needles = (content.length ? content : terms).map((t) => t.text);
  const rows = scanRecent(db, needles, filter, Math.max(limit * 5, 50));
  const phrase = terms.map((t) => t.text).join(" ");
  const out: [StoredMessage, number][] = [];
  for (const m of rows) {
    const lower = m.content.toLowerCase();
    if (!needles.every((n) => lower.includes(n))) continue;
    const whole = findMatches(m.content, terms).length > 0;
    let q = 0.55;
    if (whole) q = 0.7;
    if (terms.length > 1 && lower.includes(phrase)) q = 0.85;
    const ageDays = Number(now - m.sendAt) / 86_400e9;
    const recency = 0.1 / (1 + Math.max(0, ageDays) / 30);
    out.push([m, q + recency]);
  }
  return out;
}
