// Word-level match of an error query against record texts with the builtin word vectors: each content
// word of the query finds its closest word in the record (same stem = 1, a stem that begins the other =
// PREFIX, a word of an error class the record names = SYNONYM, else the cosine of their vectors), weighted by rarity. It finds "access was refused" in
// "Permission denied" where averaged sentence vectors drown two words among many. The error classes a text
// names (error-concepts.ts) are words too, on both sides. The ranking score weighs each query word also by
// how rare its matches are among the records searched (a soft idf), so the words every record of a tool
// shares count less than the one that tells the records apart. A word the error shows only in a variable
// part (a quoted name, a path, a URL: what errorSignature replaces) counts NAME_SCALE unless its cause or
// fix says it too: the column "created" is not what "the table was never created" is about. The tool the
// query speaks of ("the container", "the rust build") lifts that tool's records a little; that word's
// rarity is counted among the tools, so it weighs even when every record of the tool shares it. A word
// of the cause or fix counts FIX_SCALE (it says in a person's words what the error was), and a record
// word that many of the records searched share counts less (a record-side idf: a stock fix such as
// "reverted the last change" tells no record apart).
import { loadWordVectors, type WordVectors } from "../../embed/builtin/word-vectors.ts";
import { queryTerms } from "../../search/query-terms.ts";
import { stemWord } from "../../shared/search-form.ts";
import { describeFileNames, errorConcepts, splitIdentifiers } from "./error-concepts.ts";
import { describeErrorCodes } from "./error-codes.ts";
import { errorSignature } from "./signature.ts";
import { GENERIC_ERROR_WORDS } from "./error-query.ts";
import { toolWords } from "./tool-words.ts";

// Tuned on the paraphrase set's dev part.
/** Cosines below this count as unrelated words. */
const FLOOR = 0.4;
const POWER = 3;
const PAIR_BONUS = 0.05;
/** How well a stem that begins another ("exec", "executable"; "host", "hostname") matches it, from PREFIX_MIN characters. */
const PREFIX = 0.8;
const PREFIX_MIN = 4;
/** How well a query word meets a record that names the error class the word names ("ram" and "out of memory"). */
const SYNONYM = 0.9;
/** How much a match counts with a word found only in a variable part of the error (quoted, a path, a URL) and not in the cause or fix. */
const NAME_SCALE = 0.5;
/** Weight of the tool a query speaks of in a record's ranking score (a record matching every word scores 1). */
const TOOL_PRIOR = 0.15;
/** How much a match counts with a word of the cause, fix or keywords (what was written about the error, in a person's words). */
const FIX_SCALE = 1.2;
/**
 * A record word found in more than this share of the records searched tells them apart less: a match with
 * it counts log(share) / log(COMMON_SHARE), and at least COMMON_FLOOR.
 */
const COMMON_SHARE = 0.05;
const COMMON_FLOOR = 0.3;
/** Rarity weight of an error class named (an ordinary word weighs at most 1). */
const CONCEPT_WEIGHT = 2;
/** Records whose words are kept between searches (the word-level match reads at most 5000 per search). */
const RECORD_CACHE = 10_000;
const SIF = 3e-4;
const ZIPF_NORM = Math.log(341_479) + 0.5772;

export interface Word {
  stem: string;
  vec?: Float32Array;
  weight: number;
  /** The error classes this word names by itself ("#memory" for "ram"). */
  concepts?: string[];
  /** How much a match with this record word counts (1 when undefined). */
  scale?: number;
}

export interface WordScore {
  /** Share of the query's word weight the record covers, in [0, 1] (plus the adjacent-pair bonus). */
  cover: number;
  /** The same with each query word's weight times its rarity among the records searched: the ranking score. */
  rank: number;
}

export class WordMatcher {
  readonly #cache = new Map<string, Word>();
  /** The words of records seen, by their text (a search reads the same records again and again). */
  readonly #records = new Map<number | bigint, Word[]>();
  readonly #names = new Map<Word, Word>();
  readonly #fixWords = new Map<Word, Word>();
  private constructor(private readonly wv: WordVectors) {}

  static async create(): Promise<WordMatcher> {
    return new WordMatcher(await loadWordVectors());
  }

  /** The content words of a query, and the error classes it names. */
  words(text: string): Word[] {
    const split = readable(text);
    return [...this.#plain(split), ...concepts(split)];
  }

  /**
   * Whether a query could be everyday text: every content word one the word vectors know, none a word of error
   * reports ("failed", "exception"), no identifier ("OOMKilled"), no CJK, and no error class named ("timed out",
   * "not found"; also "a table", which then stays a query about errors).
   */
  readsAsEveryday(text: string): boolean {
    const split = readable(text);
    const terms = queryTerms(`${split} `).filter((t) => !t.stop);
    return (
      terms.length > 0 &&
      errorConcepts(split).length === 0 &&
      terms.every((t) => !t.cjk && !GENERIC_ERROR_WORDS.has(t.text) && this.word(t.text).vec !== undefined)
    );
  }

  /**
   * A record's words: its error text, cause, fix and keywords, the words about its tool, and the error
   * classes its own text and its tool's name say (not the words about the tool: "compile" for make
   * would give every make error the compiler's class).
   */
  recordWords(tool: string, error: string, other: string): Word[] {
    const key = Bun.hash(`${tool}\0${error}\0${other}`);
    let words = this.#records.get(key);
    if (!words) {
      const text = readable(`${error}\n${other}`);
      const own = this.#plain(readable(other)).map((w) => this.#scaled(w, FIX_SCALE));
      const fixed = new Set(
        [...this.#plain(readable(errorSignature(error).replace(/<[a-z]+>/g, " "))), ...own].map((w) => w.stem),
      );
      // A word of both the error and the fix counts as the fix's.
      const ownStems = new Set(own.map((w) => w.stem));
      const errorWords = this.#plain(readable(error)).map((w) =>
        ownStems.has(w.stem) ? this.#scaled(w, FIX_SCALE) : fixed.has(w.stem) ? w : this.#scaled(w, NAME_SCALE),
      );
      const seen = new Set<string>();
      words = [...errorWords, ...own, ...this.#plain(toolWords(tool)), ...concepts(`${tool}\n${text}`)].filter(
        (w) => !seen.has(w.stem) && seen.add(w.stem),
      );
      if (this.#records.size >= RECORD_CACHE) this.#records.clear();
      this.#records.set(key, words);
    }
    return words;
  }

  /** The word with a match counting `scale` (NAME_SCALE for a name in a variable part of an error, FIX_SCALE in the fix). */
  #scaled(w: Word, scale: number): Word {
    const cache = scale === NAME_SCALE ? this.#names : this.#fixWords;
    let x = cache.get(w);
    if (!x) {
      if (cache.size > 50_000) cache.clear();
      cache.set(w, (x = { ...w, scale }));
    }
    return x;
  }

  #plain(text: string): Word[] {
    const out: Word[] = [];
    const seen = new Set<string>();
    for (const t of queryTerms(`${text} `)) {
      if (
        t.stop ||
        t.cjk ||
        t.text.length < 2 ||
        /^\d+$/.test(t.text) ||
        GENERIC_ERROR_WORDS.has(t.text) ||
        seen.has(t.text)
      )
        continue;
      seen.add(t.text);
      out.push(this.word(t.text));
    }
    return out;
  }

  #vecOf(row: number): Float32Array {
    const { dim, data } = this.wv;
    const v = new Float32Array(dim);
    let s = 0;
    for (let d = 0; d < dim; d++) s += (v[d] = data[row * dim + d]!) ** 2;
    const k = s > 0 ? 1 / Math.sqrt(s) : 0;
    for (let d = 0; d < dim; d++) v[d]! *= k;
    return v;
  }

  word(w: string): Word {
    let x = this.#cache.get(w);
    if (!x) {
      const row = this.wv.index.get(w);
      const p = 1 / (((row ?? this.wv.index.size) + 2) * ZIPF_NORM);
      x = { stem: stemWord(w), weight: SIF / (SIF + p) };
      if (row !== undefined) x.vec = this.#vecOf(row);
      const named = errorConcepts(w);
      if (named.length > 0) x.concepts = named.map((c) => `#${c}`);
      if (this.#cache.size > 50_000) this.#cache.clear();
      this.#cache.set(w, x);
    }
    return x;
  }

  /**
   * How well each query word is met in the document, in [0, FIX_SCALE] (0 below the floor). `sims` keeps
   * each document word's similarities to the query words across the documents of one search; `common`
   * scales the words many documents share (commonWords).
   */
  matches(
    query: readonly Word[],
    doc: readonly Word[],
    sims = new Map<Word, Float64Array>(),
    common?: ReadonlyMap<string, number>,
  ): Float64Array {
    const best = new Float64Array(query.length);
    for (const d of doc) {
      let row = sims.get(d);
      if (!row) {
        row = new Float64Array(query.length);
        const k = (d.scale ?? 1) * (common?.get(d.stem) ?? 1);
        for (let qi = 0; qi < query.length; qi++)
          row[qi] = k * Math.max(0, (similarity(query[qi]!, d) - FLOOR) / (1 - FLOOR)) ** POWER;
        sims.set(d, row);
      }
      for (let qi = 0; qi < query.length; qi++) if (row[qi]! > best[qi]!) best[qi] = row[qi]!;
    }
    return best;
  }

  /**
   * How well the query speaks of each tool, from its name and the words about it (tool-words.ts), in
   * [0, 1] with 1 for the best tool (all 0 when the query names none). Rarity is counted among the tools:
   * "container" tells docker and kubectl from the rest, "install" hardly anything.
   */
  toolPrior(query: readonly Word[], tools: readonly string[]): Map<string, number> {
    const scores = this.scoreAll(
      query,
      tools.map((t) => this.#plain(toolWords(t))),
    );
    const best = Math.max(0, ...scores.map((x) => x.rank));
    return new Map(tools.map((t, i) => [t, best > 0 ? scores[i]!.rank / best : 0]));
  }

  /**
   * Scores of every document for the query. Each pair of query words that stands side by side in the
   * document too ("too many clients") adds PAIR_BONUS to both scores. With `tools` (each document's
   * tool: the documents are records), the ranking score adds TOOL_PRIOR times how well the query speaks
   * of the document's tool, and the record words many of the records share count less (commonWords).
   */
  scoreAll(query: readonly Word[], docs: readonly (readonly Word[])[], tools?: readonly string[]): WordScore[] {
    const sims = new Map<Word, Float64Array>();
    const common = tools ? commonWords(docs) : undefined;
    const m = docs.map((d) => this.matches(query, d, sims, common));
    const n = docs.length;
    let den = 0;
    let rankDen = 0;
    const idf = query.map((q, qi) => {
      let df = 0;
      for (const row of m) df += row[qi]!;
      const w = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      den += q.weight;
      rankDen += q.weight * w;
      return w;
    });
    const prior = tools ? this.toolPrior(query, [...new Set(tools)]) : undefined;
    const pairs = queryPairs(query);
    return docs.map((d, di) => {
      const row = m[di]!;
      const toolScore = prior ? TOOL_PRIOR * prior.get(tools![di]!)! : 0;
      let num = 0;
      let rank = 0;
      query.forEach((q, qi) => {
        num += q.weight * row[qi]!;
        rank += q.weight * idf[qi]! * row[qi]!;
      });
      const bonus = PAIR_BONUS * sharedPairs(pairs, d);
      return {
        cover: den > 0 ? Math.min(1, num / den + bonus) : 0,
        rank: rankDen > 0 ? Math.min(1, rank / rankDen + toolScore + bonus) : 0,
      };
    });
  }
}

/** How much a match counts with each record word found in more than COMMON_SHARE of the records (by stem). */
function commonWords(docs: readonly (readonly Word[])[]): Map<string, number> {
  const df = new Map<string, number>();
  for (const d of docs) for (const w of d) df.set(w.stem, (df.get(w.stem) ?? 0) + 1);
  const out = new Map<string, number>();
  const min = COMMON_SHARE * docs.length;
  const ref = Math.log(COMMON_SHARE);
  for (const [stem, n] of df) {
    if (n > min) out.set(stem, Math.max(COMMON_FLOOR, Math.log(n / docs.length) / ref));
  }
  return out;
}

/** The text as the word-level match reads it: file names and standard error codes said in words, identifiers split. */
function readable(text: string): string {
  return splitIdentifiers(describeErrorCodes(describeFileNames(text)));
}

function similarity(q: Word, d: Word): number {
  let s = 0;
  if (q.stem === d.stem) return 1;
  if (q.vec && d.vec) for (let i = 0; i < q.vec.length; i++) s += q.vec[i]! * d.vec[i]!;
  if (s < PREFIX && isPrefixPair(q.stem, d.stem)) s = PREFIX;
  if (s < SYNONYM && q.concepts?.includes(d.stem)) s = SYNONYM;
  return s;
}

const conceptWords = new Map<string, Word>();
function concepts(text: string): Word[] {
  return errorConcepts(text).map((c) => {
    let w = conceptWords.get(c);
    if (!w) conceptWords.set(c, (w = { stem: `#${c}`, weight: CONCEPT_WEIGHT }));
    return w;
  });
}

function isPrefixPair(a: string, b: string): boolean {
  if (a.length < PREFIX_MIN || b.length < PREFIX_MIN || a[0] === "#" || b[0] === "#") return false;
  return a.length < b.length ? b.startsWith(a) : a.startsWith(b);
}

/** The adjacent stem pairs of each document seen ("a b"): a record's words are kept, so are its pairs. */
const docPairs = new WeakMap<readonly Word[], Set<string>>();

/** The query's adjacent word pairs ("a b"), error classes left out. */
function queryPairs(query: readonly Word[]): string[] {
  const out: string[] = [];
  for (let i = 1; i < query.length; i++)
    if (query[i]!.stem[0] !== "#") out.push(`${query[i - 1]!.stem} ${query[i]!.stem}`);
  return out;
}

/** How many of the query's adjacent word pairs (queryPairs) are adjacent in the document (at most 2). */
function sharedPairs(pairs: readonly string[], doc: readonly Word[]): number {
  if (pairs.length === 0) return 0;
  let docs = docPairs.get(doc);
  if (!docs) {
    docs = new Set<string>();
    for (let i = 1; i < doc.length; i++) docs.add(`${doc[i - 1]!.stem} ${doc[i]!.stem}`);
    docPairs.set(doc, docs);
  }
  let n = 0;
  for (const p of pairs) if (docs.has(p)) n++;
  return Math.min(2, n);
}

let shared: Promise<WordMatcher> | undefined;
export function wordMatcher(): Promise<WordMatcher> {
  shared ??= WordMatcher.create().catch((err) => {
    shared = undefined;
    throw err;
  });
  return shared;
}
