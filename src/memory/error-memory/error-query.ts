// The keyword side of an error search: the query's content words as an FTS5 OR expression. Words every
// error shares (error, failed, fatal…) and variable parts (long numbers, hex) are left out.
import { ftsTerm, queryForms, queryTerms, type QueryTerm } from "../../search/query-terms.ts";

export const GENERIC_ERROR_WORDS = new Set(
  (
    "error errors err failed failure fail fails fatal exception unable cannot can't couldn't could warning warn issue problem " +
    "got get gets getting says said tried try when while running run redacted"
  ).split(" "),
);
const MAX_TERMS = 48;

function useful(t: QueryTerm): boolean {
  if (t.stop || GENERIC_ERROR_WORDS.has(t.text)) return false;
  if (t.cjk) return true;
  if (t.text.length < 2) return false;
  if (/^\d{5,}$/.test(t.text)) return false;
  if (t.text.length >= 8 && /^[0-9a-f]+$/.test(t.text) && /\d/.test(t.text)) return false;
  return true;
}

/** An FTS5 expression matching any content word of `text`, or undefined when it has none. */
export function errorFtsQuery(text: string): string | undefined {
  const terms = errorQueryTerms(text);
  return terms.length ? terms.map((t) => ftsTerm(t, false)).join(" OR ") : undefined;
}

/**
 * The content words of an error text a lookup searches for: NFKC-normalised, and also as typed where that
 * differs (records are indexed as written, so `ＡＰＩ` finds a record holding exactly that).
 */
export function errorQueryTerms(text: string): QueryTerm[] {
  const out: QueryTerm[] = [];
  const seen = new Set<string>();
  for (const asTyped of queryForms(text))
    for (const t of queryTerms(text, { asTyped }).filter(useful).slice(0, MAX_TERMS))
      if (!seen.has(t.text)) {
        seen.add(t.text);
        out.push(t);
      }
  return out;
}
