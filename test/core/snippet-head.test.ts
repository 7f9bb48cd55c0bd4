// A long text's snippet read from its start gives the snippet of the whole text: checked against the whole
// text's matches on generated texts, their matches early, near where the start is cut, late, many or none.
import { expect, test } from "bun:test";
import { findMatches, makeSnippet } from "../../src/search/snippet.ts";
import { queryTerms } from "../../src/search/query-terms.ts";
import { seededRandom } from "../fixture/seeded-random.ts";

/** The snippet from the whole text's matches (makeSnippet as it reads a text of any length). */
function wholeSnippet(content: string, query: string, width = 160) {
  const terms = queryTerms(query);
  const text0 = content.replace(/\s/g, " ");
  const all = findMatches(text0, terms);
  if (text0.length <= width) return { text: text0, highlights: all };
  const first = all[0]?.[0] ?? 0;
  let start = Math.max(0, first - Math.floor(width / 3));
  const end = Math.min(text0.length, start + width);
  start = Math.max(0, end - width);
  const prefix = start > 0 ? "…" : "";
  const shift = prefix.length - start;
  return {
    text: prefix + text0.slice(start, end) + (end < text0.length ? "…" : ""),
    highlights: all.filter(([s, e]) => s >= start && e <= end).map(([s, e]) => [s + shift, e + shift]),
  };
}

test("a long text's snippet is the whole text's, wherever its matches are", () => {
  const rand = seededRandom(23);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const filler = ["lorem", "ipsum", "the", "über", "naïve", "Москва", "x86", "数据库", "—", "it's", "42", "a.b"];
  const matching = ["deploy", "Deployed", "redeploying", "dépôt", "deploy's", "k8s", "日志"];
  const gaps = [" ", "\n", "\t", "  ", "\u3000"];
  const queries = ["deploy", "deploy server", "depot", "k8s deploy", "日志", "the", "deploy über", "k8s über"];
  const wrong: string[] = [];
  let fromStart = 0;
  for (let i = 0; i < 300; i++) {
    const chars = 9_000 + Math.floor(rand() * 9_000);
    // Where the matches are: one early, one where the start read is cut (4,096 characters on), one late, a fifth of
    // the words, most of them, `k8s` in every other word past the start (past findMatches' caps), or none.
    const place = i % 7;
    const at = [40, 3_950 + Math.floor(rand() * 200), chars - 60][place];
    let text = "";
    while (text.length < chars) {
      const here = at !== undefined && text.length >= at && text.length - at < 20 && !text.includes("\u0001");
      const dense = [0, 0, 0, 0.2, 0.8, 0, 0][place]!;
      let word = pick(filler);
      if (here) word = `${pick(matching)}\u0001`;
      else if (rand() < dense) word = pick(matching);
      else if (place === 5 && text.length > 4_500 && rand() < 0.5) word = "k8s";
      text += word + pick(gaps);
    }
    text = text.replace("\u0001", "");
    for (const query of queries) {
      const got = makeSnippet(text, queryTerms(query));
      const want = wholeSnippet(text, query);
      if (JSON.stringify(got) !== JSON.stringify(want)) wrong.push(`${query} (place ${place}, ${text.length} chars)`);
      if (got.highlights.length > 0 && place === 0) fromStart++;
    }
  }
  expect(wrong.slice(0, 5)).toEqual([]);
  expect(fromStart).toBeGreaterThan(50);
  // About 3 s on a quiet machine (every whole text is also read the slow way): room for a loaded one.
}, 60_000);

test("a text's snippet, short or long, has each whitespace character made a space, the matches as the whole text's", () => {
  const rand = seededRandom(29);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const words = ["deploy", "Deployed", "über", "k8s", "日志", "it's", "42", "x"];
  // Every whitespace character a regular expression's \s matches, beside words that match and words that do not.
  const gaps = [" ", "\n", "\t", "\r\n", "\u00a0", "\u1680", "\u2003", "\u2028", "\u202f", "\u3000", "\ufeff", "\v"];
  const wrong: string[] = [];
  for (let i = 0; i < 2_000; i++) {
    let text = "";
    const chars = i % 2 === 0 ? 20 + Math.floor(rand() * 150) : 200 + Math.floor(rand() * 800);
    while (text.length < chars) text += pick(words) + pick(gaps);
    for (const query of ["deploy", "k8s", "日志", "über x"]) {
      const got = makeSnippet(text, queryTerms(query));
      if (JSON.stringify(got) !== JSON.stringify(wholeSnippet(text, query)))
        wrong.push(`${query} in ${JSON.stringify(text)}`);
      if (/\s/.test(got.text.replaceAll(" ", ""))) wrong.push(`whitespace left: ${JSON.stringify(got.text)}`);
    }
  }
  expect(wrong.slice(0, 5)).toEqual([]);
});
