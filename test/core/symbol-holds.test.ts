// holdsSymbols finds a symbol piece exactly where it is in the text normalised as pieces are (NFKC, lower case,
// runs of whitespace as one space), whether or not it collapses the text's whitespace: checked on generated text.
import { expect, test } from "bun:test";
import { holdsSymbols, normalizeText, querySymbols } from "../../src/search/symbols.ts";

const PARTS = [
  "JSON.parse",
  "json.PARSE(",
  "ＪＳＯＮ．ｐａｒｓｅ",
  "process.env",
  "module.exports",
  "require('fs')",
  "c > d",
  "a&&b",
  "x->y",
  "C++",
  ".env",
  "#123",
  "e\u0301",
  "\u00a8",
  "⑴",
  "ﬁle",
  "İ",
  "\u212a",
  "const",
  "(",
  ")",
  ".",
  ">",
];
/** Queries whose pieces hold a space, and texts of their own words, so that they meet other whitespace. */
const SPACED = ["c > d", "a && b", "x -> y"];
const SPACES = [" ", "  ", "\n", "\t", "\u00a0", "\u3000", " \n\t ", ""];
const QUERIES = [
  "JSON.parse",
  "process.env",
  "c > d",
  "require('fs')",
  "a&&b",
  "C++ .env",
  "x->y",
  "⑴",
  "file.",
  "#123",
];

function rng(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
}

test("holdsSymbols agrees with the normalised text holding every piece", () => {
  const rnd = rng(7);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const wrong: string[] = [];
  let found = 0;
  for (let i = 0; i < 20_000; i++) {
    let text = "";
    const spaced = i % 2 === 0 ? pick(SPACED) : undefined;
    const parts = spaced ? spaced.split(" ") : PARTS;
    for (let n = 1 + Math.floor(rnd() * 8); n > 0; n--) text += pick(parts) + pick(SPACES);
    for (const asTyped of [false, true]) {
      const pieces = querySymbols(spaced ?? pick(QUERIES), asTyped);
      const folded = normalizeText(text, asTyped);
      const expected = pieces.every((p) => folded.includes(p));
      if (expected) found++;
      if (holdsSymbols(text, pieces, asTyped) !== expected)
        wrong.push(`${JSON.stringify(pieces)} in ${JSON.stringify(text)}`);
    }
  }
  expect(wrong.slice(0, 5)).toEqual([]);
  expect(found).toBeGreaterThan(1_000);
});
