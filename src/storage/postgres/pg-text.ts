// The keyword index on PostgreSQL: tsvector and tsquery literals built from memvoy's own index tokens, so
// PostgreSQL's parser (which splits hyphens, URLs and numbers its own way) never decides what a token is.
// This is the `simple` configuration's behaviour (no stemming, no stop words) with memvoy's tokenizer.
import { formTokens, indexTokens } from "../../shared/index-tokens.ts";
import type { TextPhrase, TextQuery } from "../ports/archive-port.ts";
import { renderTextQuery } from "../ports/text-query.ts";

/** tsvector limits: a lexeme below 2 KB, positions 1..16383 and 256 per lexeme, the whole value below 1 MB. */
const MAX_LEXEME_BYTES = 2046;
const MAX_POSITION = 16_383;
const MAX_POSITIONS = 256;
const MAX_VECTOR_BYTES = 900_000;

const quote = (token: string) =>
  token.includes("'") || token.includes("\\") ? `'${token.replace(/\\/g, "\\\\").replace(/'/g, "''")}'` : `'${token}'`;
/** UTF-8 length, exact only when it could matter (a UTF-16 unit is at most 3 bytes). */
const bytes = (s: string) => (s.length * 3 <= MAX_LEXEME_BYTES ? s.length * 3 : Buffer.byteLength(s));

/** The tsvector literal of some texts' index tokens, positions counted across them in order. */
export function tsvectorText(...texts: readonly string[]): string {
  const positions = new Map<string, number[]>();
  let size = 0;
  let pos = 0;
  for (const text of texts) {
    for (const token of indexTokens(text)) {
      pos++;
      if (bytes(token) > MAX_LEXEME_BYTES) continue;
      let list = positions.get(token);
      if (!list) {
        // Its exact size: the bound above counts 3 bytes a character, which would cut an ASCII text at a third.
        size += Buffer.byteLength(token) + 8;
        if (size > MAX_VECTOR_BYTES) return render(positions); // a giant text: its head is indexed
        positions.set(token, (list = []));
      }
      const at = Math.min(pos, MAX_POSITION);
      if (list.length < MAX_POSITIONS && list[list.length - 1] !== at) {
        list.push(at);
        size += 2;
      }
    }
  }
  return render(positions);
}

function render(positions: Map<string, number[]>): string {
  const out: string[] = [];
  for (const [token, list] of positions) out.push(`${quote(token)}:${list.join(",")}`);
  return out.join(" ");
}

function phrase(p: TextPhrase): string | undefined {
  const tokens = p.tokens.flatMap((t) => formTokens(t)).filter((t) => bytes(t) <= MAX_LEXEME_BYTES);
  if (tokens.length === 0) return undefined;
  const parts = tokens.map(quote);
  if (p.prefix) parts[parts.length - 1] += ":*";
  return parts.length > 1 ? `(${parts.join(" <-> ")})` : parts[0];
}

/** The tsquery literal of a TextQuery; undefined when nothing in it can match a token. */
export function tsqueryText(q: TextQuery): string | undefined {
  return renderTextQuery(q, { phrase, or: " | ", and: " & " });
}

/** The search form of an error record's text columns, in one vector. */
export function errorVectorText(f: { error: string; cause: string | null; fix: string; keywords: string[] }): string {
  return tsvectorText(f.error, f.cause ?? "", f.fix, f.keywords.join(" "));
}

/**
 * An ILIKE pattern selecting every text that holds `needle` in any case: `%`, `_` and `\` escaped, and a letter
 * beyond ASCII that has another case as `%`, since the server's locale may not fold it (the C locale folds ASCII
 * only). It may select more; the caller checks each row.
 */
export function likePattern(needle: string): string {
  let out = "%";
  for (const c of needle) {
    if (c > "\x7f" && (c.toLowerCase() !== c || c.toUpperCase() !== c)) {
      if (!out.endsWith("%") || out.endsWith("\\%")) out += "%";
    } else out += c === "%" || c === "_" || c === "\\" ? `\\${c}` : c;
  }
  return out.endsWith("%") && !out.endsWith("\\%") ? out : `${out}%`;
}
