// Turn the user's text into search terms and safe FTS5 expressions: the text is never FTS5 syntax.
import { CJK_RUN, searchForm } from "../shared/search-form.ts";
import { indexTokens, type Phrase } from "./bm25.ts";
import { formTokens } from "../shared/index-tokens.ts";
import { sharpSForms } from "./sharp-s.ts";

const STOPWORDS = new Set(
  (
    "a an and are as at be been but by can could did do does for from had has have he her him his how i if in into is it its " +
    "me my no not of on or our she so than that the their them then there these they this to was we were what when where " +
    "which who whom why will with would you your about after again all also am any because before being both each few " +
    "further here just more most much only other over own same should some such too under until very while"
  ).split(" "),
);

export interface QueryTerm {
  /** The text to look for (lower case). */
  text: string;
  /**
   * The word as the query spells it, when that differs from `text` (an apostrophe inside: `don't`): what a
   * message holding the query verbatim holds, so the substring match looks for it.
   */
  needle?: string;
  cjk: boolean;
  stop: boolean;
  /** The word a person is still typing (the last one, no space after it, and the caller said so): it also matches as a prefix. */
  partial?: boolean;
  /**
   * The index token of the same word spelled with or without its accents, when the index holds it and it is not
   * the term's own (see foldedForm): matched too.
   */
  folded?: string;
}

// Marks belong to the word they are in: Devanagari, Thai or Tamil vowel signs, Arabic and Hebrew vowel points.
const WORD = /[\p{L}\p{N}_][\p{L}\p{N}\p{M}_]*(?:['’][\p{L}][\p{L}\p{M}]*)*/gu;

/**
 * The distinct words a query is searched by, at most: a pasted log or stack trace is searched by its first ones
 * (SQLite refuses an expression of about a thousand terms, and ranking by more adds nothing).
 */
export const MAX_TERMS = 64;

/** Japanese particles and okurigana (hiragana), and the Chinese possessive 的. */
const PARTICLE = /[\u3041-\u309f]+|的/gu;

/**
 * A CJK run of a query cut at its particles ("東京の会議はいつですか": 東京, 会議; "訂單的索引": 訂單, 索引): Chinese
 * and Japanese write no space between words, so a question joins its words with them, and as one substring it is in
 * no message. A particle is cut where what stays on each side is 2+ characters (a word), at the run's start or end
 * too ("この会議", "確認します"), so a word holding one stays whole or keeps its start ("取り消し": 取り消; "目的地"),
 * and a run of hiragana alone stays as it is.
 */
function particleParts(run: string): string[] {
  const parts: string[] = [];
  let from = 0;
  for (const m of run.matchAll(PARTICLE)) {
    const start = m.index;
    const end = start + m[0].length;
    if (start === 0 && end === run.length) break;
    const before = run.slice(from, start);
    const after = run.slice(end).split(PARTICLE, 1)[0]!;
    if ((before.length >= 2 || start === 0) && (after.length >= 2 || end === run.length)) {
      if (before) parts.push(before);
      from = end;
    }
  }
  if (from < run.length) parts.push(run.slice(from));
  return parts;
}

/** Korean particles that follow a word (the object, topic, subject, place, ... markers), longest first. */
const KOREAN_PARTICLE = /(?:에서|에게|한테|까지|부터|으로|처럼|보다|을|를|은|는|이|가|의|에|와|과|도|로|만)$/u;
const HANGUL_WORD = /^[\uac00-\ud7a3]+$/u;

/**
 * A Korean word of the query without the particle it ends with, when a word of 2+ syllables stays ("회의록을":
 * 회의록): messages say the word with other particles or none ("새 회의록"), and the word is the start of each.
 */
function withoutKoreanParticle(word: string): string {
  if (!HANGUL_WORD.test(word)) return word;
  const m = KOREAN_PARTICLE.exec(word);
  return m && m.index >= 2 ? word.slice(0, m.index) : word;
}

/**
 * `typing`: a person is typing the query now, so its last word may be unfinished (the TUI says so; the CLI, API
 * and agents do not). `asTyped`: the query's characters as they are, instead of NFKC-normalised (see
 * hasCompatibilityForms).
 */
export function queryTerms(query: string, options: { typing?: boolean; asTyped?: boolean } = {}): QueryTerm[] {
  const text = (options.asTyped ? query : query.normalize("NFKC")).toLowerCase();
  const out: QueryTerm[] = [];
  const seen = new Set<string>();
  const push = (t: QueryTerm) => {
    if (t.text && !seen.has(t.text) && out.length < MAX_TERMS) {
      seen.add(t.text);
      out.push(t);
    }
  };
  let last = 0;
  for (const m of text.matchAll(CJK_RUN)) {
    words(text.slice(last, m.index), push);
    for (const part of particleParts(m[0])) push({ text: withoutKoreanParticle(part), cjk: true, stop: false });
    last = m.index! + m[0].length;
  }
  words(text.slice(last), push);
  const tail = out[out.length - 1];
  if (options.typing && tail && !tail.cjk && !/\s$/.test(query) && text.endsWith(needleOf(tail))) tail.partial = true;
  return out;
}

/**
 * Whether NFKC changes the query (full-width or half-width forms, ligatures, decomposed accents). Messages are
 * stored and indexed as written, so such a query is also looked for as typed: a message holding it verbatim
 * matches that form only.
 */
export const hasCompatibilityForms = (query: string) => query.normalize("NFKC") !== query;

const HANGUL = /[\uac00-\ud7a3]/;

/**
 * The query with its Korean in decomposed jamo (NFD), when it holds Korean and the index holds some word starting
 * with one of its Korean words so written (text copied from macOS); undefined else, at no lookup for other text.
 */
export function decomposedHangul(query: string, has: (expr: string) => boolean): string | undefined {
  if (!HANGUL.test(query)) return undefined;
  const nfd = query.normalize("NFC").normalize("NFD");
  const words = nfd.match(/[\u1100-\u11ff]+/g) ?? [];
  return words.some((w) => has(`"${w}"*`)) ? nfd : undefined;
}

/** The forms a query is looked for in, as `asTyped` flags: NFKC-normalised, then as typed when that differs. */
export const queryForms = (query: string): boolean[] => (hasCompatibilityForms(query) ? [false, true] : [false]);

function words(segment: string, push: (t: QueryTerm) => void): void {
  for (const m of segment.matchAll(WORD)) {
    const spelled = m[0].replace(/['’]s$/, "");
    const w = spelled.replace(/['’]/g, "");
    push(
      spelled === w
        ? { text: w, cjk: false, stop: STOPWORDS.has(w) }
        : { text: w, needle: spelled, cjk: false, stop: STOPWORDS.has(w) },
    );
  }
}

/**
 * The token the index holds for the term's word spelled with or without accents, when it differs from the term's
 * own; undefined else. The index stems runs of ASCII letters only, so an accented word is kept nearly whole
 * ("résumé" as resume) while its plain spelling is stemmed ("resume" as resum): each is looked for in the other's
 * form too.
 */
export function foldedForm(t: QueryTerm): string | undefined {
  if (t.cjk || t.needle !== undefined) return undefined;
  const own = formTokens(searchForm(t.text).trim());
  const bare = formTokens(t.text);
  if (own.length !== 1 || bare.length !== 1 || !/^[a-z]+$/.test(bare[0]!)) return undefined;
  const alt = /^[a-z]+$/.test(t.text) ? bare[0] : formTokens(searchForm(bare[0]!))[0];
  return alt !== undefined && alt !== own[0] ? alt : undefined;
}

/** A letter of a script whose marks the index keeps (it folds Latin accents only). */
const OTHER_SCRIPT = /[\u0370-\u03ff\u1f00-\u1fff\u0400-\u052f\u0590-\u05ff\u0600-\u06ff\u0750-\u077f]/;
const MARKS = /\p{M}/gu;
/** A character with marks, composed or decomposed (the word is NFKC-normalised: composed where it can be). */
const MARKED = /\P{M}\p{M}+|[^\p{M}\x00-\x7f]/gu;
const OWN_LETTERS = new Set(["й", "ў", "ї"]);
/** Greek vowels and their one accented form in monotonic spelling (ι and υ also with a diaeresis). */
const TONOS: Record<string, string[]> = {
  α: ["ά"],
  ε: ["έ"],
  η: ["ή"],
  ι: ["ί", "ϊ", "ΐ"],
  ο: ["ό"],
  υ: ["ύ", "ϋ", "ΰ"],
  ω: ["ώ"],
};

/**
 * The spellings of a Greek, Cyrillic, Arabic or Hebrew word that the index keeps apart but a reader takes for the
 * same word, most likely first: without its marks (ελληνικά, ёлка, a vocalised word), or, for a word written
 * without them, with the accent on one vowel (ελληνικα as ελληνικά) or ё for one е (елка as ёлка).
 */
export function otherSpellings(word: string): string[] {
  // й, ў and ї are letters of their own (мой is not мои), not a letter with an accent.
  const bare = word.replace(MARKED, (c) => (OWN_LETTERS.has(c) ? c : c.normalize("NFD").replace(MARKS, "")));
  if (bare !== word) return [bare];
  const out: string[] = [];
  const chars = Array.from(word);
  chars.forEach((c, i) => {
    for (const v of c === "е" ? ["ё"] : (TONOS[c] ?? []))
      out.push([...chars.slice(0, i), v, ...chars.slice(i + 1)].join(""));
  });
  return out;
}

/** The most spellings of one word looked up: a long word of many vowels is rarely typed without its accent. */
const MAX_SPELLINGS = 12;

/**
 * Sets each term's `folded` form where the index holds it (`has`: whether an FTS5 expression matches a row). Most
 * words have none there, and their expressions stay as they were; a plain ASCII word costs no lookup unless its
 * accented form may be indexed apart (see foldedForm).
 */
export function markFoldedForms(terms: readonly QueryTerm[], has: (expr: string) => boolean): void {
  for (const t of terms) {
    const alt = foldedForm(t);
    const sharp = t.cjk || t.needle !== undefined ? [] : sharpSForms(t.text);
    if (alt !== undefined || sharp.length > 0) {
      const held = [alt, ...sharp].find((w) => w !== undefined && has(`"${w}"`));
      if (held !== undefined) t.folded = held;
      continue;
    }
    if (t.cjk || t.needle !== undefined || !OTHER_SCRIPT.test(t.text) || !/^[\p{L}\p{M}]+$/u.test(t.text)) continue;
    const spellings = otherSpellings(t.text);
    if (spellings.length > MAX_SPELLINGS) continue;
    const held = spellings.find((w) => has(`"${w}"`));
    if (held !== undefined) t.folded = held;
  }
}

/** What a message holding the term verbatim holds (its substring needle). */
export const needleOf = (t: QueryTerm): string => t.needle ?? t.text;

/**
 * The index form of a Latin term, made from the word as spelled: the index keeps an apostrophe the word's letters
 * beyond ASCII follow (l'école is the tokens l and école, while l'homme is one, lhomm), so the form of the word
 * with its apostrophe taken out (lécole) is not what a message holding it was indexed as.
 */
export const termForm = (t: QueryTerm): string => searchForm(needleOf(t)).trim();

/** The terms every match must hold: the content words, or every word of a query of stop words only. */
export const contentTerms = (terms: readonly QueryTerm[]): readonly QueryTerm[] =>
  terms.some((t) => !t.stop) ? terms.filter((t) => !t.stop) : terms;

/** Whether the term is matched as a prefix too (ftsTerm): the word still being typed, of 3+ letters or digits. */
export const typedPrefix = (t: QueryTerm) =>
  !t.cjk && t.partial === true && t.text.length >= 3 && prefixToken(t) !== undefined;

/**
 * The typed word as the index's tokens begin (case and diacritics folded: `Mül` as `mul`), when it is one token;
 * undefined else.
 */
export function prefixToken(t: QueryTerm): string | undefined {
  if (/^[a-z0-9]+$/.test(t.text)) return t.text;
  const tokens = formTokens(t.text);
  return tokens.length === 1 && /^[\p{L}\p{N}]+$/u.test(t.text) ? tokens[0] : undefined;
}

/**
 * One term as an FTS5 expression: its stemmed form (the index holds stems) — and, for the word still
 * being typed, the word as a prefix too (FTS5 has no prefix index, so prefixes are not free); a bigram
 * phrase for CJK; a prefix for one CJK character.
 */
export function ftsTerm(t: QueryTerm, prefix = true, spelled?: readonly string[]): string {
  if (!t.cjk) {
    const own = `"${termForm(t).replaceAll('"', '""')}"`;
    const stemmed = t.folded === undefined ? own : `${own} OR "${t.folded}"`;
    if (!prefix || !typedPrefix(t)) return t.folded === undefined ? own : `(${stemmed})`;
    // The prefix spelled out as the words it stands for (see prefix-words.ts), or left to FTS5, whose tokenizer
    // folds it as it folded the rows (it keeps a Greek or Cyrillic letter's diacritics, which indexTokens drops).
    const rest = spelled
      ? spelled.map((w) => ` OR "${w.replaceAll('"', '""')}"`).join("")
      : ` OR "${t.text.replaceAll('"', '""')}"*`;
    return `(${stemmed}${rest})`;
  }
  const grams = queryBigrams(t.text);
  return grams ? `"${grams.join(" ")}"` : `"${t.text}"*`;
}

/** A CJK term's bigrams, the phrase the index holds for it; undefined for one character (matched as a prefix). */
function queryBigrams(text: string): string[] | undefined {
  const chars = Array.from(text);
  if (chars.length === 1) return undefined;
  const grams: string[] = [];
  for (let i = 0; i < chars.length - 1; i++) grams.push(chars[i]! + chars[i + 1]!);
  return grams;
}

/**
 * CJK letters every one of which the index keeps as a token character (unicode61 splits at the kana
 * punctuation and at code points its tables do not know): a CJK term of these is found by its index phrase
 * in every row holding it as a substring, and only there.
 */
const INDEXED_CJK = /^[\u3041-\u3096\u309d-\u309f\u30a1-\u30fa\u30fc-\u30ff\u3400-\u4db5\u4e00-\u9fcc\uac00-\ud7a3]+$/;

/** Whether the index's expression for this term matches exactly the rows holding its text (a CJK term, see INDEXED_CJK). */
export const substringInIndex = (t: QueryTerm) => t.cjk && INDEXED_CJK.test(t.text);

/**
 * Every term must match. Stop words are dropped unless the query has nothing else. With `spelled`, that
 * term's prefix is the OR of these words instead.
 */
export function ftsAllQuery(
  terms: readonly QueryTerm[],
  spelled?: { term: QueryTerm; words: readonly string[] },
): string | undefined {
  const content = terms.filter((t) => !t.stop);
  const use = content.length > 0 ? content : terms;
  return use.length
    ? use.map((t) => ftsTerm(t, true, t === spelled?.term ? spelled.words : undefined)).join(" AND ")
    : undefined;
}

/**
 * Any content term may match (the fallback that fills a short AND result), of a query with two or more.
 * `weighs`: the terms kept, when any is (the others are left out).
 */
export function ftsAnyQuery(terms: readonly QueryTerm[], weighs?: (t: QueryTerm) => boolean): string | undefined {
  const content = terms.filter((t) => !t.stop);
  // Whole words only: prefixes of several words would drown bm25 in partial matches.
  return content.length > 1
    ? anyTerms(content, weighs)
        .map((t) => ftsTerm(t, false))
        .join(" OR ")
    : undefined;
}

const anyTerms = (content: QueryTerm[], weighs?: (t: QueryTerm) => boolean) => {
  const kept = weighs ? content.filter(weighs) : content;
  return kept.length > 0 ? kept : content;
};

/** One phrase of an FTS expression built here: its FTS text, and what bm25.ts needs to count it in a row. */
export interface FtsPhrase extends Phrase {
  expr: string;
  /** The term's folded form (QueryTerm.folded) as a phrase: a text holding it holds the term. */
  alt?: Phrase;
}

/** The phrases ftsAllQuery (or, with `any`, ftsAnyQuery) puts in its expression. */
export function ftsPhrases(terms: readonly QueryTerm[], any = false, weighs?: (t: QueryTerm) => boolean): FtsPhrase[] {
  const content = terms.filter((t) => !t.stop);
  const use = any ? anyTerms(content, weighs) : content.length > 0 ? content : terms;
  const out: FtsPhrase[] = [];
  for (const t of use) {
    if (!t.cjk) {
      const stem = termForm(t);
      const tokens = indexTokens(needleOf(t));
      const kind = tokens.length === 1 && /^[a-z0-9]+$/.test(tokens[0]!) ? "stem" : "tokens";
      const own = `"${stem.replaceAll('"', '""')}"`;
      if (t.folded === undefined) out.push({ expr: own, kind, text: tokens[0] ?? "", tokens });
      else {
        // A word beyond Latin counts as held in its other spelling already: text is counted with marks removed.
        // One with ß (straße for strasse) is counted by its token: marks removed, it is still apart.
        const alt: Phrase | undefined = /^[a-z]+$/.test(t.folded)
          ? { kind: "stem", text: t.folded, tokens: [t.folded] }
          : t.folded.includes("ß")
            ? { kind: "tokens", text: t.folded, tokens: [t.folded] }
            : undefined;
        out.push({ expr: `(${own} OR "${t.folded}")`, kind, text: tokens[0] ?? "", tokens, ...(alt ? { alt } : {}) });
      }
      if (!any && typedPrefix(t)) out.push({ expr: `"${t.text}"*`, kind: "prefix", text: t.text, tokens: [t.text] });
      continue;
    }
    const grams = queryBigrams(t.text);
    out.push({ expr: ftsTerm(t, false), kind: "cjk", text: t.text, tokens: grams ?? [t.text] });
  }
  return out;
}
