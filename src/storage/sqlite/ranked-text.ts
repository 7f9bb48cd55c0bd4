// The start of a row's text that ranking reads. A longer row (an agent's tool output: a whole file, a long log)
// is matched in full by the word index and by substring search; its counts of a query's words and its
// whole-word and phrase lifts come from its first RANKED_CHARS characters, so a match window's cost does not
// grow with the size of its rows (bench/RESULTS.md).
import { lowerCase } from "../../shared/lower-case.ts";

/** Characters (code points) of a row that ranking reads; 011-v0.7.sql keeps RANKED_CHARS + 1 of a long row. */
export const RANKED_CHARS = 4_096;

/**
 * SQL true for a row whose text (`column`) is at most RANKED_CHARS bytes: ranking reads it whole, and the row's
 * columns stored after it lie on its first page or the next (4 KiB pages), where a longer text's lie at the end of
 * its overflow pages.
 */
export const inlineTextSql = (column: string) => `octet_length(${column}) <= ${RANKED_CHARS}`;

/**
 * SQL for the text of `column` that ranking reads: all of it when at most RANKED_CHARS bytes (its length in bytes
 * costs no read), else its first RANKED_CHARS + 1 characters, one more than ranking reads (see rankedStart). A
 * longer one is read from message_starts (011-v0.7.sql, which keeps the same characters) when the home has it
 * and it holds the row: substr() of the column itself reads the whole value from its overflow pages.
 */
export const rankedTextSql = (column: string, seq: string, starts: boolean) => {
  const cut = `substr(${column}, 1, ${RANKED_CHARS + 1})`;
  const long = starts ? `coalesce((SELECT h.head FROM message_starts h WHERE h.seq = ${seq}), ${cut})` : cut;
  return `CASE WHEN ${inlineTextSql(column)} THEN ${column} ELSE ${long} END`;
};

/** rankedTextSql in SQLite's lower case: only that much is lower-cased and copied out. */
export const rankedStartSql = (column: string, seq: string, starts: boolean) =>
  `lower(${rankedTextSql(column, seq, starts)})`;

const SURROGATE = /[\ud800-\udfff]/;

/**
 * A value of rankedStartSql as the start ranking reads (at most RANKED_CHARS characters), and whether the row's
 * text goes on past it.
 */
export function rankedStart(start: string): { text: string; cut: boolean } {
  // Fewer UTF-16 units than that means fewer characters.
  if (start.length <= RANKED_CHARS) return { text: start, cut: false };
  // Without a surrogate in its first RANKED_CHARS units, those are its first RANKED_CHARS characters (a native
  // scan of them alone, quicker than counting them one by one).
  const head = start.slice(0, RANKED_CHARS);
  if (!SURROGATE.test(head)) return { text: head, cut: true };
  let at = 0;
  for (let n = 0; n < RANKED_CHARS && at < start.length; n++) {
    const c = start.charCodeAt(at);
    at += c >= 0xd800 && c <= 0xdbff && at + 1 < start.length ? 2 : 1;
  }
  return at < start.length ? { text: start.slice(0, at), cut: true } : { text: start, cut: false };
}

/** A character JS lower-cases (lower-case.ts), or half of a surrogate pair: text without one is one unit a character. */
const CASED_OR_PAIRED = /[\p{Changes_When_Lowercased}\u{10000}-\u{10ffff}\ud800-\udfff]/u;

/** rankedStart's text in JS lower case; by one scan of the text when it holds neither (most text). */
export function rankedLower(start: string): { text: string; cut: boolean } {
  if (CASED_OR_PAIRED.test(start)) {
    const { text, cut } = rankedStart(start);
    return { text: lowerCase(text), cut };
  }
  return start.length > RANKED_CHARS ? { text: start.slice(0, RANKED_CHARS), cut: true } : { text: start, cut: false };
}

/** Units of a text that hold at least RANKED_CHARS + 1 characters (a character is one or two units). */
const START_UNITS = 2 * (RANKED_CHARS + 1);

/**
 * rankedStart(text.toLowerCase()).text, lower-casing only the start of a long text: a character's lower case is
 * one or two characters whatever follows it, except Σ's (final sigma), which the start then must not hold.
 */
export function lowerStart(text: string): string {
  if (text.length > START_UNITS) {
    const head = text.slice(0, START_UNITS);
    if (!head.includes("Σ")) return rankedStart(head.toLowerCase()).text;
  }
  return rankedStart(text.toLowerCase()).text;
}
