// Calibrated relevance of semantic hits: a cosine is compared with what unrelated messages score for the
// same query vector (the mean over a sample of the table, kept per table and embedder by the memory layer), as error memory's background
// gain: score = (cos - mean) / (1 - mean), clamped to [0, 1]. 0 is "as close as an unrelated message",
// 1 an identical vector, whatever the query and the embedder. (A z-score over the spread was measured on
// LoCoMo and rejected: keyboard mashes have a tiny spread, so noise scored as high as real answers.)
import type { Embedder } from "../embed/embedder.ts";
import type { MessageVectorTable as VectorTable } from "../storage/ports/vector-port.ts";
import { queryTerms } from "./query-terms.ts";

/**
 * Everyday sentences on unrelated topics: the background of a table too small to be its own (a few
 * dozen rows, all of them possibly about the query). Embedded once per embedder and process.
 */
const REFERENCE = [
  "I will be home late tonight, don't wait for dinner.",
  "The meeting moved to Tuesday at ten.",
  "Can you send me the report by Friday?",
  "We went hiking in the mountains last weekend.",
  "The build failed because a test timed out.",
  "My sister just adopted a puppy.",
  "Prices went up again at the grocery store.",
  "Let's grab coffee after the call.",
  "The server restarted during the night.",
  "I finished reading that novel you recommended.",
  "The kids have a school trip tomorrow.",
  "Please review the pull request when you have time.",
  "It rained all day so we stayed inside.",
  "The invoice was paid last month.",
  "She is training for a marathon in the spring.",
  "Thanks, that fixed it!",
  "What time does the store open on Sunday?",
  "The new release is out with a few bug fixes.",
  "We painted the living room blue.",
  "The flight was delayed by two hours.",
  "I'm not sure, let me check and get back to you.",
  "The database backup finished without errors.",
  "He started a new job at a hospital.",
  "Our team won the game on Saturday.",
  "Could you explain how this function works?",
  "The garden needs watering every morning in summer.",
  "I booked a table for four at eight.",
  "The password must be at least twelve characters.",
  "We are planning a trip to the coast in August.",
  "The music at the concert was amazing.",
  "Remember to bring your passport.",
  "The cat has been sleeping on the keyboard again.",
];
/** The reference sentences about work with software or documents, left out where only everyday topics may count. */
const ABOUT_WORK = new Set([
  "The meeting moved to Tuesday at ten.",
  "Can you send me the report by Friday?",
  "The build failed because a test timed out.",
  "The server restarted during the night.",
  "Please review the pull request when you have time.",
  "The invoice was paid last month.",
  "Thanks, that fixed it!",
  "The new release is out with a few bug fixes.",
  "I'm not sure, let me check and get back to you.",
  "The database backup finished without errors.",
  "Could you explain how this function works?",
  "The password must be at least twelve characters.",
]);
/** Where the other reference sentences (everyday topics only) are in REFERENCE. */
const EVERYDAY_AT = REFERENCE.flatMap((s, i) => (ABOUT_WORK.has(s) ? [] : [i]));
/** Below this many rows a table's own sample is mixed with the reference sentences. */
const OWN_BACKGROUND_ROWS = 200;
const references = new Map<string, Promise<Float32Array[]>>();

/** The reference sentences' vectors, embedded once per embedder and process. */
export function referenceVectors(embedder: Embedder): Promise<Float32Array[]> {
  let p = references.get(embedder.id);
  if (!p) {
    p = embedder.embed(REFERENCE, undefined, "document");
    references.set(embedder.id, p);
    p.catch(() => references.delete(embedder.id));
  }
  return p;
}

/** Vectors sampled per table for the background. */
export const BACKGROUND_SAMPLE = 400;
/** A kept background is re-sampled when the table has grown or shrunk by this share (and at least this many rows). */
const REFRESH_SHARE = 0.2;
const REFRESH_MIN_ROWS = 50;

/** Default `[search] min_score`, per embedder kind (builtin: chosen on the LoCoMo dev split, bench/locomo.ts). */
export const DEFAULT_MIN_SCORE = { builtin: 0.1, http: 0.1 };

export function defaultMinScore(embedder: Pick<Embedder, "id">): number {
  return embedder.id.startsWith("builtin:") ? DEFAULT_MIN_SCORE.builtin : DEFAULT_MIN_SCORE.http;
}

/**
 * `unknownName`: calibrated scores are multiplied by this when the query names someone the index has
 * never seen; `noSharedWord`: the cutoff is raised to at least this when no message holds any of the
 * query's words (a paraphrase must then be clearly close; random words and mashes are not); `contentWords`: the
 * least cosine of a hit's content words to the query's, with the builtin embedder (contentWordsFar), for a hit
 * holding none of the query's words when those some message holds weigh less than `heldShare` of the query;
 * `wordAgrees`: the least cosine of a query's content word to one of such a hit's for the two to agree (of a query
 * of several content words, two must).
 */
export const RELEVANCE = {
  unknownName: 0.25,
  noSharedWord: 0.25,
  contentWords: 0.6,
  heldShare: 0.5,
  wordAgrees: 0.5,
};

/** A text's content words (stop words left out; the first MAX_TERMS distinct ones of its start), as one line. */
export function contentWords(text: string): string {
  return queryTerms(text.slice(0, 4000))
    .filter((t) => !t.stop)
    .map((t) => t.text)
    .join(" ");
}

/**
 * Whether a text's content words are far from the query's (cosine under RELEVANCE.contentWords, both embedded
 * without their stop words), for a query mostly about what no message mentions, through the builtin embedder. Its
 * whole-text vectors weigh the function words two questions share most: "what should I cook for dinner" is 0.75 to
 * "Should we also block deploys on Friday afternoons?" as written, 0.48 in content words ("cook dinner"), where a
 * paraphrase stays close ("sick dog" and "my puppy has been ill since yesterday": 0.65). bench/RESULTS.md.
 * With `wordByWord` (a query no message holds a word of: LoCoMo's questions, which name their speakers, never are),
 * a query of several content words is also far from a text where fewer than two of them each have a word at
 * RELEVANCE.wordAgrees: the mean of a short technical query's words and that of a long technical text are close
 * whatever they say ("exit code 137" is 0.64 in content words to "The request body uses `userId` and the handler
 * reads `user_id`", where only "code" has a near word, 0.59), while a paraphrase says each thing in other words
 * ("sick" and "ill" 0.68, "dog" and "puppy" 0.64).
 */
export function contentWordsFar(
  embedder: Embedder,
  query: string,
): (text: string, wordByWord?: boolean) => Promise<boolean> {
  const words = new Map<string, Promise<Float32Array>>();
  const wordVector = (w: string) => {
    let v = words.get(w);
    if (!v) {
      v = embedder.embed([w], undefined, "document").then((x) => x[0]!);
      words.set(w, v);
    }
    return v;
  };
  const queryWords = [...new Set(contentWords(query).split(" ").filter(Boolean))];
  let q: Promise<Float32Array | undefined> | undefined;
  let qws: Promise<Float32Array[]> | undefined;
  return async (text, wordByWord = true) => {
    const qv = await (q ??= embedder.embed([queryWords.join(" ")], undefined, "query").then((v) => v[0]));
    const content = contentWords(text);
    const [tv] = await embedder.embed([content], undefined, "document");
    if (qv === undefined || tv === undefined) return false;
    if (dot(qv, tv) < RELEVANCE.contentWords) return true;
    if (!wordByWord || queryWords.length < 2) return false;
    const own = await (qws ??= Promise.all(queryWords.map(wordVector)));
    const theirs = await Promise.all([...new Set(content.split(" ").filter(Boolean))].map(wordVector));
    let agree = 0;
    for (const w of own) if (theirs.some((t) => dot(w, t) >= RELEVANCE.wordAgrees) && ++agree === 2) return false;
    return true;
  };
}

/**
 * How much closer than the nearest reference sentence a candidate must be to count as nearer the query than an
 * everyday topic (everydayBar). Chosen on the dev half of bench/error-paraphrases.ts: 0.02 was the largest gap that
 * kept its top-1; 0.03 leaves a margin.
 */
export const EVERYDAY_GAP = 0.03;

/**
 * The cosine under which a candidate is no nearer the query than an everyday topic is: the query's highest cosine
 * to the everyday reference sentences (referenceVectors; not those about work), less EVERYDAY_GAP (-Infinity
 * without them). An error search for "the football match ended in a draw" meets "Our team won the game on
 * Saturday." well before git's "did not match any file(s)". (Message search does not use it: with the builtin
 * embedder a paraphrase on a topic the references share, "sick dog" for "my puppy has been ill", scores under the
 * bar; it checks content words instead, contentWordsFar. bench/RESULTS.md.)
 */
export function everydayBar(q: Float32Array, references: readonly Float32Array[]): number {
  let best = Number.NEGATIVE_INFINITY;
  for (const at of EVERYDAY_AT) {
    const v = references[at];
    if (v) best = Math.max(best, dot(q, v));
  }
  return best - EVERYDAY_GAP;
}

/** Below this many rows a table's background is its sample plus the reference sentences. */
export function smallTable(rows: number): boolean {
  return rows < OWN_BACKGROUND_ROWS;
}

/** Whether a background sampled from `sampledRows` rows no longer stands for a table of `rows` rows. */
export function backgroundStale(sampledRows: number, rows: number): boolean {
  return Math.abs(rows - sampledRows) > Math.max(REFRESH_MIN_ROWS, sampledRows * REFRESH_SHARE);
}

/**
 * The background vectors of a table of `rows` rows, from a sample of it (`table.sample(BACKGROUND_SAMPLE)`):
 * the sample alone, with the reference sentences while the table is small.
 */
export async function withReferences(
  sample: Float32Array[],
  rows: number,
  embedder: Embedder,
): Promise<Float32Array[]> {
  if (!smallTable(rows)) return sample;
  return [...sample, ...(await referenceVectors(embedder))];
}

const sampled = new WeakMap<VectorTable, Promise<{ rows: number; vectors: Float32Array[] }>>();

/**
 * The background of a table sampled by this process and cached per table handle, re-sampled when the table
 * has changed enough (where no kept statistics exist: the shared mode; a home keeps them, background-stats.ts).
 */
export async function backgroundVectors(table: VectorTable, embedder: Embedder): Promise<Float32Array[]> {
  let p = sampled.get(table);
  const kept = p ? await p.catch(() => undefined) : undefined;
  if (!kept || backgroundStale(kept.rows, await table.count())) {
    p = (async () => {
      const rows = await table.count();
      return { rows, vectors: await withReferences(await table.sample(BACKGROUND_SAMPLE), rows, embedder) };
    })();
    sampled.set(table, p);
    p.catch(() => sampled.delete(table));
  }
  return (await p!).vectors;
}

export interface Calibration {
  /** The mean of the query's cosine to the background vectors. */
  mean: number;
}

/** The mean vector of each background (a background's array is kept as long as the background is). */
const centroids = new WeakMap<readonly Float32Array[], Float64Array>();

/**
 * The query's calibration against a background: the mean of its cosine to the background vectors, which is its
 * dot product with their mean vector (one product per search instead of one per vector).
 */
export function calibrate(q: Float32Array, vectors: readonly Float32Array[]): Calibration {
  if (vectors.length < 2) return { mean: 0 };
  let c = centroids.get(vectors);
  if (!c || c.length !== q.length) {
    c = new Float64Array(q.length);
    for (const v of vectors) for (let i = 0; i < c.length; i++) c[i]! += v[i]!;
    for (let i = 0; i < c.length; i++) c[i]! /= vectors.length;
    centroids.set(vectors, c);
  }
  return { mean: dot(q, c) };
}

/** The dot product of two vectors of the same length (a cosine, for unit vectors). */
function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

export function calibratedScore(cos: number, c: Calibration): number {
  return Math.min(1, Math.max(0, (cos - c.mean) / Math.max(1e-6, 1 - c.mean)));
}
