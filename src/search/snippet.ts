// Snippets with highlight ranges, computed on the original text (the index holds a bigram form for CJK).
import type { QueryTerm } from "./query-terms.ts";

export interface Snippet {
  text: string;
  /** [start, end) offsets into `text` of matched terms. */
  highlights: [number, number][];
}

/** Stem-tolerant needle: "deployment" should light up "deployed"; keep at least 4 characters. */
function needle(t: QueryTerm): string {
  if (t.cjk || t.text.length <= 4) return t.text;
  return t.text.replace(/(ments?|ings?|ed|es|s|ions?|ers?|ly)$/u, "").padEnd(4, "").slice(0, Math.max(4, t.text.length - 3));
}

export function findMatches(content: string, terms: readonly QueryTerm[]): [number, number][] {
  const lower = content.toLowerCase();
  const ranges: [number, number][] = [];
  for (const t of terms) {
    if (t.stop && terms.some((o) => !o.stop)) continue;
    const n = needle(t);
    if (!n) continue;
    let from = 0;
    for (;;) {
      const at = lower.indexOf(n, from);
      if (at < 0) break;
      const wordStart = t.cjk || at === 0 || !/[\p{L}\p{N}_]/u.test(lower[at - 1]!);
      if (wordStart) {
        let end = at + n.length;
        if (!t.cjk) while (end < lower.length && /[\p{L}\p{N}_]/u.test(lower[end]!)) end++;
        ranges.push([at, end]);
      }
      from = at + n.length;
      if (ranges.length > 200) break;
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
