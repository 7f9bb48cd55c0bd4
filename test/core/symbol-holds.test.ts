// holdsSymbols finds a symbol piece exactly where it is in the text normalised as pieces are (NFKC, lower case,
// runs of whitespace as one space), whether or not it collapses the text's whitespace, and holdsFoundSymbols as it does on
// the rows a substring scan returns: checked on generated text.
import { expect, test } from "bun:test";
import { holdsFoundSymbols, holdsSymbols, normalizeText, querySymbols } from "../../src/search/symbols.ts";

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
  // A mark alone: after a piece's last letter it composes with it, and the piece is no longer in the text.
  "\u0301",
  "\u00a8",
  "ſ",
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

/**
 * Every text of three `parts`, with each query's pieces (normalised and as typed), and whether the text normalised as
 * pieces are compared holds every piece.
 */
function forEveryTriple(
  parts: readonly string[],
  queries: readonly string[],
  check: (text: string, pieces: string[], asTyped: boolean, expected: boolean) => void,
): void {
  for (const a of parts)
    for (const b of parts)
      for (const c of parts)
        for (const query of queries)
          for (const asTyped of [false, true]) {
            const text = a + b + c;
            const pieces = querySymbols(query, asTyped);
            const folded = normalizeText(text, asTyped);
            check(
              text,
              pieces,
              asTyped,
              pieces.every((p) => folded.includes(p)),
            );
          }
}

test("holdsFoundSymbols agrees with the normalised text on every text whose lower case holds the pieces' parts", () => {
  // The pieces' own texts beside marks that compose with the letter before them and other characters NFKC changes
  // (a run the lower case holds may then be gone from the normalised text): every text of three of them.
  const parts = ["JSON.parse", "json.PARSE(", "process.env", "C++", ".env", "#123", "ﬁle", "İ", "\u212a", "e", " "];
  parts.push("\u00a0", "\u0301", "\u0307", "ＪＳＯＮ．ｐａｒｓｅ", "d", " > ", "c");
  const wrong: string[] = [];
  let found = 0;
  let notFolded = 0;
  forEveryTriple(parts, QUERIES, (text, pieces, asTyped, expected) => {
    // What the substring scans guarantee of the rows they return.
    const lower = text.toLowerCase();
    if (!pieces.every((p) => p.split(" ").every((n) => lower.includes(n.toLowerCase())))) return;
    if (expected) found++;
    else notFolded++;
    if (holdsFoundSymbols(text, pieces, asTyped) !== expected)
      wrong.push(`${JSON.stringify(pieces)} in ${JSON.stringify(text)}`);
  });
  expect(wrong.slice(0, 5)).toEqual([]);
  expect(found).toBeGreaterThan(1_000);
  expect(notFolded).toBeGreaterThan(20);
});

test("an ASCII piece in a text beyond ASCII: held where the normalised text holds it, marks after it included", () => {
  // Every text of three parts: a piece, its other forms, and what NFKC and the lower case change around it (a mark
  // that composes with the piece's last letter, letters that fold into ASCII ones, characters beyond ASCII).
  const parts = [
    "JSON.parse",
    "json.PARSE",
    "\u0301",
    "\u0327",
    "é",
    "ＪＳＯＮ．ｐａｒｓｅ",
    ".parse",
    "JSON",
    "\u212a",
  ];
  parts.push("ſ", "İ", "—", "ey", "et", "x", " ");
  const queries = ["JSON.parse", "JSON.p", "key.", ".set", "x—"];
  const wrong: string[] = [];
  let held = 0;
  let notHeld = 0;
  forEveryTriple(parts, queries, (text, pieces, asTyped, expected) => {
    if (expected) held++;
    else if (pieces.every((p) => text.toLowerCase().includes(p))) notHeld++;
    if (holdsSymbols(text, pieces, asTyped) !== expected)
      wrong.push(`${JSON.stringify(pieces)} in ${JSON.stringify(text)}`);
  });
  expect(wrong.slice(0, 5)).toEqual([]);
  expect(held).toBeGreaterThan(1_000);
  // Texts whose lower case holds a piece that their normalised form does not (a mark after it).
  expect(notHeld).toBeGreaterThan(20);
});
