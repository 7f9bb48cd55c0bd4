// porter2Ascii stems every lower-case ASCII word as the library the index was written with does: English
// vocabulary, and made-up words that put the stemmer's suffixes, prefixes and y and u placements together.
import { expect, test } from "bun:test";
import wink from "wink-porter2-stemmer";
import { porter2Ascii } from "../../src/shared/porter2.ts";
import { stemWord } from "../../src/shared/search-form.ts";
import { decodeWordVectors } from "../../src/embed/builtin/word-vectors.ts";

const SUFFIXES = (
  "sses ied ies us ss s eedly eed ed edly ingly ing at bl iz y ization ational fulness ousness iveness tional " +
  "biliti lessli entli ation alism aliti ousli iviti fulli enci anci abli izer ator alli bli ogi logi li cli alize " +
  "icate iciti ative ical ness ful ement ance ence able ible ment ant ent ism ate iti ous ive ize ion sion tion al er " +
  "ic e l ll bb dd ff gg mm nn pp rr tt ay oy ey uy yy u eu w x"
).split(" ");
const PREFIXES =
  "gener commun arsen y ya ye yo a e i o u in out can her pro ex suc ear sk dy ly ty id gent ug earl on sing".split(
    " ",
  );

/** Words made of an optional prefix, letters (vowels at `vowelShare`), and up to two suffixes, from a fixed seed. */
function madeUpWords(count: number, seed: number, vowelShare: number): string[] {
  let state = seed >>> 0;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 4294967296;
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const out: string[] = [];
  while (out.length < count) {
    let w = next() < 0.3 ? pick(PREFIXES) : "";
    for (let i = Math.floor(next() * 10); i > 0; i--)
      w += next() < vowelShare ? pick([..."aeiouy"]) : pick([..."abcdefghijklmnopqrstuvwxyz"]);
    for (let i = Math.floor(next() * 3); i > 0; i--) w += pick(SUFFIXES);
    if (w) out.push(w);
  }
  return out;
}

const mismatches = (words: Iterable<string>) => [...words].filter((w) => porter2Ascii(w) !== wink(w)).slice(0, 20);

test("English words stem as the library stems them", async () => {
  const vectors = decodeWordVectors(await Bun.file("src/embed/builtin/word-vectors.bin").bytes());
  const words = [...vectors.index.keys()].filter((w) => /^[a-z]+$/.test(w));
  expect(words.length).toBeGreaterThan(40_000);
  expect(mismatches(words)).toEqual([]);
});

test("made-up words stem as the library stems them", () => {
  expect(mismatches(madeUpWords(60_000, 12345, 0.4))).toEqual([]);
  expect(mismatches(madeUpWords(30_000, 777, 0.15))).toEqual([]);
  expect(mismatches(madeUpWords(30_000, 4242, 0.65))).toEqual([]);
});

test("the library's exceptions and quirks are kept", () => {
  const cases: [string, string][] = [
    ["skies", "sky"],
    ["dying", "die"],
    ["news", "news"],
    ["exceeding", "exceed"],
    ["generously", "generous"],
    ["menu", "men"],
    ["you", "yo"],
    ["crying", "cri"],
    ["ab", "ab"],
    ["constructor", "constructor"],
  ];
  for (const [word, stem] of cases) {
    expect(porter2Ascii(word)).toBe(stem);
    expect(wink(word)).toBe(stem);
  }
});

test("words beyond lower-case ASCII still stem through the library", () => {
  for (const w of ["naïve", "x2", "Deploying", "user's", "Ｄeploy", "snake_case"])
    expect(stemWord(w)).toBe(
      wink(
        w
          .toLowerCase()
          .replace(/['’]s?$/, "")
          .replace(/['’]/g, ""),
      ),
    );
});
