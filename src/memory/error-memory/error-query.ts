// The keyword side of an error search: the query's content words as an FTS5 OR expression. Words every
// error shares (error, failed, fatal…) and variable parts (long numbers, hex) are left out.
import { queryTerms, type QueryTerm } from "../../search/query-terms.ts";
import { searchForm } from "../../shared/search-form.ts";

const GENERIC = new Set(
  ("error errors err failed failure fail fails fatal exception unable cannot can't couldn't could warning warn issue problem " +
    "got get gets getting says said tried try when while running run redacted").split(" "),
);
const MAX_TERMS = 48;

function useful(t: QueryTerm): boolean {
  if (t.stop || GENERIC.has(t.text)) return false;
  if (t.cjk) return true;
  if (t.text.length < 2) return false;
  if (/^\d{5,}$/.test(t.text)) return false;
  if (t.text.length >= 8 && /^[0-9a-f]+$/.test(t.text) && /\d/.test(t.text)) return false;
  return true;
}

/** One term as the index holds it: a Porter2 stem, or a bigram phrase (a prefix for one character) for CJK. */
function ftsTerm(t: QueryTerm): string {
  if (!t.cjk) return `"${searchForm(t.text).trim().replaceAll('"', '""')}"`;
  const chars = Array.from(t.text);
  if (chars.length === 1) return `"${t.text}"*`;
  const grams: string[] = [];
  for (let i = 0; i < chars.length - 1; i++) grams.push(chars[i]! + chars[i + 1]!);
  return `"${grams.join(" ")}"`;
}

/** An FTS5 expression matching any content word of `text`, or undefined when it has none. */
export function errorFtsQuery(text: string): string | undefined {
  const terms = queryTerms(text).filter(useful).slice(0, MAX_TERMS);
  return terms.length ? terms.map(ftsTerm).join(" OR ") : undefined;
}
