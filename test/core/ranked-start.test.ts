// rankedStart keeps a text's first RANKED_CHARS characters (code points), a surrogate pair never split, wherever
// the text's pairs are: checked against counting the characters one by one.
import { expect, test } from "bun:test";
import { lowerStart, RANKED_CHARS, rankedLower, rankedStart } from "../../src/storage/sqlite/ranked-text.ts";

/** The first RANKED_CHARS characters of a text, and whether it has more. */
function reference(text: string): { text: string; cut: boolean } {
  const chars = Array.from(text);
  return { text: chars.slice(0, RANKED_CHARS).join(""), cut: chars.length > RANKED_CHARS };
}

test("rankedStart cuts at RANKED_CHARS characters wherever a surrogate pair lies", () => {
  const pair = "😀";
  const wrong: string[] = [];
  const lengths = [RANKED_CHARS - 1, RANKED_CHARS, RANKED_CHARS + 1, RANKED_CHARS + 2, RANKED_CHARS * 2 + 5];
  const places = [undefined, 0, RANKED_CHARS - 2, RANKED_CHARS - 1, RANKED_CHARS, RANKED_CHARS + 1, RANKED_CHARS * 2];
  for (const length of lengths)
    for (const at of places) {
      let text = "a".repeat(length);
      if (at !== undefined && at < length) text = text.slice(0, at) + pair + text.slice(at);
      const got = rankedStart(text);
      const want = reference(text);
      if (got.text !== want.text || got.cut !== want.cut) wrong.push(`length ${length}, pair at ${at}`);
    }
  expect(wrong).toEqual([]);
});

test("rankedLower is rankedStart's text in JS lower case, whatever the text holds", () => {
  const wrong: string[] = [];
  const odd = ["😀", "É", "İ", "\u212a", "\ud800", "\udc00", "Σ", "é", "中"];
  for (const length of [10, RANKED_CHARS - 1, RANKED_CHARS, RANKED_CHARS + 1, RANKED_CHARS + 2])
    for (const c of [undefined, ...odd])
      for (const at of [0, RANKED_CHARS - 2, RANKED_CHARS - 1, RANKED_CHARS, length - 1]) {
        let text = "a".repeat(length);
        if (c !== undefined && at >= 0 && at < length) text = text.slice(0, at) + c + text.slice(at + 1);
        const start = rankedStart(text);
        const got = rankedLower(text);
        if (got.text !== start.text.toLowerCase() || got.cut !== start.cut)
          wrong.push(`length ${length}, ${JSON.stringify(c)} at ${at}`);
      }
  expect(wrong).toEqual([]);
});

test("lowerStart is the start of the whole text's lower case, Σ's final form and İ's two characters included", () => {
  const wrong: string[] = [];
  const long = RANKED_CHARS * 2 + 10;
  const texts = [
    "a".repeat(long),
    "A".repeat(long),
    "İ".repeat(long),
    "😀A".repeat(long),
    // Σ followed by marks (case-ignorable) past the point a start would be cut at, then a letter: not final.
    `${"a".repeat(RANKED_CHARS - 10)}Σ${"\u0301".repeat(long)}b`,
    `${"a".repeat(RANKED_CHARS - 10)}Σ${"\u0301".repeat(long)}`,
    `${"A".repeat(RANKED_CHARS)}Σ b`,
    "short Σ text",
    `${"x".repeat(RANKED_CHARS * 2 + 1)}İ${"y".repeat(20)}`,
  ];
  for (const text of texts)
    if (lowerStart(text) !== rankedStart(text.toLowerCase()).text) wrong.push(JSON.stringify(text.slice(0, 40)));
  expect(wrong).toEqual([]);
});
