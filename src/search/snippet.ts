// Snippets with highlight ranges, computed on the original text (the index holds a bigram form for CJK).
import { CJK_RUN, stemWord } from "../shared/search-form.ts";
import { contentTerms, needleOf, type QueryTerm } from "./query-terms.ts";
import { isAscii } from "../shared/ascii.ts";
import { asciiLower } from "../shared/lower-case.ts";
import { symbolRanges } from "./symbols.ts";

export interface Snippet {
  text: string;
  /** [start, end) offsets into `text` of matched terms. */
  highlights: [number, number][];
}

const isLetter = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
const isDigit = (c: number) => c >= 48 && c <= 57;

/**
 * Ranges of the words that match a query term: same stem, or the term as a prefix; CJK terms exactly. A word
 * is a run of ASCII letters (apostrophes inside it) or of digits, read char by char (a regex match per word
 * cost twice as much).
 */
export function findMatches(content: string, terms: readonly QueryTerm[], wholeWords = false): [number, number][] {
  return merged(matchRanges(content, terms, wholeWords));
}

/** With `wholeWords`, only the word still being typed matches as a prefix ("art" finds "art", not "artifact"). */
const prefixTerms = (latin: readonly QueryTerm[], wholeWords: boolean) =>
  latin.filter((t) => t.text.length >= 3 && (!wholeWords || t.partial === true));

/**
 * Where findMatches' words may start with one of `firsts` (lower-case character codes): such an ASCII letter after
 * anything but an ASCII letter, such a digit after anything but a digit (a word is a run of letters, apostrophes
 * inside it, or of digits). A letter after apostrophes that follow a letter is inside a word: see inWord. Undefined
 * when no word can start with one of them.
 */
function wordStarts(firsts: ReadonlySet<number>): RegExp | undefined {
  let letters = "";
  let digits = "";
  for (const c of [...firsts].sort((a, b) => a - b)) {
    if (c >= 97 && c <= 122) letters += String.fromCharCode(c, c - 32);
    else if (c >= 48 && c <= 57) digits += String.fromCharCode(c);
  }
  const key = `${letters}|${digits}`;
  let re = startsCache.get(key);
  if (!re) {
    const parts = [];
    if (letters) parts.push(`(?<![A-Za-z])[${letters}]`);
    if (digits) parts.push(`(?<![0-9])[${digits}]`);
    if (parts.length === 0) return undefined;
    if (startsCache.size >= 256) startsCache.clear();
    startsCache.set(key, (re = new RegExp(parts.join("|"), "g")));
  }
  return re;
}
const startsCache = new Map<string, RegExp>();

/** Whether the letter at `i` follows apostrophes that follow a letter (the same word, as findMatches reads it). */
function inWord(content: string, i: number): boolean {
  let k = i - 1;
  while (k >= 0 && (content.charCodeAt(k) === 39 || content.charCodeAt(k) === 0x2019)) k--;
  return k < i - 1 && k >= 0 && isLetter(content.charCodeAt(k));
}

/** findMatches' ranges, each kind in text order and capped as findMatches caps them, unsorted and unmerged. */
function matchRanges(content: string, terms: readonly QueryTerm[], wholeWords = false): [number, number][] {
  const use = contentTerms(terms);
  const latin = use.filter((t) => !t.cjk);
  // A term with accents matches its plain spelling's stem too (the index folds them: "résumé" finds "resume").
  const stems = new Set(
    latin.flatMap((t) => (isAscii(t.text) ? [stemWord(t.text)] : [t.text, foldAccents(t.text)].map(stemWord))),
  );
  const typed = prefixTerms(latin, wholeWords);
  const prefixes = typed.map((t) => t.text);
  // Porter2 keeps a word's first letter: a word whose first letter starts no stem or prefix is not stemmed.
  const firsts = new Set([...stems, ...prefixes].map((x) => x.charCodeAt(0)));
  const ranges: [number, number][] = [];
  const starts = latin.length > 0 ? wordStarts(firsts) : undefined;
  if (starts) {
    // Only the words that start with one of those letters are read (found by a native search).
    const n = content.length;
    starts.lastIndex = 0;
    for (let m = starts.exec(content); m && ranges.length <= 200; m = starts.exec(content)) {
      const i = m.index;
      const c = content.charCodeAt(i);
      let end: number;
      if (isLetter(c)) {
        if (inWord(content, i)) continue;
        let j = i + 1;
        let last = i;
        for (; j < n; j++) {
          const d = content.charCodeAt(j);
          if (isLetter(d)) last = j;
          else if (d !== 39 && d !== 0x2019) break;
        }
        end = last + 1;
      } else {
        end = i + 1;
        while (end < n && content.charCodeAt(end) >= 48 && content.charCodeAt(end) <= 57) end++;
      }
      const w = content.slice(i, end).toLowerCase();
      if (stems.has(stemWord(w)) || stems.has(w) || prefixes.some((p) => w.startsWith(p))) ranges.push([i, end]);
      starts.lastIndex = end;
    }
  }
  // Terms of ASCII letters and digits together (k8s, 5k, x86, v1), or joined by underscores (DATABASE_URL,
  // read_config), which the runs above split: where one stands as a whole token, or as the start of one when it
  // has 3+ characters.
  const mixed = latin.filter(isJoined);
  if (mixed.length > 0) {
    const lower = asciiLower(content); // the same length, so offsets hold
    for (const t of mixed) {
      for (let at = lower.indexOf(t.text); at >= 0 && ranges.length < 400; at = lower.indexOf(t.text, at + 1)) {
        const end = at + t.text.length;
        if (at > 0 && WORD_CHAR_AT.test(lower[at - 1]!)) continue;
        if (t.text.length < 3 && end < lower.length && WORD_CHAR_AT.test(lower[end]!)) continue;
        let e = end;
        while (e < lower.length && ASCII_ALNUM.test(lower[e]!)) e++;
        ranges.push([at, e]);
      }
      // The index splits at underscores: DATABASE_URL is found as its words in a row (database.url, database url).
      const spaced = spacedParts(t);
      for (const m of spaced ? lower.matchAll(spaced) : []) {
        if (ranges.length >= 400) break;
        ranges.push([m.index, m.index + m[0].length]);
      }
    }
  }
  // Words with letters beyond ASCII (über, Москва, ＡＰＩ, naïve for naive): compared with case, accents and widths folded,
  // the term whole, or as the word's start when it has 3+ letters.
  if (latin.length > 0 && !isAscii(content)) {
    const needles = latin.map((t) => foldAccents(needleOf(t)));
    const starting = new Set(typed.map((t) => foldAccents(needleOf(t))));
    const starts = new Set(needles.map((n) => n[0]));
    // A word of Latin letters with accents is indexed by its plain spelling's stem ("Müllers" for müller).
    const latinStems = new Set(needles.filter((n) => ASCII_LETTER.test(n)).map(stemWord));
    const sameStem = (w: string) => latinStems.size > 0 && ASCII_LETTER.test(w) && latinStems.has(stemWord(w));
    for (const [at, word] of wideWords(content)) {
      // A word whose first letter folds into none a needle begins with is not folded whole.
      const first = foldedChar(String.fromCodePoint(word.codePointAt(0)!));
      if (first !== "" && !starts.has(first[0])) continue;
      const w = foldAccents(word);
      if (needles.some((n) => w === n || (starting.has(n) && w.startsWith(n))) || (wholeWords && sameStem(w)))
        ranges.push([at, at + word.length]);
      if (ranges.length >= 400) break;
    }
  }
  const cjk = use.filter((t) => t.cjk);
  if (cjk.length > 0) {
    // CJK has no case: the text is searched as it is (its lower case may be longer, İ becoming i and a mark, which
    // would move every range after it).
    // Korean written in decomposed jamo (copied from macOS) holds a Korean term decomposed.
    const jamo = JAMO.test(content);
    for (const t of cjk) {
      const text = jamo ? t.text.normalize("NFD") : t.text;
      for (
        let at = content.indexOf(text);
        at >= 0 && ranges.length < 400;
        at = content.indexOf(text, at + text.length)
      ) {
        ranges.push([at, at + text.length]);
      }
    }
  }
  return ranges;
}

/** Ranges sorted, those that overlap or touch made one. */
function merged(ranges: [number, number][]): [number, number][] {
  ranges.sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const r of ranges) {
    const prev = out[out.length - 1];
    if (prev && r[0] <= prev[1]) prev[1] = Math.max(prev[1], r[1]);
    else out.push([r[0], r[1]]);
  }
  return out;
}

const CJK_STRETCH = new RegExp(CJK_RUN.source, "gu");
const JAMO = /[\u1100-\u11ff]/;

/**
 * The words of a text that hold a character beyond ASCII, with where each starts: runs of letters, digits and
 * marks, cut at CJK text. (One regular expression for these, its letters tried again from every start, took
 * time growing with the square of a run's length.)
 */
export function* wideWords(text: string): Generator<[number, string]> {
  // Each run is found from its first character beyond ASCII (a native search): what lies before that in the run is
  // ASCII letters and digits, read back here, and the rest is one native match from there.
  const wide = /[^\x00-\x7f]/g;
  for (let m = wide.exec(text); m; m = wide.exec(text)) {
    RUN_STICKY.lastIndex = m.index;
    if (!RUN_STICKY.test(text)) continue;
    const end = RUN_STICKY.lastIndex;
    let start = m.index;
    while (start > 0 && isAsciiWordChar(text.charCodeAt(start - 1))) start--;
    wide.lastIndex = end;
    const run = text.slice(start, end);
    let from = 0;
    for (const c of run.matchAll(CJK_STRETCH)) {
      if (c.index > from && !isAscii(run.slice(from, c.index))) yield [start + from, run.slice(from, c.index)];
      from = c.index + c[0].length;
    }
    if (from === 0) yield [start, run];
    else if (from < run.length && !isAscii(run.slice(from))) yield [start + from, run.slice(from)];
  }
}

/** A run of letters, digits and marks from where it is set to (its end is where it leaves lastIndex). */
const RUN_STICKY = /[\p{L}\p{N}\p{M}]+/uy;
const isAsciiWordChar = (c: number) => (c >= 48 && c <= 57) || isLetter(c);
const foldAccents = (s: string) => s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replaceAll("ß", "ss");
const foldedChars = new Map<string, string>();
/** foldAccents of one character, remembered (a word's folded form begins with its first character's). */
function foldedChar(c: string): string {
  let f = foldedChars.get(c);
  if (f === undefined) {
    if (foldedChars.size > 4096) foldedChars.clear();
    foldedChars.set(c, (f = foldAccents(c)));
  }
  return f;
}
const ASCII_LETTER = /^[a-z]+$/;
const MIXED = /^(?=[a-z]*[0-9])(?=[0-9]*[a-z])[a-z0-9]+$/;
const UNDERSCORED = /^[a-z0-9]*_[a-z0-9_]*$/;
/** A term the word runs split but the text holds as one: letters and digits together, or joined by underscores. */
const isJoined = (t: QueryTerm) => MIXED.test(t.text) || (UNDERSCORED.test(t.text) && /[a-z0-9]/.test(t.text));
const ASCII_ALNUM = /[a-z0-9]/;
/** An underscored term's words as the index finds them: one after the other, anything but a word character between. */
function spacedParts(t: QueryTerm): RegExp | undefined {
  const parts = t.text.split("_").filter((p) => p !== "");
  if (parts.length < 2) return undefined;
  return new RegExp(`(?<![\\p{L}\\p{N}\\p{M}])${parts.join("[^\\p{L}\\p{N}\\p{M}]+")}(?![\\p{L}\\p{N}\\p{M}])`, "gu");
}
/** A character that would join a token (a letter, digit or mark of any script). */
const WORD_CHAR_AT = /[\p{L}\p{N}\p{M}]/u;
const DIGITS = /^\d+$/;

/**
 * Whether findMatches finds anything, without stemming every word when it can: a CJK term the text holds, or a
 * term of 3+ ASCII letters (or digits) at the start of a run of them, are matches (findMatches reads such runs
 * as words, whatever stands around them). Anything else asks findMatches itself. With `wholeWords`, such a term
 * followed by a letter (the start of a longer word) matches only by stem or as the word being typed.
 */
export function hasMatch(content: string, terms: readonly QueryTerm[], wholeWords = false): boolean {
  const use = terms.some((x) => !x.stop) ? terms.filter((x) => !x.stop) : terms;
  const lower = content.toLowerCase();
  for (const t of use) {
    if (t.cjk) {
      if (lower.includes(t.text)) return true;
      continue;
    }
    const letters = ASCII_LETTER.test(t.text);
    if (t.text.length < 3 || (!letters && !DIGITS.test(t.text))) continue;
    const prefixOnly = wholeWords && t.partial !== true;
    let stem: string | undefined;
    for (let at = lower.indexOf(t.text); at >= 0; at = lower.indexOf(t.text, at + 1)) {
      const prev = at > 0 ? lower.charCodeAt(at - 1) : 32;
      // A letter or an apostrophe before it may make it the middle of a word; a digit before a number does.
      if (!(letters ? !isLetter(prev) && prev !== 39 && prev !== 0x2019 : !isDigit(prev))) continue;
      let end = at + t.text.length;
      if (!prefixOnly || !(letters ? isLetter(lower.charCodeAt(end)) : isDigit(lower.charCodeAt(end)))) return true;
      // The start of a longer word: a match when that word has the term's stem ("deployed" for deploy).
      if (!letters) continue;
      while (isLetter(lower.charCodeAt(end))) end++;
      stem ??= stemWord(t.text);
      if (stemWord(lower.slice(at, end)) === stem) return true;
    }
  }
  return findMatches(content, terms, wholeWords).length > 0;
}

/**
 * Words are marked as the search matches them: whole or by stem, as a prefix only while typed ("com" does not mark
 * "commit", nor "ภาษา" its whole run of Thai).
 * `pieces`: the query's symbol pieces (symbols.ts), highlighted where the text holds them, and shown first.
 * `insideWords`: the hit was found by the recent tier's substring match, so a term inside a longer word
 * ("controller" in "MyDeploymentController") is a match too, where the text holds no word of it.
 */
export function makeSnippet(
  content: string,
  terms: readonly QueryTerm[],
  width = 160,
  pieces: readonly string[] = [],
  insideWords = false,
): Snippet {
  // Only the terms the text holds no word of: "c" of `C++` is not marked inside every word holding a c.
  const substrings = insideWords
    ? contentTerms(terms)
        .filter((t) => !t.cjk && !hasMatch(content, [t], true))
        .map(needleOf)
    : [];
  const head = pieces.length === 0 && substrings.length === 0 ? headSnippet(content, terms, width) : undefined;
  if (head) return head;
  // Matches are the same with whitespace as it is (no match holds or touches any): only the snippet's own
  // whitespace is made spaces. (A piece may hold whitespace; it is made spaces in the snippet like the rest.)
  if (pieces.length === 0 && substrings.length === 0) {
    const all = findMatches(content, terms, true);
    if (content.length <= width) return { text: spaced(content), highlights: all };
    return around(content, content.length, all, width);
  }
  // A symbol query's snippet is laid out around the first piece the text holds, which is its match.
  const found = symbolRanges(content, pieces);
  const all = merged([...matchRanges(content, terms, true), ...found, ...symbolRanges(content, substrings)]);
  if (content.length <= width) return { text: spaced(content), highlights: all };
  const first = found.length > 0 ? Math.min(...found.map((r) => r[0])) : all[0]?.[0];
  return around(content, content.length, all, width, first);
}

/** Where the snippet of `width` characters around the first match (at `first`) of a text of `length` lies. */
function snippetSpan(first: number, length: number, width: number): { start: number; end: number } {
  const end = Math.min(length, Math.max(0, first - Math.floor(width / 3)) + width);
  return { start: Math.max(0, end - width), end };
}

const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/** Each whitespace character made a space (one for one, so offsets stay valid). */
const spaced = (text: string) => text.replace(/\s/g, " ");

/** The snippet of `width` characters around `anchor`, the first match of `all` unless given (ranges of `text`, the start of a text of `length`). */
function around(
  text: string,
  length: number,
  all: readonly [number, number][],
  width: number,
  anchor = all[0]?.[0] ?? 0,
): Snippet {
  let { start, end } = snippetSpan(anchor, length, width);
  // Never half a character (an emoji's surrogate pair) at either end: such text is not valid Unicode.
  if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start++;
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end--;
  const prefix = start > 0 ? "…" : "";
  const suffix = end < length ? "…" : "";
  const shift = prefix.length - start;
  const highlights = all
    .filter(([s, e]) => s >= start && e <= end)
    .map(([s, e]) => [s + shift, e + shift] as [number, number]);
  return { text: prefix + spaced(text.slice(start, end)) + suffix, highlights };
}

/** Characters of a long text read first for its snippet (an agent's tool output may be hundreds of KB). */
const SNIPPET_HEAD = 4_096;

/**
 * makeSnippet of a long text from its start alone, when that gives the same snippet; undefined otherwise. The start
 * is cut at a whitespace character, which no match spans: its matches are the text's own there, so the first of
 * them is the text's first. That holds while findMatches' caps are far (fewer than HEAD_RANGES ranges), and with no
 * term of letters and digits or CJK, whose matches findMatches collects after every word's and caps together.
 */
function headSnippet(content: string, terms: readonly QueryTerm[], width: number): Snippet | undefined {
  if (content.length <= 2 * SNIPPET_HEAD) return undefined;
  if (contentTerms(terms).some((t) => t.cjk || isJoined(t))) return undefined;
  const space = content.slice(SNIPPET_HEAD).search(/\s/);
  if (space < 0) return undefined;
  const cut = SNIPPET_HEAD + space;
  const head = content.slice(0, cut);
  const ranges = matchRanges(head, terms, true);
  if (ranges.length === 0 || ranges.length >= HEAD_RANGES) return undefined;
  const all = merged(ranges);
  // The snippet's end must lie within the start read (its highlights are then all there).
  if (snippetSpan(all[0]![0], content.length, width).end > cut) return undefined;
  return around(head, content.length, all, width);
}

/** Ranges found in a text's start below which none of findMatches' caps (200 words, 400 in all) can be near. */
const HEAD_RANGES = 150;
