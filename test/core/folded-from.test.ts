// foldedFrom names every character through which a text's JS lower case can hold a needle that its ASCII lower
// case (what LIKE compares) does not: checked on every short text and needle over the letters that matter.
import { expect, test } from "bun:test";
import { foldedFrom } from "../../src/storage/sqlite/like-needle.ts";

const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** Every string of the alphabet's letters up to `max` long. */
function* strings(alphabet: readonly string[], max: number): Generator<string> {
  let level = [""];
  for (let n = 1; n <= max; n++) {
    level = level.flatMap((s) => alphabet.map((c) => s + c));
    yield* level;
  }
}

test("a needle found only through JS lower case is found through a character foldedFrom names", () => {
  const needles = [...strings(["i", "k", "n", "\u0307"], 3)];
  const texts = [...strings(["i", "I", "k", "K", "n", "\u0130", "\u212a", "\u0307"], 4)];
  const missed: string[] = [];
  for (const needle of needles) {
    const from = foldedFrom([needle]);
    for (const text of texts) {
      if (!text.toLowerCase().includes(needle) || asciiLower(text).includes(needle)) continue;
      if (![...text].some((c) => from.includes(c))) missed.push(`${JSON.stringify(needle)} in ${JSON.stringify(text)}`);
    }
  }
  expect(missed).toEqual([]);
  // A needle with an i before another letter cannot be made up with İ (its lower case puts a dot after the i).
  expect(foldedFrom(["incident"])).toEqual([]);
  expect(foldedFrom(["inci"])).toEqual(["\u0130"]);
  expect(foldedFrom(["kubernetes"])).toEqual(["\u212a"]);
});
