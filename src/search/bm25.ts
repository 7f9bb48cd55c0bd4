// bm25 computed in JS over the rows of a match window, the same formula as FTS5's bm25() (k1 1.2, b 0.75),
// on the same tokens (the indexed search form, unicode61 folding). Document frequencies are estimates
// from the index (see matchShare); a one-phrase query needs none, since its idf is the same for every row.
import { searchForm } from "../shared/search-form.ts";

const K1 = 1.2;
const B = 0.75;
const TOKEN = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

/** A phrase of the FTS expression: its tokens; `prefix` when the last one matches as a prefix. */
export interface Phrase {
  tokens: string[];
  prefix: boolean;
  /** Share of the indexed rows holding it (0..1); undefined when there is one phrase only. */
  share?: number;
}

const fold = (s: string) => (/[^\x00-\x7f]/.test(s) ? s.normalize("NFD").replace(/\p{M}/gu, "") : s);

/** The index's tokens of a text: its search form, lower case, diacritics removed, split like unicode61. */
export function indexTokens(text: string): string[] {
  return fold(searchForm(text).toLowerCase()).match(TOKEN) ?? [];
}

function occurrences(tokens: readonly string[], p: Phrase): number {
  const n = p.tokens.length;
  if (n === 0) return 0;
  let hits = 0;
  for (let i = 0; i + n <= tokens.length; i++) {
    let ok = true;
    for (let j = 0; j < n && ok; j++) {
      const t = tokens[i + j]!;
      ok = j === n - 1 && p.prefix ? t.startsWith(p.tokens[j]!) : t === p.tokens[j];
    }
    if (ok) hits++;
  }
  return hits;
}

const idf = (share: number | undefined, rows: number) => {
  if (share === undefined) return 1;
  const n = share * rows;
  const v = Math.log((rows - n + 0.5) / (n + 0.5));
  return v > 0 ? v : 1e-6;
};

/** bm25 of one row's text for the phrases (higher is better; 0 when none occurs). */
export function bm25(text: string, phrases: readonly Phrase[], rows: number, avgTokens: number): number {
  const tokens = indexTokens(text);
  const norm = K1 * (1 - B + (B * tokens.length) / avgTokens);
  let score = 0;
  for (const p of phrases) {
    const tf = occurrences(tokens, p);
    if (tf > 0) score += (idf(p.share, rows) * (tf * (K1 + 1))) / (tf + norm);
  }
  return score;
}
