import { describe, expect, test } from "bun:test";
import { phraseCount, type Phrase } from "../../src/search/bm25.ts";
import { indexTokens } from "../../src/shared/index-tokens.ts";
import { searchForm, stemWord } from "../../src/shared/search-form.ts";
import { seededRandom } from "../fixture/seeded-random.ts";
import { ftsPhrases, queryTerms } from "../../src/search/query-terms.ts";

/** Words next to digits, with apostrophes (inside too) and possessives, irregular stems, capitals, and one over 40 letters. */
const WORDS = [
  "node",
  "nodes",
  "node's",
  "modules",
  "module",
  "node_modules",
  "react-dom",
  "reacts",
  "dom",
  "DOM",
  "x86",
  "86x",
  "x86-64",
  "64",
  "3d",
  "3dprint",
  "print",
  "e-mail",
  "emails",
  "mail",
  "don't",
  "dont",
  "stop",
  "it's",
  "dying",
  "die",
  "skies",
  "sky",
  "'quoted'",
  "a",
  "the",
  "supercalifragilisticexpialidociousnessesxyz",
  "über",
  // A word left unstemmed stood as its first letter, its part after the apostrophe lost: the index splits it there.
  "ab'node",
  "zz'modules",
  "ça'node",
  "node’s",
  "x’node",
];

/** What phraseCount counts for a "tokens" phrase: the phrase's runs in the text's index tokens. */
function expected(lower: string, tokens: readonly string[]): number {
  const row = indexTokens(lower);
  let n = 0;
  for (let i = 0; i + tokens.length <= row.length; i++) if (tokens.every((t, j) => row[i + j] === t)) n++;
  return n;
}

describe("a multi-token phrase counted in a row's text", () => {
  test("counts what the row's full index tokens hold, stemming only the words that can be the phrase's", () => {
    const rnd = seededRandom(11);
    const pick = () => WORDS[Math.floor(rnd() * WORDS.length)]!;
    // Beyond ASCII: punctuation, symbols and emoji split tokens as spaces do; ’ is an apostrophe.
    const seps = [" ", "-", "_", ".", "/", ", ", "'", "0", "7 ", "—", " → ", "😀", "’", "’’"];
    let counted = 0;
    for (const query of ["node_modules", "react-dom", "x86-64", "3d-print", "e-mail", "don't stop", "node's modules"]) {
      const tokens = indexTokens(query);
      expect(tokens.length).toBeGreaterThan(1);
      const p: Phrase = { kind: "tokens", text: tokens[0]!, tokens };
      for (let k = 0; k < 400; k++) {
        const text = Array.from({ length: 1 + Math.floor(rnd() * 12) }, pick)
          .map((w, i) => (i === 0 ? w : seps[Math.floor(rnd() * seps.length)] + w))
          .join("")
          .toLowerCase();
        const want = expected(text, tokens);
        counted += want;
        expect({ query, text, n: phraseCount(text, p) }).toEqual({ query, text, n: want });
      }
    }
    expect(counted).toBeGreaterThan(100);
  });
});

/** What phraseCount counts for a "stem" or "prefix" phrase: every word start holding its key, by the word's form. */
function expectedWords(lower: string, p: Phrase, key: string): number {
  const isWordChar = (c: number) => (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || c > 127;
  let n = 0;
  for (let at = lower.indexOf(key); at >= 0; at = lower.indexOf(key, at + 1)) {
    if (at > 0 && isWordChar(lower.charCodeAt(at - 1))) continue;
    let end = at;
    while (end < lower.length && (isWordChar(lower.charCodeAt(end)) || lower[end] === "'" || lower[end] === "’")) end++;
    const word = lower.slice(at, end);
    if (p.kind === "prefix" || (/^[a-z]+$/.test(word) ? stemWord(word) : searchForm(word)) === p.text) n++;
  }
  return n;
}

describe("a word phrase counted in a row's text", () => {
  test("counts each word start holding its key whose form is the stem, apostrophes inside words included", () => {
    const rnd = seededRandom(5);
    const words = [
      "payment",
      "payments",
      "paid",
      "paymen",
      "repayment",
      "payment's",
      "o'payment",
      "paymen'payment",
      "payment’s",
      "PAYMENT",
      "payment7",
      "7payment",
      "paymentpayment",
      "deploy",
      "deploys",
      "deployed",
      "x'deploying",
      "redeploy",
    ];
    const seps = [" ", "'", "’", "-", "", ".", "7"];
    const phrases: [Phrase, string][] = [
      [{ kind: "stem", text: "payment", tokens: ["payment"] }, "paymen"],
      [{ kind: "stem", text: "deploy", tokens: ["deploy"] }, "deplo"],
      [{ kind: "prefix", text: "pay", tokens: ["pay"] }, "pay"],
    ];
    let counted = 0;
    for (let k = 0; k < 3000; k++) {
      const text = Array.from({ length: 1 + Math.floor(rnd() * 8) }, () => words[Math.floor(rnd() * words.length)]!)
        .map((w, i) => (i === 0 ? w : seps[Math.floor(rnd() * seps.length)] + w))
        .join("")
        .toLowerCase();
      // The same phrase objects across rows, as a window's rows are counted (what they remember carries over).
      for (const [p, key] of phrases) {
        const want = expectedWords(text, p, key);
        counted += want;
        expect({ text, p: p.text, n: phraseCount(text, p) }).toEqual({ text, p: p.text, n: want });
      }
    }
    expect(counted).toBeGreaterThan(1000);
  });
});

describe("a word whose stem it does not begin with, counted in a row's text", () => {
  test("is counted wherever the index holds it, when stemming rewrote a run of its letters (windows11: window11)", () => {
    // Also Porter2's exceptional words that do not begin with their stem (dying: die, skies: sky).
    for (const word of [
      "windows11",
      "macos14",
      "happy0abc",
      "studies2go",
      "3dogs",
      "es2015",
      "python3",
      "x86",
      "dying",
      "skies",
      "lying",
      "tying",
    ]) {
      const [p] = ftsPhrases(queryTerms(word));
      const text = `the upgrade to ${word} broke; ${word.toUpperCase()} again, not ${word}x or x${word}`.toLowerCase();
      // The index holds the word as this stem twice (the row's own tokens), so bm25 and coverage must count 2.
      expect(indexTokens(searchForm(text)).filter((t) => t === p!.text)).toHaveLength(2);
      expect({ word, n: phraseCount(text, p!) }).toEqual({ word, n: 2 });
    }
  });
});
