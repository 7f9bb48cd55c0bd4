// Recent substring matches of a query that mixes CJK words with others (`error ログ`): the rows holding its CJK
// words come from the word index, which holds exactly those (their bigrams), newest first, and are checked for
// the other words in their text. The trigram walk could only use the other words' trigrams, and a two-character
// CJK word has none of its own.
import type { Db } from "../storage/sqlite/db.ts";
import {
  type IndexStats,
  type KeywordFilter,
  type WindowText,
  windowTexts,
} from "../storage/sqlite/keyword-queries.ts";
import { rowsHoldingAll } from "./rows-holding.ts";
import { hasArchived, recentTierAtMost } from "../storage/sqlite/recent-tier-size.ts";
import { ftsAllQuery, ftsTerm, substringInIndex, type QueryTerm } from "./query-terms.ts";

/**
 * Whether such matches are found this way, and the largest recent tier left to the walk, which goes quickly over
 * that many rows (tests change both). Beside archived rows the tier is usually small and the CJK words' rows are
 * spread over the archive, so an FTS5 pass over them would cost more than the walk.
 */
export const CJK_FIRST = { on: true, smallTier: 20_000 };

/** Rows of the CJK words read at most: past that the other words are rare enough for the walk to find their rows sooner. */
const MAX_READ = 800;

/**
 * The newest `size` recent rows holding every term of `used` as a substring (as JS lower-cases text), when some are
 * CJK words the index finds exactly and reading their rows should take at most MAX_READ; undefined otherwise.
 */
export function cjkFirstSubstrings(
  db: Db,
  used: readonly QueryTerm[],
  filter: KeywordFilter,
  size: number,
  light: boolean,
  stats: () => IndexStats,
): { row: WindowText; text: string }[] | undefined {
  if (!CJK_FIRST.on) return undefined;
  // Two-character words: the walk has a trigram of a longer one to go by, and one character is a prefix, which
  // FTS5 merges whole.
  const cjk = used.filter((t) => substringInIndex(t) && Array.from(t.text).length === 2);
  const others = used.filter((t) => !cjk.includes(t));
  if (cjk.length === 0 || others.length === 0 || others.some((t) => t.cjk)) return undefined;
  if (filter.session !== undefined || hasArchived(db, undefined) || recentTierAtMost(db, CJK_FIRST.smallTier))
    return undefined;
  const expr = ftsAllQuery(cjk)!;
  const st = stats();
  // A word's rows hold it as a substring too: at most this many rows are read for `size` that hold the others.
  const othersShare = others.reduce((p, t) => p * st.share(ftsTerm(t, false)), 1);
  let reads = Math.ceil(Math.min(size / Math.max(othersShare, 1e-9), st.share(expr) * st.rows) * 1.5);
  if (reads > MAX_READ) return undefined;
  reads = Math.max(reads, size);
  for (;;) {
    const rows = windowTexts(db, expr, reads, { ...filter, recent: true, passing: true }, !light);
    const held = rowsHoldingAll(db, rows, used);
    // The newest `reads` rows holding the CJK words hold the newest matches of all, when `size` are among them.
    if (held.length >= size || rows.length < reads)
      return held.sort((a, b) => (a.row.seq < b.row.seq ? 1 : -1)).slice(0, size);
    if (reads >= MAX_READ) return undefined;
    reads = Math.min(MAX_READ, reads * 4);
  }
}
