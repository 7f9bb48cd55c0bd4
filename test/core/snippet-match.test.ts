import { describe, expect, test } from "bun:test";
import { queryTerms } from "../../src/search/query-terms.ts";
import { findMatches, hasMatch } from "../../src/search/snippet.ts";

/** A deterministic generator (mulberry32), so a failure names its case. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  "deploy",
  "Deploy",
  "DEPLOYS",
  "redeploy",
  "deployment",
  "o'",
  "'",
  "’",
  "5",
  "2024",
  "x2024",
  "k8s",
  "ing",
  "é",
  "数据库",
  " ",
  " ",
  ",",
  "-",
  "_",
  "error",
  "errors",
  "erro",
  "run",
  "running",
  "ran",
];
const QUERIES = ["deploy", "deploying", "2024", "erro", "error", "run", "k8s", "数据", "running deploy", "the"];

describe("hasMatch", () => {
  test("agrees with findMatches on generated text", () => {
    const next = rng(7);
    for (let i = 0; i < 4000; i++) {
      let text = "";
      const n = 1 + Math.floor(next() * 8);
      for (let k = 0; k < n; k++) text += PIECES[Math.floor(next() * PIECES.length)]!;
      for (const q of QUERIES) {
        const terms = queryTerms(q);
        expect({ text, q, found: hasMatch(text, terms) }).toEqual({
          text,
          q,
          found: findMatches(text, terms).length > 0,
        });
      }
    }
  });
});
