// Loads the int8 word-vector asset (GloVe-derived, 50k most frequent English words) embedded in the binary.
import assetPath from "./word-vectors.bin" with { type: "file" };
import { errorMessage, namedError } from "../../shared/errors.ts";

export interface WordVectors {
  dim: number;
  /** word -> row; rows are in frequency order (row 0 is the most frequent word). */
  index: Map<string, number>;
  scales: Float32Array;
  data: Int8Array;
}

const ASSET_PROBLEMS = {
  format: "word-vector asset is not in the expected format (rebuild with scripts/build-word-vectors.ts)",
  truncated: "word-vector asset is truncated",
} as const;

/** The builtin word-vector asset is unreadable, of another format, or cut short. */
export const WordVectorAssetError = namedError<
  { problem: keyof typeof ASSET_PROBLEMS } | { problem: "unreadable"; path: string; reason: string }
>("WordVectorAssetError", "runtime", (d) =>
  d.problem === "unreadable"
    ? `cannot read the builtin word vectors (${d.path}): ${d.reason}`
    : ASSET_PROBLEMS[d.problem],
);
export type WordVectorAssetError = InstanceType<typeof WordVectorAssetError>;

export function decodeWordVectors(bytes: Uint8Array): WordVectors {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (
    bytes.byteLength < 20 ||
    new TextDecoder().decode(bytes.subarray(0, 4)) !== "MVWV" ||
    view.getUint32(4, true) !== 1
  ) {
    throw new WordVectorAssetError({ problem: "format" });
  }
  const count = view.getUint32(8, true);
  const dim = view.getUint32(12, true);
  const vocabBytes = view.getUint32(16, true);
  const scalesAt = (20 + vocabBytes + 3) & ~3;
  const dataAt = scalesAt + 4 * count;
  if (dataAt + count * dim !== bytes.byteLength) throw new WordVectorAssetError({ problem: "truncated" });
  const words = new TextDecoder().decode(bytes.subarray(20, 20 + vocabBytes)).split("\n");
  const index = new Map<string, number>();
  words.forEach((w, i) => index.set(w, i));
  const aligned = bytes.slice(scalesAt, dataAt);
  return {
    dim,
    index,
    scales: new Float32Array(aligned.buffer, 0, count),
    data: new Int8Array(bytes.buffer, bytes.byteOffset + dataAt, count * dim),
  };
}

let cached: Promise<WordVectors> | undefined;

export function loadWordVectors(): Promise<WordVectors> {
  cached ??= Bun.file(assetPath)
    .bytes()
    .then(decodeWordVectors, (err) => {
      cached = undefined;
      throw new WordVectorAssetError(
        { problem: "unreadable", path: assetPath, reason: errorMessage(err) },
        { cause: err },
      );
    });
  return cached;
}
