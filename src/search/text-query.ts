// A user's query as the archive port's TextQuery: the same terms, stems and CJK bigrams as the FTS5
// expressions of query-terms.ts, in a form every backend translates (FTS5 MATCH, PostgreSQL tsquery).
import type { TextPhrase, TextQuery } from "../storage/ports/archive-port.ts";
import { formTokens } from "../shared/index-tokens.ts";
import { queryTerms, termForm, type QueryTerm } from "./query-terms.ts";

function termPhrases(t: QueryTerm, prefix: boolean): TextPhrase[] {
  if (t.cjk) {
    const chars = Array.from(t.text);
    if (chars.length === 1) return [{ tokens: chars, prefix: true }];
    return [{ tokens: chars.slice(0, -1).map((c, i) => c + chars[i + 1]!) }];
  }
  const out: TextPhrase[] = [{ tokens: formTokens(termForm(t)) }];
  if (t.folded !== undefined) out.push({ tokens: [t.folded] });
  if (prefix && t.partial && t.text.length >= 3 && /^[a-z0-9]+$/.test(t.text))
    out.push({ tokens: [t.text], prefix: true });
  return out.filter((p) => p.tokens.length > 0);
}

/** Every content term must match (stop words only when the query has nothing else); undefined when empty. */
export function textQueryAll(terms: readonly QueryTerm[]): TextQuery | undefined {
  const content = terms.filter((t) => !t.stop);
  const use = content.length > 0 ? content : terms;
  const out = use.map((t) => termPhrases(t, true)).filter((p) => p.length > 0);
  return out.length ? { mode: "all", terms: out } : undefined;
}

/** Any content term may match (whole words only); undefined for fewer than two content terms. */
export function textQueryAny(terms: readonly QueryTerm[]): TextQuery | undefined {
  const content = terms.filter((t) => !t.stop);
  if (content.length < 2) return undefined;
  const out = content.map((t) => termPhrases(t, false)).filter((p) => p.length > 0);
  return out.length ? { mode: "any", terms: out } : undefined;
}

/** The all-terms query of a user's text. */
export function textQuery(query: string, options: { typing?: boolean } = {}): TextQuery | undefined {
  return textQueryAll(queryTerms(query, options));
}

/** These terms as one query (whole words), every one or any of them; undefined when none can match. */
export function textQueryOf(terms: readonly QueryTerm[], mode: TextQuery["mode"]): TextQuery | undefined {
  const out = terms.map((t) => termPhrases(t, false)).filter((p) => p.length > 0);
  return out.length ? { mode, terms: out } : undefined;
}
