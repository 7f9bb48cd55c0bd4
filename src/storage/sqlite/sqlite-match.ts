// A port TextQuery as an FTS5 MATCH expression: each phrase quoted (the text is never FTS5 syntax).
import type { TextPhrase, TextQuery } from "../ports/archive-port.ts";
import { renderTextQuery } from "../ports/text-query.ts";

function phrase(p: TextPhrase): string | undefined {
  const tokens = p.tokens.filter((t) => t.length > 0);
  if (tokens.length === 0) return undefined;
  return `"${tokens.join(" ").replaceAll('"', '""')}"${p.prefix ? "*" : ""}`;
}

/** The MATCH expression, or undefined when nothing in the query can match. */
export function sqliteMatch(q: TextQuery): string | undefined {
  return renderTextQuery(q, { phrase, or: " OR ", and: " AND " });
}
