// Word-level match of an error query against record texts with the builtin word vectors: each content
// word of the query finds its closest word in the record (same stem = 1, else the cosine of their vectors),
// weighted by rarity. It finds "access was refused" in "Permission denied" where averaged sentence vectors
// drown two words among many.
import { loadWordVectors, type WordVectors } from "../../embed/builtin/word-vectors.ts";
import { queryTerms } from "../../search/query-terms.ts";
import { stemWord } from "../../shared/search-form.ts";
import { GENERIC_ERROR_WORDS } from "./error-query.ts";

/** Cosines below this count as unrelated words (tuned on the paraphrase set's dev part). */
const FLOOR = 0.4;
const POWER = 3;
const PAIR_BONUS = 0.15;
const SIF = 3e-4;
const ZIPF_NORM = Math.log(341_479) + 0.5772;

interface Word {
  stem: string;
  vec?: Float32Array;
  weight: number;
}

export class WordMatcher {
  readonly #cache = new Map<string, Word>();
  private constructor(private readonly wv: WordVectors) {}

  static async create(): Promise<WordMatcher> {
    return new WordMatcher(await loadWordVectors());
  }

  words(text: string): Word[] {
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
      if (this.#cache.size > 50_000) this.#cache.clear();
      this.#cache.set(w, x);
    }
    return x;
  }

  /**
   * Share of the query's word weight that the document covers, in [0, 1]; each pair of query words that
   * stands side by side in the document too ("too many clients") adds PAIR_BONUS.
   */
  score(query: readonly Word[], doc: readonly Word[]): number {
    return Math.min(1, this.cover(query, doc) + PAIR_BONUS * sharedPairs(query, doc));
  }

  cover(query: readonly Word[], doc: readonly Word[]): number {
    let num = 0;
    let den = 0;
    for (const q of query) {
      den += q.weight;
      let best = 0;
      for (const d of doc) {
        let s = 0;
        if (q.stem === d.stem) s = 1;
        else if (q.vec && d.vec) {
          for (let i = 0; i < q.vec.length; i++) s += q.vec[i]! * d.vec[i]!;
        }
        if (s > best) best = s;
        if (best === 1) break;
      }
      num += q.weight * Math.max(0, (best - FLOOR) / (1 - FLOOR)) ** POWER;
    }
    return den > 0 ? num / den : 0;
  }
}

/** How many of the query's adjacent word pairs are adjacent in the document (at most 2). */
function sharedPairs(query: readonly Word[], doc: readonly Word[]): number {
  if (query.length < 2) return 0;
  const pairs = new Set<string>();
  for (let i = 1; i < doc.length; i++) pairs.add(`${doc[i - 1]!.stem} ${doc[i]!.stem}`);
  let n = 0;
  for (let i = 1; i < query.length; i++) if (pairs.has(`${query[i - 1]!.stem} ${query[i]!.stem}`)) n++;
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
