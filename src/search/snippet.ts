// Snippets with highlight ranges, computed on the original text (the index holds a bigram form for CJK).
import { stemWord } from "../shared/search-form.ts";
import type { QueryTerm } from "./query-terms.ts";

export interface Snippet {
  text: string;
  /** [start, end) offsets into `text` of matched terms. */
  highlights: [number, number][];
}

const LATIN_WORD = /[A-Za-z][A-Za-z'’]*[A-Za-z]|[A-Za-z]|\d+/g;

/** Ranges of the words that match a query term: same stem, or the term as a prefix; CJK terms exactly. */
export function findMatches(content: string, terms: readonly QueryTerm[]): [number, number][] {
  const use = terms.some((t) => !t.stop) ? terms.filter((t) => !t.stop) : terms;
  const latin = use.filter((t) => !t.cjk);
  const stems = new Set(latin.map((t) => stemWord(t.text)));
  const prefixes = latin.filter((t) => t.text.length >= 3).map((t) => t.text);
  const ranges: [number, number][] = [];
  if (latin.length > 0) {
    for (const m of content.matchAll(LATIN_WORD)) {
      const w = m[0].toLowerCase();
      if (stems.has(stemWord(w)) || stems.has(w) || prefixes.some((p) => w.startsWith(p)))
        ranges.push([m.index!, m.index! + m[0].length]);
      if (ranges.length > 200) break;
    }
  }
  const lower = content.toLowerCase();
  for (const t of use) {
    if (!t.cjk) continue;
    for (
      let at = lower.indexOf(t.text);
      at >= 0 && ranges.length < 400;
      at = lower.indexOf(t.text, at + t.text.length)
    ) {
      ranges.push([at, at + t.text.length]);
    }
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const prev = merged[merged.length - 1];
    if (prev && r[0] <= prev[1]) prev[1] = Math.max(prev[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged;
}

export function makeSnippet(content: string, terms: readonly QueryTerm[], width = 160): Snippet {
  const text0 = content.replace(/\s/g, " "); // one for one, so offsets stay valid
  const all = findMatches(text0, terms);
  if (text0.length <= width) return { text: text0, highlights: all };
  const first = all[0]?.[0] ?? 0;
  let start = Math.max(0, first - Math.floor(width / 3));
  const end = Math.min(text0.length, start + width);
  start = Math.max(0, end - width);
  const prefix = start > 0 ? "…" : "";
  const suffix = end < text0.length ? "…" : "";
  const shift = prefix.length - start;
  const highlights = all
    .filter(([s, e]) => s >= start && e <= end)
    .map(([s, e]) => [s + shift, e + shift] as [number, number]);
  return { text: prefix + text0.slice(start, end) + suffix, highlights };
}
