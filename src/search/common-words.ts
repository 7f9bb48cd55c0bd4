// The all-term expression of a query beside words in many rows, in two parts: its rarer terms and its common
// words, so that its window can be found from the rarer terms' matches (storage/sqlite/and-by-rarer-terms.ts).
import type { AndSplit } from "../storage/sqlite/and-by-rarer-terms.ts";
import type { IndexStats } from "../storage/sqlite/keyword-queries.ts";
import { indexTokens } from "./bm25.ts";
import { ftsAllQuery, ftsTerm, type QueryTerm } from "./query-terms.ts";

/** A word in at least this share of rows is common: FTS5 reads its long row list at every match of the others. */
const COMMON_SHARE = 0.1;

/** ftsAllQuery(terms) split so, when some of its words are common and some terms are not; undefined otherwise. */
export function commonWordsSplit(terms: readonly QueryTerm[], st: IndexStats): AndSplit | undefined {
  const content = terms.filter((t) => !t.stop);
  if (content.length < 2) return undefined;
  const rarer: QueryTerm[] = [];
  const common: string[] = [];
  let commonShare = 0;
  for (const t of content) {
    const stem = commonStem(t, st);
    if (stem === undefined) rarer.push(t);
    else if (!common.includes(stem.text)) {
      common.push(stem.text);
      commonShare += stem.share;
    }
  }
  if (common.length === 0 || rarer.length === 0) return undefined;
  const expr = ftsAllQuery(rarer)!;
  // A prefix (a word being typed, one CJK character) costs FTS5 a merge of every row list it names, however few
  // matches are asked for: the rarer terms' matches would cost as much as the window (and so would their share).
  if (expr.includes('"*')) return undefined;
  const rarerShare = rarer.reduce((p, t) => p * st.share(ftsTerm(t)), 1);
  return { rarer: expr, common, commonShare, rarerShare };
}

/** The term's index token when it is one Latin stem in at least COMMON_SHARE of rows, with that share. */
function commonStem(t: QueryTerm, st: IndexStats): { text: string; share: number } | undefined {
  if (t.cjk) return undefined;
  const tokens = indexTokens(t.text);
  const text = tokens[0];
  // One token of letters, matched as nothing else (no prefix of a word being typed).
  if (tokens.length !== 1 || !/^[a-z]+$/.test(text!) || ftsTerm(t) !== `"${text}"`) return undefined;
  const share = st.share(`"${text}"`);
  return share >= COMMON_SHARE ? { text: text!, share } : undefined;
}
