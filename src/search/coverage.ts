// How much of a query a message holds: the share of the query's content terms (by stem, as the index
// matches them) weighted by rarity, so that missing a rare word costs more than missing a common one.
// Also spots names in the query that nothing in the index holds ("Caroline" in another person's memory).
import type { Db } from "../storage/sqlite/db.ts";
import { indexStats, scanArchive, scanRecent } from "../storage/sqlite/keyword-queries.ts";
import { phraseCount, type Phrase } from "./bm25.ts";
import { ftsPhrases, markFoldedForms, queryForms, queryTerms, type FtsPhrase } from "./query-terms.ts";
import { isAscii } from "../shared/ascii.ts";
import { formTokens } from "../shared/index-tokens.ts";
import { unspacedWords } from "./symbols.ts";

export interface TermWeights {
  phrases: FtsPhrase[];
  /** Inverse document frequency of each phrase (rarer: heavier). */
  weights: number[];
  total: number;
}

/** The query's content terms and their weights in this index. */
export function termWeights(db: Db, text: string): TermWeights {
  const terms = queryTerms(text);
  markFoldedForms(terms, indexStats(db).has);
  const phrases = ftsPhrases(terms).filter((p) => p.kind !== "prefix");
  if (phrases.length === 0) return { phrases, weights: [], total: 0 };
  const { rows, share } = indexStats(db);
  return idfWeights(
    phrases,
    phrases.map((p) => share(p.expr) * rows),
    rows,
  );
}

/** The phrases weighted by rarity: each in `counts[i]` of `rows` rows (another archive than SQLite counts them). */
export function idfWeights(phrases: FtsPhrase[], counts: readonly number[], rows: number): TermWeights {
  const weights = counts.map((n) => Math.log(1 + (rows + 0.5) / (n + 0.5)));
  return { phrases, weights, total: weights.reduce((a, b) => a + b, 0) };
}

/**
 * Weighted share of the query's terms that the text holds, in [0, 1]. `insideWords`: a phrase also counts held
 * anywhere inside a word ("psycopg" in "psycopg2"), as the recent tier's case-insensitive substring match finds it.
 */
export function coverage(content: string, tw: TermWeights, insideWords = false): number {
  if (tw.total <= 0) return 0;
  let lower = content.toLowerCase();
  // A text beyond ASCII is also read as the index reads it (accents folded, only ASCII runs stemmed): "résumé" holds
  // in "Résumé", and with the term's folded form (see foldedForm) "resume" holds there too.
  const wide = !isAscii(lower);
  // Korean in decomposed jamo (copied from macOS) holds the query's Korean composed.
  if (wide && JAMO.test(lower)) lower = lower.normalize("NFC");
  const held1 = (p: Phrase) => phraseCount(lower, p) > 0 || (wide && phraseCount(lower, asTokens(p)) > 0);
  // Thai, Lao, Myanmar and Khmer write words without spaces between them: a word is held inside a run of them.
  let bare: string | undefined;
  const inRun = (p: Phrase) =>
    wide && UNSPACED.test(p.text) && (bare ??= formTokens(lower).join(" ")).includes(p.tokens.join(" "));
  const holds = (p: FtsPhrase) =>
    (insideWords && lower.includes(p.text)) || held1(p) || (p.alt !== undefined && held1(p.alt)) || inRun(p);
  let held = 0;
  tw.phrases.forEach((p, i) => {
    if (holds(p)) held += tw.weights[i]!;
  });
  return held / tw.total;
}

const JAMO = /[\u1100-\u11ff]/;

/** Scripts written without spaces between words (and not CJK, which the index holds as bigrams). */
const UNSPACED = /[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]/;

/** The phrase counted by its index tokens (bm25.ts counts a "stem" phrase by the stems of a text's words). */
const asTokens = (p: Phrase): Phrase => (p.kind === "stem" ? { kind: "tokens", text: p.text, tokens: p.tokens } : p);

/**
 * The query's terms and their weights when the ones some indexed message holds weigh less than `share` of them;
 * undefined else. (Whether a term is held is one row; its weight, what a search by it would cost, is looked up only
 * when some term is not.)
 */
export function mostlyUnheld(db: Db, text: string, share: number): TermWeights | undefined {
  const phrases = ftsPhrases(queryTerms(text)).filter((p) => p.kind !== "prefix");
  const held = phrases.map((p) => heldBySome(db, p, text));
  if (held.every(Boolean)) return undefined;
  return heldUnder(termWeights(db, text), held, share);
}

/** `tw` when the phrases `held` (some message holds each) weigh less than `share` of them all; undefined else. */
export function heldUnder(tw: TermWeights, held: readonly boolean[], share: number): TermWeights | undefined {
  const heldWeight = tw.weights.reduce((sum, w, i) => sum + (held[i] ? w : 0), 0);
  return heldWeight < share * tw.total ? tw : undefined;
}

/** The text's phrases (no prefix) in each form it is looked for in: NFKC, and as typed when that differs. */
const phraseForms = (text: string): FtsPhrase[][] =>
  queryForms(text).map((asTyped) => ftsPhrases(queryTerms(text, { asTyped })).filter((p) => p.kind !== "prefix"));

/** Whether no indexed message holds any of the query's words (in either form). */
export function noSharedWord(db: Db, text: string): boolean {
  const { rows } = indexStats(db);
  return rows > 0 && phraseForms(text).every((all) => all.length > 0 && all.every((p) => !heldBySome(db, p, text)));
}

/**
 * Whether some message holds the phrase: as the index holds it, or, for a word of a script written without spaces
 * (whose runs the index does not split at words), inside a run, as keyword search finds it.
 */
function heldBySome(db: Db, p: FtsPhrase, query: string): boolean {
  if (indexStats(db).has(p.expr)) return true;
  if (!UNSPACED.test(p.text)) return false;
  // The query's word as typed (the phrase holds it as the index reads it, marks left out).
  const word = unspacedWords(query).find((w) => formTokens(w).join(" ") === p.tokens.join(" "));
  return word !== undefined && (scanRecent(db, [word], {}, 1).length > 0 || scanArchive(db, [word], {}, 1).length > 0);
}

const NAME = /(?<![\p{L}\p{N}'’])\p{Lu}[\p{Ll}]+(?:['’]s)?(?![\p{L}\p{N}])/gu;
/** Capitalised words that name a time, not someone or something: messages rarely spell their own date. */
const CALENDAR = new Set(
  (
    "january february march april may june july august september october november december " +
    "monday tuesday wednesday thursday friday saturday sunday"
  ).split(" "),
);

/**
 * The capitalised words of a query that may name someone or something (not the first word of the query or of a
 * sentence, not a month or weekday), without a possessive 's.
 */
export function capitalisedNames(text: string): string[] {
  const names: string[] = [];
  for (const m of text.matchAll(NAME)) {
    if (m.index === 0 || /[.?!]\s*$/.test(text.slice(0, m.index))) continue;
    const word = m[0].replace(/['’]s$/, "");
    if (!CALENDAR.has(word.toLowerCase())) names.push(word);
  }
  return names;
}

/** A name's first indexed phrase in each form it is looked for in (none when a form is only a prefix). */
export function namePhrases(word: string): (FtsPhrase | undefined)[] {
  return queryForms(word).map((asTyped) => {
    const p = ftsPhrases(queryTerms(word, { asTyped }))[0];
    return p && p.kind !== "prefix" ? p : undefined;
  });
}

/**
 * Whether the query names someone or something this memory has never seen: a capitalised word (capitalisedNames)
 * that no indexed message holds. Such a query is about another memory. (Words in general are not checked: a
 * paraphrase shares none with what it finds.)
 */
export function namesUnknown(db: Db, text: string): boolean {
  return unknownNames(db, text).length > 0;
}

/** The names of the query (capitalisedNames) that no indexed message holds, in the query's order. */
export function unknownNames(db: Db, text: string): string[] {
  const { rows, has } = indexStats(db);
  if (rows === 0) return [];
  return capitalisedNames(text).filter((word) => namePhrases(word).every((p) => p !== undefined && !has(p.expr)));
}
