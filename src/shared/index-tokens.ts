// The keyword index's tokens of a text, as every backend stores them: the search form, lower case,
// diacritics removed, split on anything that is not a letter, digit or mark (FTS5's unicode61 rule).
import { searchForm } from "./search-form.ts";

const TOKEN = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

const fold = (s: string) => (/[^\x00-\x7f]/.test(s) ? s.normalize("NFD").replace(/\p{M}/gu, "") : s);

/** Tokens of text already in search form (or a query phrase built from it). */
export function formTokens(form: string): string[] {
  return fold(form.toLowerCase()).match(TOKEN) ?? [];
}

export function indexTokens(text: string): string[] {
  return formTokens(searchForm(text));
}

/**
 * The index tokens of `text` that begin with `prefix` (ASCII letters and digits), in text order. ASCII text is
 * tokenized only a run of letters, digits and apostrophes that a token beginning with the prefix's first character
 * may start in: searchForm changes letters within a run only and keeps a word's first letter, so such a token
 * starts with that character after no letter or digit (an apostrophe may split a run or be dropped from a word).
 * Other text is read a piece between spaces at a time: the pieces beyond ASCII whole, the rest as ASCII text.
 */
export function indexTokensStarting(text: string, prefix: string): string[] {
  const out: string[] = [];
  const ascii = asciiTokensStarting(text, prefix, out);
  let from = 0;
  let pieces = 0;
  BEYOND_ASCII.lastIndex = 0;
  for (let m = BEYOND_ASCII.exec(text); m; m = BEYOND_ASCII.exec(text)) {
    if (isSpace(text.charCodeAt(m.index))) continue;
    // Text of many such pieces (a language beyond ASCII) is tokenized faster whole.
    if (++pieces > WHOLE_PAST && pieces * CHARS_A_PIECE > m.index)
      return indexTokens(text).filter((t) => t.startsWith(prefix));
    let start = m.index;
    while (start > 0 && !isSpace(text.charCodeAt(start - 1))) start--;
    let end = m.index + 1;
    while (end < text.length && !isSpace(text.charCodeAt(end))) end++;
    ascii(from, start);
    for (const token of indexTokens(text.slice(start, end))) if (token.startsWith(prefix)) out.push(token);
    from = end;
    BEYOND_ASCII.lastIndex = end;
  }
  ascii(from, text.length);
  return out;
}

const BEYOND_ASCII = /[^\x00-\x7f]/g;
/**
 * A text with more than WHOLE_PAST pieces beyond ASCII, more than one each CHARS_A_PIECE characters so far, is
 * tokenized whole: a piece costs a call of indexTokens, about what 25 characters of a whole text cost.
 */
const WHOLE_PAST = 32;
const CHARS_A_PIECE = 50;

/**
 * A space ends every word and token, and no character's lower case depends on what lies past one (Σ's looks past
 * case-ignorable characters only, and no space is one; U+FEFF, which \s holds, is).
 */
const isSpace = (c: number) =>
  c === 32 ||
  (c >= 9 && c <= 13) ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000;

const isRunChar = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 39;

/** Where a token beginning with a character may start: that character, in either case, after no letter or digit. */
const startsOf = new Map<string, RegExp>();

/**
 * indexTokensStarting over stretches of `text` that are ASCII and ended by spaces or the text's ends, given in text
 * order: one search for the prefix's first character goes through the text once, whatever the stretches.
 */
function asciiTokensStarting(text: string, prefix: string, out: string[]): (from: number, to: number) => void {
  const first = prefix[0]!;
  let starts = startsOf.get(first);
  if (!starts) startsOf.set(first, (starts = new RegExp(`(?<![A-Za-z0-9])[${first}${first.toUpperCase()}]`, "g")));
  const search = starts;
  search.lastIndex = 0;
  let next = search.exec(text)?.index ?? Infinity;
  return (from, to) => {
    while (next < to) {
      if (next >= from) {
        let start = next;
        while (start > from && isRunChar(text.charCodeAt(start - 1))) start--;
        let end = next + 1;
        while (end < to && isRunChar(text.charCodeAt(end))) end++;
        for (const token of indexTokens(text.slice(start, end))) if (token.startsWith(prefix)) out.push(token);
        search.lastIndex = end;
      } else search.lastIndex = from;
      next = search.exec(text)?.index ?? Infinity;
    }
  };
}
