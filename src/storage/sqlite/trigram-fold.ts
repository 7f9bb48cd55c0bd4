// Where the substring index's case folding and the runtime's lower case disagree: SQLite's trigram tokenizer
// folds with Unicode tables older than the runtime's, and keeps `İ` as one character where toLowerCase gives
// `i̇`. A needle is lower-cased by the runtime, so its trigrams over such characters may not be the ones the
// index holds for the text it matches: they are not used to select rows (the text check decides).
import { isAscii } from "../../shared/ascii.ts";

/**
 * Capitals the tokenizer does not fold to the runtime's lower case (measured against the pinned runtime, and
 * checked by test/core/trigram-fold.test.ts): their lower-case forms in a needle may stand for them.
 */
export const UNFOLDED_CAPITALS: readonly (readonly [number, number])[] = [
  [0x37f, 0x37f],
  [0x528, 0x52e],
  [0x13a0, 0x13f5],
  [0x1c89, 0x1c89],
  [0x1c90, 0x1cba],
  [0x1cbd, 0x1cbf],
  [0x2c2f, 0x2c2f],
  [0xa698, 0xa69a],
  [0xa796, 0xa79e],
  [0xa7ab, 0xa7dc],
  [0xa7f5, 0xa7f5],
  [0x104b0, 0x104d3],
  [0x10570, 0x10595],
  [0x10c80, 0x10cb2],
  [0x10d50, 0x10d65],
  [0x118a0, 0x118bf],
  [0x16e40, 0x16e5f],
  [0x16ea0, 0x16eb8],
  [0x1e900, 0x1e921],
];

let unfolded: Set<string> | undefined;

/** The lower-case forms of UNFOLDED_CAPITALS (one character each). */
function unfoldedLower(): Set<string> {
  if (unfolded) return unfolded;
  unfolded = new Set();
  for (const [from, to] of UNFOLDED_CAPITALS)
    for (let c = from; c <= to; c++) {
      const lower = String.fromCodePoint(c).toLowerCase();
      if (Array.from(lower).length === 1) unfolded.add(lower);
    }
  return unfolded;
}

const DOT_ABOVE = "\u0307";

/**
 * A lower-cased needle's characters cut into the runs whose trigrams the index holds for every text the needle
 * matches: without `i̇` (the lower case of `İ`) and the lower-case forms of UNFOLDED_CAPITALS.
 */
export function foldSafeRuns(chars: readonly string[]): string[][] {
  // A needle's last `i` may stand for the `i` of `i̇` (İ), which the index holds as İ.
  if (chars.at(-1) === "i") return foldSafeRuns(chars.slice(0, -1));
  if (isAscii(chars.join(""))) return [[...chars]];
  const unsafe = unfoldedLower();
  const runs: string[][] = [[]];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const dotted = (c === "i" && chars[i + 1] === DOT_ABOVE) || c === DOT_ABOVE;
    if (dotted || unsafe.has(c)) {
      if (runs[runs.length - 1]!.length > 0) runs.push([]);
      continue;
    }
    runs[runs.length - 1]!.push(c);
  }
  return runs.filter((r) => r.length > 0);
}
