// Keyword search: FTS5 bm25 over the archive (rows no longer in history.json) plus a case-insensitive
// substring match over recent rows, merged, deduplicated by id and ranked.
import type { StoredMessage } from "../shared/message.ts";
import { rangeStart, type TimeRange } from "../shared/time.ts";
import type { Db } from "../storage/sqlite/write-lock.ts";
import { scanRecent, searchArchive, type KeywordFilter } from "../storage/sqlite/keyword-queries.ts";
import { ftsAllQuery, ftsAnyQuery, queryTerms, type QueryTerm } from "./query-terms.ts";
import { findMatches, makeSnippet } from "./snippet.ts";
import type { SearchHit } from "./search-types.ts";

export interface KeywordOptions {
  query: string;
  session?: string;
  range?: TimeRange;
  limit?: number;
  now: bigint;
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
  const filter: KeywordFilter = { session: o.session, since: rangeStart(o.range ?? "all", o.now) };
  const hits = new Map<string, SearchHit>();
  const add = (m: StoredMessage, source: SearchHit["source"], score: number) => {
    const prev = hits.get(m.id);
    if (prev && prev.score >= score) return;
    const s = makeSnippet(m.content, terms);
    hits.set(m.id, { message: m, source, score, snippet: s.text, highlights: s.highlights });
  };

  const all = ftsAllQuery(terms);
  if (all) for (const r of searchArchive(db, all, filter, limit)) add(r.message, "archive", archiveScore(r.rank));
  if (hits.size < limit) {
    const any = ftsAnyQuery(terms);
    if (any) for (const r of searchArchive(db, any, filter, limit)) add(r.message, "archive", archiveScore(r.rank) * 0.6);
  }
  for (const [m, q] of recentMatches(db, terms, filter, limit, o.now)) add(m, "recent", q);

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
