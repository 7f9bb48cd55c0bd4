// German ß and ss spell one word (Straße, Strasse, STRASSE): the index keeps them apart, so each is also looked up
// in the other's index form.
import { formTokens } from "../shared/index-tokens.ts";
import { searchForm } from "../shared/search-form.ts";

/** Latin letters, with marks (the word's index form folds them). */
const LATIN_WORD = /^[\p{Script=Latin}\p{M}]+$/u;

/**
 * The index tokens of a word's other spellings with ß or ss (lower case, as a query term holds it), its own token
 * left out: for "straße" the stem of "strasse"; for "strasse" the token of "straße". None for other words.
 */
export function sharpSForms(word: string): string[] {
  if (!LATIN_WORD.test(word) || !(word.includes("ß") || word.includes("ss"))) return [];
  const token = (w: string) => {
    const t = formTokens(searchForm(w).trim());
    return t.length === 1 ? t[0] : undefined;
  };
  const own = token(word);
  let forms: (string | undefined)[];
  if (word.includes("ß")) {
    const plain = word.replaceAll("ß", "ss");
    // Written with its other marks (Fussgänger) or without them too (Fussganger, stemmed as ASCII).
    const bare = formTokens(plain);
    forms = [token(plain), bare.length === 1 ? token(bare[0]!) : undefined];
  } else {
    const bare = formTokens(word);
    forms = [bare.length === 1 ? token(bare[0]!.replaceAll("ss", "ß")) : undefined];
  }
  return [...new Set(forms.filter((f): f is string => f !== undefined && f !== own))];
}
