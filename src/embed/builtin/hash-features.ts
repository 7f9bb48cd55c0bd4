// Signed feature hashing (FNV-1a) of words, char 3-5-grams, word bigrams and CJK uni/bigrams into a slice.
import type { Token } from "./tokenize.ts";

const CHAR_WEIGHT = 0.5;
const BIGRAM_WEIGHT = 0.5;

function fnv(seed: number, s: string, start: number, end: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = start; i < end; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function add(out: Float32Array, offset: number, size: number, h: number, w: number): void {
  out[offset + (h % size)]! += h & 0x80000000 ? -w : w;
}

/** Adds the hashed features of `tokens` to out[offset, offset+size); weightOf gives each word's weight. */
export function addHashFeatures(
  out: Float32Array,
  offset: number,
  size: number,
  tokens: readonly Token[],
  weightOf: (word: string) => number,
): void {
  let prev = -1;
  let prevText = "";
  for (const t of tokens) {
    if (t.cjk) {
      const chars = Array.from(t.text);
      for (let i = 0; i < chars.length; i++) {
        add(out, offset, size, fnv(3, chars[i]!, 0, chars[i]!.length), 1);
        if (i + 1 < chars.length) {
          const pair = chars[i]! + chars[i + 1]!;
          add(out, offset, size, fnv(4, pair, 0, pair.length), 1);
        }
      }
      prev = -1;
      continue;
    }
    const w = weightOf(t.text);
    add(out, offset, size, fnv(1, t.text, 0, t.text.length), w);
    const padded = `<${t.text}>`;
    let grams = 0;
    for (let n = 3; n <= 5; n++) grams += Math.max(0, padded.length - n + 1);
    if (grams > 0) {
      const gw = (CHAR_WEIGHT * w) / grams;
      for (let n = 3; n <= 5; n++)
        for (let i = 0; i + n <= padded.length; i++) add(out, offset, size, fnv(2, padded, i, i + n), gw);
    }
    if (prev >= 0)
      add(
        out,
        offset,
        size,
        fnv(5, prevText + " " + t.text, 0, prevText.length + 1 + t.text.length),
        BIGRAM_WEIGHT * w,
      );
    prev = 1;
    prevText = t.text;
  }
}
