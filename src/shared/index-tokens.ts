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

const ASCII_RUN = /[A-Za-z0-9']+/g;

/**
 * The index tokens of `text` that begin with `prefix` (ASCII letters and digits). ASCII text is tokenized a
 * run of letters, digits and apostrophes at a time, and only the runs that can yield such a token: searchForm
 * changes letters within a run only and keeps a word's first letter, and an apostrophe may split or join.
 */
export function indexTokensStarting(text: string, prefix: string): string[] {
  if (/[^\x00-\x7f]/.test(text)) return indexTokens(text).filter((t) => t.startsWith(prefix));
  const out: string[] = [];
  for (const [run] of text.matchAll(ASCII_RUN)) {
    if (run[0]!.toLowerCase() !== prefix[0] && !run.includes("'")) continue;
    for (const token of indexTokens(run)) if (token.startsWith(prefix)) out.push(token);
  }
  return out;
}
