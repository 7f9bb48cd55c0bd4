// The offline default embedder: SIF-weighted GloVe word vectors (English meaning) concatenated with hashed
// char/word n-grams (spelling, names, typos, CJK). Deterministic; nothing is ever downloaded.
import { normalizeInPlace, type EmbedPurpose, type Embedder } from "../embedder.ts";
import { addHashFeatures } from "./hash-features.ts";
import { tokenize } from "./tokenize.ts";
import { loadWordVectors, type WordVectors } from "./word-vectors.ts";
import { BUILTIN_DIM, BUILTIN_ID } from "./builtin-id.ts";

const HASH_WEIGHT = 0.35;
// SIF weight a/(a + p(w)), p from the word's frequency rank (Zipf); unknown words count as rare.
const SIF_WORDS = 3e-3;
const SIF_HASH = 1e-3;
const ZIPF_NORM = Math.log(341_479) + 0.5772;

/** Relative weights of the word-vector part and the hashed n-gram part. */
export interface Mix {
  words: number;
  grams: number;
}

export class BuiltinEmbedder implements Embedder {
  readonly id = BUILTIN_ID;
  readonly dim = BUILTIN_DIM;
  readonly local = true;
  readonly #hashWeight: (w: string) => number;

  readonly #mix: Mix;

  private constructor(
    private readonly wv: WordVectors,
    mix: Mix,
  ) {
    const rare = wv.index.size + 1;
    this.#hashWeight = (w) => sif(SIF_HASH, wv.index.get(w) ?? rare);
    this.#mix = mix;
  }

  static async create(): Promise<BuiltinEmbedder> {
    return new BuiltinEmbedder(await loadWordVectors(), { words: 1, grams: HASH_WEIGHT });
  }

  /** A candidate with other part weights (benchmarks only: its vectors are not compatible with `id`). */
  static async variant(mix: Mix): Promise<BuiltinEmbedder> {
    return new BuiltinEmbedder(await loadWordVectors(), mix);
  }

  /** Queries and documents embed alike (`purpose` is ignored). */
  async embed(texts: string[], signal?: AbortSignal, _purpose?: EmbedPurpose): Promise<Float32Array[]> {
    signal?.throwIfAborted();
    return texts.map((t) => this.embedOne(t));
  }

  /**
   * A query of identifiers only (`kubectl`, `pgbouncer`: no word with a word vector, no CJK) embeds into the spelling
   * part alone, which weighs mix.grams of a text that has a known word: such a text's cosine to it is scaled up to
   * their cosine over that part, as a text of unknown words only already has it. A text sharing no 4-character piece
   * of the query's words gets 0: between a short query and a long text, hashed n-grams collide by chance at cosines
   * a real but diluted match also has.
   */
  partScale(query: string): ((text: string) => number) | undefined {
    const tokens = tokenize(query);
    if (tokens.length === 0 || tokens.some((t) => t.cjk || this.wv.index.has(t.text))) return undefined;
    const pieces = new Set<string>();
    for (const { text } of tokens)
      for (let i = 0; i + Math.min(4, text.length) <= text.length; i++) pieces.add(text.slice(i, i + 4));
    const full = Math.hypot(this.#mix.words, this.#mix.grams) / this.#mix.grams;
    return (text) => {
      const lower = text.normalize("NFKC").toLowerCase();
      for (const p of pieces) if (lower.includes(p)) return this.#hasKnownWord(text) ? full : 1;
      return 0;
    };
  }

  #hasKnownWord(text: string): boolean {
    for (const t of tokenize(text)) if (!t.cjk && this.wv.index.has(t.text)) return true;
    return false;
  }

  embedOne(text: string): Float32Array {
    const { dim, index, scales, data } = this.wv;
    const out = new Float32Array(BUILTIN_DIM);
    const tokens = tokenize(text);
    for (const t of tokens) {
      if (t.cjk) continue;
      const row = index.get(t.text);
      if (row === undefined) continue;
      const k = sif(SIF_WORDS, row) * scales[row]!;
      const base = row * dim;
      for (let d = 0; d < dim; d++) out[d]! += k * data[base + d]!;
    }
    const hash = out.subarray(dim);
    addHashFeatures(out, dim, BUILTIN_DIM - dim, tokens, this.#hashWeight);
    const words = norm(out.subarray(0, dim));
    const grams = norm(hash);
    const kw = words > 0 ? this.#mix.words / words : 0;
    const kh = grams > 0 ? this.#mix.grams / grams : 0;
    for (let d = 0; d < dim; d++) out[d]! *= kw;
    for (let d = 0; d < hash.length; d++) hash[d]! *= kh;
    return normalizeInPlace(out);
  }
}

function sif(a: number, row: number): number {
  const p = 1 / ((row + 1) * ZIPF_NORM);
  return a / (a + p);
}

function norm(v: Float32Array): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  return Math.sqrt(s);
}
