// The indexed form of text, shared by writing and querying so both agree by construction:
// Latin words become their Porter2 stems (lower case); CJK runs become overlapping bigrams plus the
// run's last character, so any CJK substring of 1+ characters can be found with a unicode61 index.
import porter2 from "wink-porter2-stemmer";

export const CJK_RUN = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\uac00-\ud7af]+/g;
const WORD = /[A-Za-z][A-Za-z'’]*[A-Za-z]|[A-Za-z]/g;
const NON_ASCII = /[^\x00-\x7f]/;
const ASCII_RUN = /[A-Za-z0-9']+/g;

const stems = new Map<string, string>();

/** Porter2 stem of one word (lower-cased, possessive dropped); cached, since vocabularies repeat. */
export function stemWord(word: string): string {
  const lower = word.toLowerCase();
  if (lower.length > 40) return lower; // no English word is this long; stemming it would only cost time
  let s = stems.get(lower);
  if (s === undefined) {
    s = porter2(lower.replace(/['’]s?$/, "").replace(/['’]/g, ""));
    if (stems.size > 200_000) stems.clear();
    stems.set(lower, s);
  }
  return s;
}

export function cjkBigrams(run: string): string[] {
  const chars = Array.from(run);
  if (chars.length === 1) return chars;
  const out: string[] = [];
  for (let i = 0; i < chars.length - 1; i++) out.push(chars[i]! + chars[i + 1]!);
  out.push(chars[chars.length - 1]!);
  return out;
}

export function searchForm(text: string): string {
  let out = text.replace(WORD, stemWord);
  CJK_RUN.lastIndex = 0;
  if (CJK_RUN.test(out)) {
    CJK_RUN.lastIndex = 0;
    out = out.replace(CJK_RUN, (run) => " " + cjkBigrams(run).join(" ") + " ");
  }
  return out;
}

/**
 * The index's tokens of `text` that begin with `prefix` (ASCII letters and digits): searchForm's text as
 * unicode61 with remove_diacritics splits and folds it. ASCII text is split as unicode61 does (letters and
 * digits only); other text is folded by Unicode decomposition, which is what remove_diacritics undoes.
 */
export function indexTokensStarting(text: string, prefix: string): string[] {
  const out: string[] = [];
  if (!NON_ASCII.test(text)) {
    // searchForm changes letters within a run of letters, digits and apostrophes only, and keeps a word's
    // first letter: a run is formed only when it starts with the prefix's first character or holds an apostrophe.
    for (const [run] of text.matchAll(ASCII_RUN)) {
      if (run[0]!.toLowerCase() !== prefix[0] && !run.includes("'")) continue;
      for (const token of searchForm(run)
        .toLowerCase()
        .split(/[^a-z0-9]+/))
        if (token.startsWith(prefix)) out.push(token);
    }
    return out;
  }
  const folded = searchForm(text)
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();
  for (const token of folded.split(/[^\p{L}\p{N}\p{Co}]+/u)) if (token.startsWith(prefix)) out.push(token);
  return out;
}
