// Encoding of the builtin word-vector asset (the decoder lives in src/embed/builtin/word-vectors.ts).
// Layout, little-endian: "MVWV" u32 version u32 count u32 dim u32 vocabBytes | vocab (utf8, \n-separated,
// most frequent first) | zero pad to 4 | f32 scale[count] | i8 vector[count*dim] (value = int8 * scale).

export const WORD_COUNT = 50_000;
const WORD = /^[\p{L}\p{N}]+$/u;

/** The first `count` entries of a frequency-ordered vocabulary that the tokenizer can produce. */
export function selectWords(ordered: readonly string[], count: number): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const w of ordered) {
    if (out.length >= count) break;
    if (!WORD.test(w) || w !== w.toLowerCase() || seen.has(w)) continue;
    seen.add(w);
    out.push(w);
  }
  return out;
}

export function encodeWordVectors(words: readonly string[], vectorOf: (w: string) => readonly number[], dim: number): Uint8Array {
  const vocab = new TextEncoder().encode(words.join("\n"));
  const head = 20;
  const vocabEnd = head + vocab.length;
  const scalesAt = (vocabEnd + 3) & ~3;
  const dataAt = scalesAt + 4 * words.length;
  const buf = new ArrayBuffer(dataAt + words.length * dim);
  const view = new DataView(buf);
  new Uint8Array(buf).set(new TextEncoder().encode("MVWV"), 0);
  view.setUint32(4, 1, true);
  view.setUint32(8, words.length, true);
  view.setUint32(12, dim, true);
  view.setUint32(16, vocab.length, true);
  new Uint8Array(buf).set(vocab, head);
  const data = new Int8Array(buf, dataAt);
  words.forEach((w, i) => {
    const v = vectorOf(w);
    let max = 0;
    for (let d = 0; d < dim; d++) max = Math.max(max, Math.abs(v[d]!));
    const scale = max > 0 ? max / 127 : 1;
    view.setFloat32(scalesAt + 4 * i, scale, true);
    for (let d = 0; d < dim; d++) data[i * dim + d] = Math.round(v[d]! / scale);
  });
  return new Uint8Array(buf);
}
