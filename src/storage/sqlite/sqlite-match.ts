// A port TextQuery as an FTS5 MATCH expression: each phrase quoted (the text is never FTS5 syntax).
import type { TextPhrase, TextQuery } from "../ports/archive-port.ts";

function phrase(p: TextPhrase): string | undefined {
  const tokens = p.tokens.filter((t) => t.length > 0);
  if (tokens.length === 0) return undefined;
  return `"${tokens.join(" ").replaceAll('"', '""')}"${p.prefix ? "*" : ""}`;
}

/** The MATCH expression, or undefined when nothing in the query can match. */
export function sqliteMatch(q: TextQuery): string | undefined {
  const terms = q.terms
    .map((alternatives) => alternatives.map(phrase).filter((p): p is string => p !== undefined))
    .filter((alts) => alts.length > 0)
    .map((alts) => (alts.length > 1 ? `(${alts.join(" OR ")})` : alts[0]!));
  if (terms.length === 0 || (q.mode === "all" && terms.length < q.terms.length)) return undefined;
  return terms.join(q.mode === "all" ? " AND " : " OR ");
}
