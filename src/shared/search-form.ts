// The indexed form of text, shared by writing and querying so both agree by construction:
// Latin words become their Porter2 stems (lower case); CJK runs become overlapping bigrams plus the
// run's last character, so any CJK substring of 1+ characters can be found with a unicode61 index.
import { porter2Ascii } from "./porter2.ts";

export const CJK_RUN = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\uac00-\ud7af]+/g;

/** Stems by the word as written (a plain object: faster than a Map for the fresh substrings looked up). */
let stems: Record<string, string> = Object.create(null);
let stemCount = 0;

const ASCII_WORD = /^[a-z]*$/;
/** A word with other characters (digits, letters beyond ASCII) is stemmed by the library porter2.ts follows. */
const otherStem = (word: string) => (require("wink-porter2-stemmer") as (w: string) => string)(word);

/** Porter2 stem of one word (lower-cased, possessive dropped); cached, since vocabularies repeat. */
export function stemWord(word: string): string {
  const known = stems[word];
  if (known !== undefined) return known;
  const lower = word.toLowerCase();
  if (lower.length > 40) return lower; // no English word is this long; stemming it would only cost time
  const bare = lower.replace(/['’]s?$/, "").replace(/['’]/g, "");
  const s = ASCII_WORD.test(bare) ? porter2Ascii(bare) : otherStem(bare);
  if (++stemCount > 200_000) {
    stems = Object.create(null);
    stemCount = 1;
  }
  stems[word] = s;
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

const isLatinLetter = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
const isApostrophe = (c: number) => c === 39 || c === 0x2019;
const INNER_APOSTROPHE = /['\u2019]/;

/**
 * The text with each Latin word (a letter, then letters and apostrophes, ending in a letter) replaced by its
 * stem. A character loop: this runs on every message written, and a regex replace with a callback cost about
 * as much as the stemming (bench/RESULTS.md).
 */
function stemLatinWords(text: string, stems: (text: string, start: number) => boolean = () => true): string {
  let out = "";
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    if (!isLatinLetter(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    let end = ++i;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (isLatinLetter(c)) end = ++i;
      else if (isApostrophe(c)) i++;
      else break;
    }
    // Apostrophes after the last letter are not part of the word (nor can they begin the next one).
    const word = text.slice(start, end);
    // A word left out stands as its first letter; one with an apostrophe inside is always stemmed, since the
    // index splits it there and its later part begins a token of its own.
    const stem = stems(text, start) || INNER_APOSTROPHE.test(word) ? stemWord(word) : text[start]!;
    if (stem !== word) {
      out += text.slice(copied, start) + stem;
      copied = end;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * searchForm as far as the Latin words `stems` picks go (every other Latin word stands as its first letter), for
 * text of any script: CJK runs become bigrams as there.
 */
export function searchFormWhere(text: string, stems: (text: string, start: number) => boolean): string {
  return cjkForm(stemLatinWords(text, stems));
}

export function searchForm(text: string): string {
  return cjkForm(stemLatinWords(text));
}

function cjkForm(text: string): string {
  let out = text;
  CJK_RUN.lastIndex = 0;
  if (CJK_RUN.test(out)) {
    CJK_RUN.lastIndex = 0;
    out = out.replace(CJK_RUN, (run) => " " + cjkBigrams(run).join(" ") + " ");
  }
  return out;
}
