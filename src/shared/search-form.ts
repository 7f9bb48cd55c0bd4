// The indexed form of text, shared by writing and querying so both agree by construction:
// Latin words become their Porter2 stems (lower case); CJK runs become overlapping bigrams plus the
// run's last character, so any CJK substring of 1+ characters can be found with a unicode61 index.
import porter2 from "wink-porter2-stemmer";

export const CJK_RUN = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\uac00-\ud7af]+/g;
const WORD = /[A-Za-z][A-Za-z'’]*[A-Za-z]|[A-Za-z]/g;

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
