// Symbols in a query (`<`, `&&`, `->`, `::`, `#123`, `C++`, `.env`): the word index drops punctuation, so
// each symbol-bearing piece of the query must appear verbatim in a hit (case and runs of whitespace aside).
// An operator standing alone takes its neighbours with it: `c > d` asks for "c > d", not for c and d.
import { CJK_RUN } from "../shared/search-form.ts";

/**
 * Quotes and brackets around a word are not part of what is looked for: of any script (« », „ “, 「 」, 《 》), and
 * the Spanish ¿ ¡ before it.
 */
const WRAP = /^["'`¿¡\p{Ps}\p{Pi}\p{Pf}]+|["'`\p{Ps}\p{Pe}\p{Pi}\p{Pf}]+$/gu;
/** Sentence punctuation after a word ("works?", "this,", "数据库。", "العربية؟"). */
const TRAIL = /[?!,.;:。、؟،؛।]+$/u;
/**
 * Punctuation beside Chinese, Japanese or Korean text: those scripts write no space between words or clauses, so
 * their commas, full stops and quotes separate words as spaces do ("快取失效，怎麼處理？", "「ログ」の確認").
 */
const CJK_CHAR = CJK_RUN.source.replace(/\+$/, "");
const CJK_PUNCTUATION = new RegExp(`(?<=${CJK_CHAR})\\p{P}+|\\p{P}+(?=${CJK_CHAR})`, "gu");
/** A word (its marks too: नमस्ते is one word, not a symbol). */
const WORDISH = /^[\p{L}\p{N}_][\p{L}\p{N}\p{M}_]*$/u;

/** Markdown emphasis around a word (**rollback**, ~~old~~), as text copied from a rendered chat holds it. */
const EMPHASIS = /^(\*{1,3}|~~)(?=[^\s*~]*[\p{L}\p{N}])([^\s*~](?:.*[^\s*~])?)\1$/u;
/** An abbreviation of single letters and dots (e.g., i.e., a.m.), its last dot taken off as sentence punctuation. */
const ABBREVIATION = /^\p{L}(?:\.\p{L})+$/u;

function strip(chunk: string): string {
  let c = chunk;
  for (let prev = ""; prev !== c; ) {
    prev = c;
    c = c.replace(WRAP, "").replace(EMPHASIS, "$2");
    if (/[\p{L}\p{N}]/u.test(c)) c = c.replace(TRAIL, "");
  }
  return c;
}

const onlySymbols = (chunk: string) => !/[\p{L}\p{N}]/u.test(chunk);
// Underscores alone (`_`, `___`) are no word: the word index splits at them and holds nothing of them.
const symbolic = (chunk: string) =>
  onlySymbols(chunk) || !WORDISH.test(chunk.replace(/(?<=\p{L})[-'’](?=\p{L})/gu, ""));

/**
 * An emoji or text presentation selector ending a piece (❤️, ⚠️ as a phone or an agent writes them): the same symbol is
 * often written without it (❤, ⚠), and a text holding it holds the symbol before it, so the piece is looked for
 * without it. Kept inside a piece (🏳️‍🌈, 1️⃣, "I ❤️ it"), which a text holds as typed.
 */
const PRESENTATION = /[\uFE0E\uFE0F]+$/u;

/** Fold case (NFKC-normalised unless `asTyped`), as symbol pieces are compared. */
const foldText = (text: string, asTyped: boolean): string => (asTyped ? text : text.normalize("NFKC")).toLowerCase();

/** Collapse whitespace and fold case, as symbol pieces are compared (NFKC-normalised unless `asTyped`). */
export function normalizeText(text: string, asTyped = false): string {
  return foldText(text, asTyped).replace(/\s+/g, " ");
}

/**
 * The pieces of a query that must appear verbatim in a hit (normalised; as typed with `asTyped`, see
 * query-terms.ts hasCompatibilityForms), in query order; none for plain words.
 */
export function querySymbols(query: string, asTyped = false): string[] {
  const text = normalizeText(query, asTyped).replace(CJK_PUNCTUATION, " ").trim();
  // Each run of non-spaces that holds more than quotes and brackets, stripped (what it is decides its part),
  // with where it starts and ends in the text.
  const chunks: { c: string; from: number; to: number }[] = [];
  for (const m of text.matchAll(/\S+/g)) {
    const c = strip(m[0]);
    if (c !== "") chunks.push({ c, from: m.index, to: m.index + m[0].length });
  }
  // A query of quotes and brackets only (`“`, `()`) is looked for as it is.
  if (chunks.length === 0) return text === "" ? [] : [text];
  // An abbreviation beside words is read as its letters ("deploy, e.g. canary"); one with no word beside it
  // ("U.S.A.", "e.g.") is looked for as written: its single letters alone are in nearly every message.
  const lettersOnly = !chunks.some((ch) => !symbolic(ch.c));
  const hasSymbol = (chunk: string) => (lettersOnly || !ABBREVIATION.test(chunk)) && symbolic(chunk);
  const out: string[] = [];
  for (let i = 0; i < chunks.length; i++) {
    if (!hasSymbol(chunks[i]!.c)) continue;
    let from = i;
    let to = i;
    // An operator alone between two operands keeps them: `c > d`, `a && b`, `x -> y`.
    if (onlySymbols(chunks[i]!.c) && i > 0 && i + 1 < chunks.length) {
      from = i - 1;
      to = i + 1;
    }
    while (to + 2 < chunks.length && onlySymbols(chunks[to + 1]!.c)) to += 2;
    // The query's text from the first chunk to the last, stripped at its two ends only: a piece of the query
    // itself (`log. -> x` stays whole), so a message holding the query holds every piece.
    const piece = from === to ? chunks[i]!.c : strip(text.slice(chunks[from]!.from, chunks[to]!.to));
    if (out.length > 0 && from <= i - 1 && out[out.length - 1]!.endsWith(chunks[from]!.c)) out.pop();
    const bare = piece.replace(PRESENTATION, "");
    out.push(bare === "" ? piece : bare);
    i = to;
  }
  return [...new Set(out)];
}

/**
 * Thai, Lao, Myanmar and Khmer write words without spaces between them, and the word index splits their runs at
 * vowel and tone marks, not at words: keyword search looks for such a word verbatim, as for a symbol piece
 * ("ช่วย" in "ช่วยติดตั้งระบบ"). Semantic search does not: a paraphrase need not hold it.
 */
export function unspacedWords(query: string, asTyped = false): string[] {
  const out = new Set<string>();
  for (const m of normalizeText(query, asTyped).matchAll(/\S+/g)) {
    const c = strip(m[0]);
    if (UNSPACED.test(c)) out.add(c);
  }
  return [...out];
}
const UNSPACED = /[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]/;

const NON_ASCII = /[^\x00-\x7f]/;
const REGEX_SYNTAX = /[\\^$.*+?()[\]{}|/]/g;

/** A piece as a regular expression that finds it as it is. */
const pieceSearch = (piece: string, flags: string) => new RegExp(piece.replace(REGEX_SYNTAX, "\\$&"), flags);

/** Whether a text holds every symbol piece (pieces as typed with `asTyped`). */
export function holdsSymbols(content: string, pieces: readonly string[], asTyped = false): boolean {
  if (pieces.length === 0) return true;
  const spaced = pieces.some((p) => /\s/.test(p));
  // An ASCII text is its own NFKC form, and its lower case holds a piece where a case-insensitive search finds it:
  // no copy of the text is made.
  if (!spaced && !NON_ASCII.test(content))
    return pieces.every((p) => !NON_ASCII.test(p) && pieceSearch(p, "i").test(content));
  // Beyond ASCII, an ASCII piece found with ASCII after it (or at the end) is in the folded text too: see foundAsIs.
  if (!spaced && pieces.every((p) => !NON_ASCII.test(p) && foundAsIs(content, p))) return true;
  return heldFolded(content, pieces, asTyped, spaced);
}

/** holdsSymbols' last resort: the text folded as pieces are (its whitespace collapsed only for `spaced` pieces). */
function heldFolded(content: string, pieces: readonly string[], asTyped: boolean, spaced: boolean): boolean {
  // A piece without whitespace is in the text as it is where it is in the text with its whitespace collapsed
  // (which changes no run of other characters): that copy of the whole text, the costliest step, is left out.
  const text = spaced ? normalizeText(content, asTyped) : foldText(content, asTyped);
  return pieces.every((p) => text.includes(p));
}

/**
 * Whether a text holds an ASCII piece, case aside, where what follows is ASCII or nothing. Such a stretch is ASCII
 * itself (a case-insensitive search without the u flag matches no other character to an ASCII one), NFKC keeps it
 * as it is (ASCII has no decompositions, and no character composes with an ASCII one before it; a combining mark
 * after its last character could), and lower-casing keeps it ASCII: the folded text holds the piece there. False
 * says nothing (the piece may be in the folded text only, or only before a mark).
 */
function foundAsIs(content: string, piece: string): boolean {
  const re = pieceSearch(piece, "gi");
  for (let m = re.exec(content); m; m = re.exec(content)) {
    const after = m.index + m[0].length;
    if (after === content.length || content.charCodeAt(after) < 0x80) return true;
    re.lastIndex = m.index + 1;
  }
  return false;
}

/** A character NFKC may change (none below U+00A0 is decomposed or composed). */
const NFKC_MAY_CHANGE = /[^\x00-\x9f]/;

/**
 * holdsSymbols for a text known to hold, in its JS lower case, every piece's parts between spaces (what the
 * substring scans look for): a piece without whitespace is then in the text as holdsSymbols compares it when
 * that is its lower case alone (as typed, or NFKC leaves the text as it is), and no copy of the text is made.
 */
export function holdsFoundSymbols(content: string, pieces: readonly string[], asTyped = false): boolean {
  if (pieces.some((p) => /\s/.test(p))) return holdsSymbols(content, pieces, asTyped);
  if (asTyped || !NFKC_MAY_CHANGE.test(content)) return true;
  // Cheaper than normalising a long text: a search for each piece as it is (see foundAsIs).
  if (pieces.every((p) => !NON_ASCII.test(p) && foundAsIs(content, p))) return true;
  if (content.normalize("NFKC") === content) return true;
  return heldFolded(content, pieces, asTyped, false);
}

/** At most this many ranges of a text's pieces are highlighted (findMatches caps its own likewise). */
const MAX_PIECE_RANGES = 200;

/**
 * Where a text holds each symbol piece, case aside and any run of whitespace for a space, as [start, end) offsets
 * into the text itself: what a hit of a symbol query is highlighted by (its words alone would leave `&&` or `::`
 * unmarked). A piece found in the folded text only (another width, say) has none.
 */
export function symbolRanges(content: string, pieces: readonly string[]): [number, number][] {
  const out: [number, number][] = [];
  for (const p of pieces) {
    const source = p
      .split(" ")
      .map((part) => part.replace(REGEX_SYNTAX, "\\$&"))
      .join("\\s+");
    const re = new RegExp(source, "giu");
    for (let m = re.exec(content); m && out.length < MAX_PIECE_RANGES; m = re.exec(content)) {
      if (m[0].length === 0) break;
      out.push([m.index, m.index + m[0].length]);
    }
  }
  return out;
}
