// Deterministic synthetic chat corpus: ~200-character messages over a Zipf-like vocabulary, some CJK.
import { CJK_SENTENCES, CONTENT_WORDS, FUNCTION_WORDS } from "./vocabulary.ts";

export const CONTENT_VOCABULARY = 5000;
const CJK_SHARE = 0.05;
const FUNCTION_SHARE = 0.45;

/** xorshift32: small, fast and the same on every machine. */
export function rng(seed: number): () => number {
  let x = seed >>> 0 || 0x9e3779b9;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x100000000;
  };
}

/** Made-up but pronounceable words for the vocabulary's long tail (deterministic). */
function madeUpWords(count: number, taken: Set<string>): string[] {
  const next = rng(7);
  const onset = [
    "b",
    "c",
    "d",
    "f",
    "g",
    "k",
    "l",
    "m",
    "n",
    "p",
    "r",
    "s",
    "t",
    "v",
    "z",
    "br",
    "st",
    "tr",
    "pl",
    "gr",
  ];
  const vowel = ["a", "e", "i", "o", "u", "ai", "ou"];
  const out: string[] = [];
  while (out.length < count) {
    let w = "";
    const syllables = 2 + Math.floor(next() * 3);
    for (let i = 0; i < syllables; i++)
      w += onset[Math.floor(next() * onset.length)]! + vowel[Math.floor(next() * vowel.length)]!;
    if (next() < 0.5) w += "nrstl"[Math.floor(next() * 5)]!;
    if (!taken.has(w)) {
      taken.add(w);
      out.push(w);
    }
  }
  return out;
}

/** Sampler over `words` with P(rank r) proportional to 1/r. */
function zipf(words: readonly string[], next: () => number): () => string {
  const cum = new Float64Array(words.length);
  let total = 0;
  for (let i = 0; i < words.length; i++) cum[i] = total += 1 / (i + 1);
  return () => {
    const x = next() * total;
    let lo = 0;
    let hi = words.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cum[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return words[lo]!;
  };
}

export const CONTENT: readonly string[] = (() => {
  const real = [...new Set(CONTENT_WORDS)];
  return real.concat(madeUpWords(CONTENT_VOCABULARY - real.length, new Set([...real, ...FUNCTION_WORDS])));
})();

export interface CorpusMessage {
  role: "user" | "assistant";
  content: string;
}

/** An endless stream of one session's messages, the same for the same (seed, session index). */
export function sessionStream(sessionIndex: number, seed = 1): () => CorpusMessage {
  const next = rng(seed * 1_000_003 + sessionIndex * 7919 + 1);
  const fn = zipf(FUNCTION_WORDS, next);
  const content = zipf(CONTENT, next);
  let i = 0;
  return () => {
    const target = 150 + Math.floor(next() * 100);
    let text = "";
    let sentenceStart = true;
    while (text.length < target) {
      if (next() < CJK_SHARE / 32) {
        text += CJK_SENTENCES[Math.floor(next() * CJK_SENTENCES.length)]! + (next() < 0.5 ? "。" : "！") + " ";
        sentenceStart = true;
        continue;
      }
      let w = next() < FUNCTION_SHARE ? fn() : content();
      if (sentenceStart) w = w[0]!.toUpperCase() + w.slice(1);
      sentenceStart = false;
      text += w;
      const p = next();
      if (p < 0.06) {
        text += ". ";
        sentenceStart = true;
      } else if (p < 0.08) text += ", ";
      else if (p < 0.085) {
        text += "? ";
        sentenceStart = true;
      } else text += " ";
    }
    return { role: i++ % 2 === 0 ? "user" : "assistant", content: text.trimEnd() };
  };
}

export function sessionMessages(sessionIndex: number, count: number, seed = 1): CorpusMessage[] {
  const next = sessionStream(sessionIndex, seed);
  return Array.from({ length: count }, next);
}
