// A port TextQuery rendered in a driver's query syntax: alternatives joined by OR, terms by AND or OR.
import type { TextPhrase, TextQuery } from "./archive-port.ts";

export interface QuerySyntax {
  /** One phrase in the driver's syntax; undefined when nothing in it can match. */
  phrase(p: TextPhrase): string | undefined;
  or: string;
  and: string;
}

/** The query text, or undefined when nothing in the query can match. */
export function renderTextQuery(q: TextQuery, syntax: QuerySyntax): string | undefined {
  const terms = q.terms
    .map((alternatives) => alternatives.map(syntax.phrase).filter((p): p is string => p !== undefined))
    .filter((alts) => alts.length > 0)
    .map((alts) => (alts.length > 1 ? `(${alts.join(syntax.or)})` : alts[0]!));
  if (terms.length === 0 || (q.mode === "all" && terms.length < q.terms.length)) return undefined;
  return terms.join(q.mode === "all" ? syntax.and : syntax.or);
}
