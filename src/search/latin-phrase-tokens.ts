// The index tokens of lower-case text whose letters and digits are all ASCII (latinTokensOnly), as far as a
// multi-token phrase's count goes, in one pass: a token that cannot be one of the phrase's (its first character
// starts none of them) stands as null, unbuilt and its words unstemmed. The same sequence, null for such tokens,
// as formTokens(searchForm(text)) (test/core/phrase-count.test.ts compares them): searchForm replaces each word
// (a letter, then letters and apostrophes, ending in a letter) by its Porter2 stem, which keeps the word's first
// letter, and the index splits the result into runs of letters and digits; any other character (punctuation,
// symbols, emoji, spaces of any script) splits tokens.
import { stemWord } from "../shared/search-form.ts";

const isLetter = (c: number) => c >= 97 && c <= 122;
const isDigit = (c: number) => c >= 48 && c <= 57;
const isApostrophe = (c: number) => c === 39 || c === 0x2019;

/** A character beyond ASCII that the index takes into a token (a letter, digit or mark), other than ’. */
const WIDE_TOKEN_CHAR = /[^\x00-\x7f\u2019\p{P}\p{S}\p{Z}\p{Cc}\p{Cf}\p{Cs}\p{Cn}]/u;

/** Whether latinPhraseTokens reads `lower` as the index does: none of its tokens holds a character beyond ASCII. */
export const latinTokensOnly = (lower: string) => !WIDE_TOKEN_CHAR.test(lower);

/** `lower`'s tokens in order, null for those no token of the phrase begins like (`firsts`: their first characters). */
export function latinPhraseTokens(lower: string, firsts: ReadonlySet<number>): (string | null)[] {
  const out: (string | null)[] = [];
  // The token being read: undefined between tokens, null when it cannot be the phrase's.
  let cur: string | null | undefined;
  const close = () => {
    if (cur !== undefined) out.push(cur);
    cur = undefined;
  };
  const open = (piece: string) => {
    cur = firsts.has(piece.charCodeAt(0)) ? piece : null;
  };
  const n = lower.length;
  let i = 0;
  while (i < n) {
    const c = lower.charCodeAt(i);
    if (isDigit(c)) {
      const start = i;
      while (i < n && isDigit(lower.charCodeAt(i))) i++;
      if (cur === undefined) open(lower.slice(start, i));
      else if (cur !== null) cur += lower.slice(start, i);
      continue;
    }
    if (!isLetter(c)) {
      close();
      i++;
      continue;
    }
    // A word: its apostrophes after the last letter are not part of it; one inside splits its stem's tokens.
    const start = i;
    let end = ++i;
    let apostrophe = false;
    let inner = false;
    while (i < n) {
      const d = lower.charCodeAt(i);
      if (isLetter(d)) {
        inner ||= apostrophe;
        end = ++i;
      } else if (isApostrophe(d)) {
        apostrophe = true;
        i++;
      } else break;
    }
    i = end;
    // After a digit the word goes on the digits' token; otherwise it begins a token, with its own first letter.
    // Only a token after an apostrophe inside it can then be the phrase's.
    const joined = cur !== undefined;
    if (!inner && (joined ? cur === null : !firsts.has(c))) {
      if (!joined) cur = null;
      continue;
    }
    const stem = stemWord(lower.slice(start, end));
    const pieces = inner ? stem.split(/['\u2019]/) : [stem];
    if (!joined) open(pieces[0]!);
    else if (cur !== null) cur += pieces[0]!;
    for (let k = 1; k < pieces.length; k++) {
      close();
      if (pieces[k] !== "") open(pieces[k]!);
    }
  }
  close();
  return out;
}
