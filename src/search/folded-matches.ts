// Recent rows holding a query word in its other spelling (naïve for naive, résumé for resume, ёлка for елка), which
// the substring match, comparing text as written, never finds: the word index holds that spelling apart.
import type { Db } from "../storage/sqlite/db.ts";
import { windowTexts, type KeywordFilter, type WindowText } from "../storage/sqlite/keyword-queries.ts";
import { contentTerms, ftsAllQuery, type QueryTerm } from "./query-terms.ts";

/** Text with case and marks folded, ß as ss: a word's spellings with and without accents compare equal. */
export const foldMarks = (s: string) => s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replaceAll("ß", "ss");

/**
 * The newest `size` recent rows that hold every content term, one of them at least in its other spelling (a term's
 * `folded` form, set where the index holds it), with their content. None without such a term (no extra read).
 */
export function foldedRecentRows(
  db: Db,
  terms: readonly QueryTerm[],
  filter: KeywordFilter,
  size: number,
): { row: WindowText; text: string }[] {
  const folded = contentTerms(terms).flatMap((t) => (t.folded === undefined ? [] : [t.folded]));
  const all = ftsAllQuery(terms);
  if (folded.length === 0 || all === undefined) return [];
  const other = folded.map((f) => `"${f.replaceAll('"', '""')}"`).join(" OR ");
  return windowTexts(db, `(${all}) AND (${other})`, size, { ...filter, recent: true, passing: true }, true).map(
    (r) => ({ row: r, text: r.content ?? "" }),
  );
}
