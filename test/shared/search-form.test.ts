// The indexed form of a text: Latin words stemmed exactly where the word pattern below finds them, so that an
// index written by an earlier version and a query formed now agree.
import { expect, test } from "bun:test";
import { CJK_RUN, cjkBigrams, searchForm, stemWord } from "../../src/shared/search-form.ts";
import { sessionStream } from "../../bench/lib/corpus.ts";

/** The words searchForm stems, as a regular expression: a letter, then letters and apostrophes, ending in a letter. */
const WORD = /[A-Za-z][A-Za-z'’]*[A-Za-z]|[A-Za-z]/g;
/** searchForm written with that expression: Latin words stemmed, then CJK runs as bigrams. */
const reference = (text: string) => {
  const stemmed = text.replace(WORD, stemWord);
  return stemmed.replace(new RegExp(CJK_RUN.source, "g"), (run) => ` ${cjkBigrams(run).join(" ")} `);
};

test("Latin words are stemmed where the word pattern finds them, whatever surrounds them", () => {
  const texts = [
    "",
    "a",
    "'",
    "''' ’’’",
    "It's the users’ cafés; don't rock'n'roll 'quoted' O'Neil's x' 'y a’’b",
    "ab''' ''c d'e'' 12abc3 x_y snake_case camelCaseWords HTTPRequests",
    "ÀLPHA beta Straße naïve deployment's résumé",
    "数据库 and LOGS, ログ on 東京 servers",
    "deploy-server/rollback.sh --force; kubectl get pods -n prod",
    `${"x".repeat(45)} ${"Word".repeat(12)} tail`,
    "The quick brown fox jumps over the lazy dog. THE QUICK BROWN FOX.",
    "emoji 🚀 launched, surrogate-adjacent𝒜letters and tabs\tnew\nlines",
  ];
  for (const t of texts) expect(searchForm(t)).toBe(reference(t));
});

test("the corpus's messages get the same form as the word pattern gives", () => {
  const next = sessionStream(3);
  for (let i = 0; i < 2_000; i++) {
    const t = next().content;
    expect(searchForm(t)).toBe(reference(t));
  }
});

test("the same word in any case maps to the one lower-case stem", () => {
  expect(searchForm("Deploying DEPLOYED deploys")).toBe("deploy deploy deploy");
  expect(searchForm("Deploying")).toBe("deploy");
});
