// bm25 computed in JS over the rows of a match window, the same formula as FTS5's bm25() (k1 1.2, b 0.75).
// Row lengths come from the index (FTS5's docsize); term counts are found in the row's text, word by
// word for stems (the index holds Porter2 stems), by substring for CJK. Document frequencies are
// estimates from the index (see matchShare); a one-phrase query's order needs none (its idf is the same for every row).
import { searchForm, searchFormWhere, stemWord } from "../shared/search-form.ts";
import { latinPhraseTokens, latinTokensOnly } from "./latin-phrase-tokens.ts";
import { formTokens, indexTokens } from "../shared/index-tokens.ts";
import { isAscii } from "../shared/ascii.ts";
import { exceptionalStart } from "../shared/porter2.ts";

const K1 = 1.2;
const B = 0.75;

/** A phrase of the FTS expression, and how to count it in a row's lower-case text. */
export interface Phrase {
  /** "stem": one Latin word (any form with this Porter2 stem); "prefix": words starting with `text`; "cjk": the text as a substring; "tokens": a phrase of index tokens. */
  kind: "stem" | "prefix" | "cjk" | "tokens";
  text: string;
  tokens: string[];
  /** Share of the indexed rows holding it (0..1); undefined when there is one phrase only. */
  share?: number;
  /** Words seen in rows so far and whether each is a form of a "stem" phrase (a window repeats a few words). */
  forms?: Map<string, boolean>;
  /** The first characters of a "tokens" phrase's tokens (see phraseTokens). */
  firsts?: Set<number>;
  /** wordKey's value, kept (it is looked for in every row). */
  key?: string;
  /** The last word isForm answered for, and its answer: a window's rows mostly hold one form. */
  last?: { word: string; form: boolean };
}

/** The index's tokens of a text: its search form, lower case, diacritics removed, split like unicode61. */
export { indexTokens };

const isWordChar = (c: number) => (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || c > 127;

/**
 * Where the word going on at `at` ends (word characters and apostrophes), and where the next word a key
 * (letters and digits) can start is looked for: past the word's first apostrophe, else past the word.
 */
function wordEnd(lower: string, at: number): { end: number; next: number } {
  let next = -1;
  let end = at;
  for (; end < lower.length; end++) {
    const c = lower.charCodeAt(end);
    if (c === 39 || c === 0x2019) {
      if (next < 0) next = end + 1;
    } else if (!isWordChar(c)) break;
  }
  return { end, next: next < 0 ? end : next };
}

/** A word as the index holds it: runs of letters stemmed, digits kept as they are. */
const indexedForm = (word: string) => (/^[a-z]+$/.test(word) ? stemWord(word) : searchForm(word));

/** What phraseCount looks for in the text of a "stem" or "prefix" phrase: every word it counts starts with it. */
// Porter2 only rewrites a word's ending (and a final y to i): all but its last letter is a prefix of the word. A word
// with digits has each run of letters stemmed ("windows11" is indexed as window11, "macos14" as maco14): the key
// ends before the last letter of its first run of two letters or more (a single letter is never rewritten).
// Porter2's exceptional words are keyed by the start they share with their stem (dying, die: "d").
const wordKey = (p: Phrase) => {
  if (p.kind === "prefix") return p.text;
  const start = exceptionalStart(p.text);
  if (start !== undefined) return start;
  if (p.text.length <= 3) return p.text;
  const run = /[a-z]{2,}/.exec(p.text);
  return run ? p.text.slice(0, run.index + run[0].length - 1) : p.text;
};

/**
 * A string that a row's lower-case text holds twice, without overlap, wherever the phrase counts more than once
 * in it (and once, or not at all, elsewhere: in a row the index matched for every phrase, it then counts once);
 * undefined for the kinds counted otherwise ("prefix" counts none for a row without it, "tokens" counts index
 * tokens).
 */
export function repeatKey(p: Phrase): string | undefined {
  if (p.kind === "cjk") return p.text;
  // A stem's key is letters and digits: two words starting with it, each after a non-word character, never overlap.
  return p.kind === "stem" ? wordKey(p) : undefined;
}

/**
 * A phrase in at least this share of rows tends to recur within them too: checking a window's rows for a repeat
 * then costs more than it saves (bench/RESULTS.md).
 */
const RECURS_SHARE = 0.5;

/**
 * Every phrase's repeatKey, when each has one and none is in most rows: a window matching them all reads the text
 * of rows holding one twice only.
 */
export function repeatKeys(phrases: readonly Phrase[]): string[] | undefined {
  const keys: string[] = [];
  for (const p of phrases) {
    const k = repeatKey(p);
    if (k === undefined || (p.share ?? 0) >= RECURS_SHARE) return undefined;
    keys.push(k);
  }
  return keys;
}

/** Occurrences of a phrase in a row's lower-case text. */
export function phraseCount(lower: string, p: Phrase): number {
  if (p.kind === "cjk") {
    let n = 0;
    for (let at = lower.indexOf(p.text); at >= 0; at = lower.indexOf(p.text, at + p.text.length)) n++;
    return n;
  }
  if (p.kind === "tokens") return tokenCount(phraseTokens(lower, p), p.tokens);
  const key = (p.key ??= wordKey(p));
  let n = 0;
  for (let at = lower.indexOf(key); at >= 0; ) {
    if (at > 0 && isWordChar(lower.charCodeAt(at - 1))) {
      at = lower.indexOf(key, at + 1);
      continue;
    }
    // Inside the word, only an apostrophe can stand before another word start.
    const w = wordEnd(lower, at + key.length);
    if (p.kind === "prefix" || formAt(p, lower, at, w.end)) n++;
    at = lower.indexOf(key, w.next);
  }
  return n;
}

/** isForm of the word from `at` to `end`, without copying it when it is the word asked about last. */
function formAt(p: Phrase, lower: string, at: number, end: number): boolean {
  const last = p.last;
  if (last && last.word.length === end - at && lower.startsWith(last.word, at)) return last.form;
  const word = lower.slice(at, end);
  const form = isForm(p, word);
  p.last = { word, form };
  return form;
}

/** Whether a word is a form of a "stem" phrase, remembered per phrase (the stem cache is far larger, so slower). */
function isForm(p: Phrase, word: string): boolean {
  const forms = (p.forms ??= new Map());
  let yes = forms.get(word);
  if (yes === undefined) {
    yes = indexedForm(word) === p.text;
    if (forms.size < 1024) forms.set(word, yes);
  }
  return yes;
}

const isDigit = (c: number) => c >= 48 && c <= 57;

/**
 * A row's index tokens as far as a "tokens" phrase's count goes. A Latin word that begins a token (no digit or
 * character beyond ASCII before it, which would join it to the one before) with a letter no token of the phrase
 * begins with cannot make one of its tokens: it is not stemmed (the costliest part of tokenizing a window's rows).
 */
function phraseTokens(lower: string, p: Phrase): (string | null)[] {
  const firsts = (p.firsts ??= new Set(p.tokens.map((t) => t.charCodeAt(0))));
  if (isAscii(lower) || latinTokensOnly(lower)) return latinPhraseTokens(lower, firsts);
  const joined = (c: number) => isDigit(c) || c > 0x7f;
  return formTokens(
    searchFormWhere(
      lower,
      (text, at) => firsts.has(text.charCodeAt(at)) || (at > 0 && joined(text.charCodeAt(at - 1))),
    ),
  );
}

function tokenCount(tokens: readonly (string | null)[], phrase: readonly string[]): number {
  let hits = 0;
  for (let i = 0; i + phrase.length <= tokens.length; i++) {
    let ok = true;
    for (let j = 0; j < phrase.length && ok; j++) ok = tokens[i + j] === phrase[j];
    if (ok) hits++;
  }
  return hits;
}

const idf = (share: number | undefined, rows: number) => {
  if (share === undefined) return 1;
  const n = share * rows;
  const v = Math.log((rows - n + 0.5) / (n + 0.5));
  return v > 0 ? v : CLAMPED_IDF;
};
const CLAMPED_IDF = 1e-6;

/** Whether a phrase weighs nothing here: in half the rows or more, its idf is clamped to almost 0. */
export const weightless = (p: Phrase, rows: number) => idf(p.share, rows) <= CLAMPED_IDF;

/** Whether every phrase weighs nothing here (see weightless). */
export const allWeightless = (phrases: readonly Phrase[], rows: number) => phrases.every((p) => weightless(p, rows));

/**
 * A bound no row's bm25 over these phrases reaches: each phrase adds less than idf·(k1 + 1), whatever its
 * count and the row's length.
 */
export function bm25Ceiling(phrases: readonly Phrase[], rows: number): number {
  let sum = 0;
  for (const p of phrases) sum += idf(p.share, rows) * (K1 + 1);
  return sum;
}

/**
 * bm25 of one row (higher is better): `lower` is its text in lower case, `length` its length in index
 * tokens. A row the index matched counts each phrase it holds at least once, even where the text
 * search misses a form (Porter2's few irregular words). No text: a row the index matched for every phrase
 * whose text holds no phrase's repeatKey twice, which counts each phrase once.
 */
export function bm25(
  lower: string | undefined,
  length: number,
  phrases: readonly Phrase[],
  rows: number,
  avgTokens: number,
  matchedAll = false,
  /** A phrase the index says the row does not hold (not counted in its text). */
  lacks?: (p: Phrase) => boolean,
  /** A phrase the index says the row holds, where `lower` is only its text's start: counted once at least. */
  holds?: (p: Phrase) => boolean,
): number {
  const norm = K1 * (1 - B + (B * length) / avgTokens);
  let score = 0;
  for (const p of phrases) {
    if (lacks?.(p)) continue;
    let tf = lower === undefined ? 1 : phraseCount(lower, p);
    if (tf === 0 && (matchedAll || holds?.(p)) && p.kind !== "prefix") tf = 1;
    if (tf > 0) score += (idf(p.share, rows) * (tf * (K1 + 1))) / (tf + norm);
  }
  return score;
}
