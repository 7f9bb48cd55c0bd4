// The newest matches of a query whose last word is still being typed (the TUI while typing), with its prefix
// spelled out as the words it stands for in the newest rows: FTS5's prefix merge reads every row list of
// every word the prefix names (40-80 ms for "dep" over 1M messages), the spelled-out OR stops early.
import type { Db } from "../storage/sqlite/db.ts";
import { newestPrefixWords } from "../storage/sqlite/prefix-words.ts";
import { windowTexts, type KeywordFilter, type WindowText } from "../storage/sqlite/keyword-queries.ts";
import { ftsAllQuery, prefixToken, typedPrefix, type QueryTerm } from "./query-terms.ts";

/** Rows read at most: past this the prefix is rare enough for FTS5's own merge to be cheap. */
const MAX_ROWS = 1_000;
/** Words in the spelled-out OR at most. */
const MAX_WORDS = 200;

/**
 * The newest `size` matches of the query's all-term expression in the scope (a session or all; no other
 * filter), in any order, when the newest rows hold them; undefined when the expression has no typed prefix
 * or they do not (the caller reads the window as usual). The same rows as windowTexts of the expression with
 * the prefix: within the rows read, the prefix and its spelled-out words match the same rows.
 */
export function newestTypedWindow(
  db: Db,
  terms: readonly QueryTerm[],
  filter: KeywordFilter,
  size: number,
): WindowText[] | undefined {
  const words = terms.filter((t) => !t.stop);
  const term = (words.length > 0 ? words : terms).find(typedPrefix);
  const { session, ...rest } = filter;
  if (!term || size > MAX_ROWS || Object.values(rest).some((v) => v !== undefined)) return undefined;
  // Words are spelled out as indexTokens reads the rows, which is the index's reading for ASCII prefixes only
  // (it drops the diacritics of Greek and Cyrillic letters, which the index keeps).
  if (!/^[a-z0-9]+$/.test(prefixToken(term)!)) return undefined;
  // First as many rows as matches wanted (a common prefix is in most rows), then as many as the share
  // matching among them says hold that many.
  let rows = size;
  for (;;) {
    const probe = newestPrefixWords(db, prefixToken(term)!, session, rows);
    if (probe.words.length > MAX_WORDS) return undefined;
    const match = ftsAllQuery(terms, { term, words: probe.words })!;
    const found = windowTexts(db, match, size, { session, from: probe.from });
    if (found.length >= size || probe.whole) return found;
    // Rows that hold `size` matches at the share matching so far, taken low (two standard deviations): a
    // newer stretch richer in the prefix than the rest would send the next read past its end. Past MAX_ROWS
    // the prefix is rare enough for FTS5 to merge cheaply.
    const sure = found.length - 2 * Math.sqrt(found.length);
    const needed = sure > 0 ? Math.ceil((rows * size) / sure) : Infinity;
    if (needed > MAX_ROWS || rows >= MAX_ROWS) return undefined;
    rows = needed;
  }
}
