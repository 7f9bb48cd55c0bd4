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
