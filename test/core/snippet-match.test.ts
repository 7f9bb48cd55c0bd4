import { describe, expect, test } from "bun:test";
import { queryTerms } from "../../src/search/query-terms.ts";
import { findMatches, hasMatch, makeSnippet, wideWords } from "../../src/search/snippet.ts";
import { CJK_RUN, stemWord } from "../../src/shared/search-form.ts";

const CJK = CJK_RUN.source.replace(/\+$/, "");

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
  // Letters beyond ASCII beside ASCII words: ones whose lower case is (or holds) an ASCII letter too.
  "Ä",
  "İ",
  "\u212a",
  "ß",
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
const QUERIES = ["deploy", "deploying", "2024", "erro", "error", "run", "k8s", "5k", "数据", "running deploy", "the"];

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

/** findMatches as a regex over words states it (the reference the char-by-char scan must agree with). */
function regexMatches(content: string, q: string): [number, number][] {
  const terms = queryTerms(q);
  const use = terms.some((t) => !t.stop) ? terms.filter((t) => !t.stop) : terms;
  const latin = use.filter((t) => !t.cjk);
  const stems = new Set(latin.map((t) => stemWord(t.text)));
  const prefixes = latin.filter((t) => t.text.length >= 3).map((t) => t.text);
  const ranges: [number, number][] = [];
  if (latin.length > 0)
    for (const m of content.matchAll(/[A-Za-z][A-Za-z'’]*[A-Za-z]|[A-Za-z]|\d+/g)) {
      const w = m[0].toLowerCase();
      if (stems.has(stemWord(w)) || stems.has(w) || prefixes.some((p) => w.startsWith(p)))
        ranges.push([m.index!, m.index! + m[0].length]);
    }
  // A term of letters and digits together: where it starts a token (no letter, digit or mark before it), whole
  // or, with 3+ characters, as the token's start; the range runs to the token's last ASCII letter or digit.
  const asciiLower = content.replace(/[A-Z]/g, (c) => c.toLowerCase());
  for (const t of latin.filter((x) => /[0-9]/.test(x.text) && /[a-z]/.test(x.text) && /^[a-z0-9]+$/.test(x.text)))
    for (const m of asciiLower.matchAll(
      new RegExp(
        `(?<![\\p{L}\\p{N}\\p{M}])${t.text}${t.text.length >= 3 ? "" : "(?![\\p{L}\\p{N}\\p{M}])"}[a-z0-9]*`,
        "gu",
      ),
    ))
      ranges.push([m.index!, m.index! + m[0].length]);
  // Words with a character beyond ASCII: the term folded (case, accents, widths), whole or as the start.
  if (latin.length > 0)
    for (const m of content.matchAll(
      new RegExp(
        `(?:(?!${CJK})[\\p{L}\\p{N}\\p{M}])*(?:(?![\\x00-\\x7f]|${CJK})[\\p{L}\\p{N}\\p{M}])(?:(?!${CJK})[\\p{L}\\p{N}\\p{M}])*`,
        "gu",
      ),
    )) {
      const fold = (x: string) => x.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
      const w = fold(m[0]);
      if (
        latin.some(
          (t) => w === fold(t.needle ?? t.text) || (t.text.length >= 3 && w.startsWith(fold(t.needle ?? t.text))),
        )
      )
        ranges.push([m.index!, m.index! + m[0].length]);
    }
  // CJK has no case: found in the text itself (its lower case may be longer: İ).
  for (const t of use.filter((x) => x.cjk))
    for (let at = content.indexOf(t.text); at >= 0; at = content.indexOf(t.text, at + t.text.length))
      ranges.push([at, at + t.text.length]);
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const prev = merged[merged.length - 1];
    if (prev && r[0] <= prev[1]) prev[1] = Math.max(prev[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged;
}

describe("findMatches", () => {
  test("words beyond ASCII are matched with case, accents and widths folded", () => {
    const words = (content: string, q: string) =>
      findMatches(content, queryTerms(q)).map(([from, to]) => content.slice(from, to));
    expect(words("Das ist über alles", "Über")).toEqual(["über"]);
    expect(words("Я живу в Москве, Москва", "москва")).toEqual(["Москва"]);
    expect(words("a naïve plan", "naive")).toEqual(["naïve"]);
    expect(words("η σοφία", "ΣΟΦΙΑ")).toEqual(["σοφία"]);
    expect(words("ＡＰＩキーを更新", "ＡＰＩ")).toEqual(["ＡＰＩ"]);
    expect(words("the Müllers came", "müller")).toEqual(["Müllers"]);
    expect(words("ein Bär", "bä")).toEqual([]);
  });

  test("letters and digits together are one word, as the index reads them", () => {
    const words = (content: string, q: string) =>
      findMatches(content, queryTerms(q)).map(([from, to]) => content.slice(from, to));
    expect(words("a K8S cluster on ec2-hosts", "k8s ec2")).toEqual(["K8S", "ec2"]);
    expect(words("ran 5k, then 15k and a 5kg bag", "5K")).toEqual(["5k"]);
    expect(words("build for x86_64, v1.2.3, with 2FA", "x86 v1 2fa")).toEqual(["x86", "v1", "2FA"]);
    expect(words("ipv6only", "ipv6")).toEqual(["ipv6only"]);
    expect(hasMatch("took 10ms.", queryTerms("10ms"))).toBe(true);
  });

  test("an identifier joined by underscores is shown and marked where the text holds it", () => {
    const words = (content: string, q: string) =>
      findMatches(content, queryTerms(q)).map(([from, to]) => content.slice(from, to));
    expect(words('relation "users_2024" does not exist', "users_2024")).toEqual(["users_2024"]);
    expect(words("then read_config() saw no DATABASE_URL", "DATABASE_URL read_config")).toEqual([
      "read_config",
      "DATABASE_URL",
    ]);
    expect(hasMatch("export NODE_ENV=production", queryTerms("node_env"))).toBe(true);
    // An archived hit of a long text: its snippet is the part holding the identifier, marked.
    const long = `${"the build step ran fine and printed nothing of interest ".repeat(8)}then DATABASE_URL was unset`;
    const s = makeSnippet(long, queryTerms("DATABASE_URL"));
    expect(s.highlights.map(([from, to]) => s.text.slice(from, to))).toEqual(["DATABASE_URL"]);
  });

  test("finds the words a regex over letters, apostrophes and digits finds, on generated text", () => {
    const next = rng(11);
    for (let i = 0; i < 4000; i++) {
      let text = "";
      const n = 1 + Math.floor(next() * 8);
      for (let k = 0; k < n; k++) text += PIECES[Math.floor(next() * PIECES.length)]!;
      for (const q of [...QUERIES, "o", "x2024", "ing"]) {
        expect({ text, q, ranges: findMatches(text, queryTerms(q)) }).toEqual({
          text,
          q,
          ranges: regexMatches(text, q),
        });
      }
    }
  });
});

describe("wideWords", () => {
  /** What wideWords gave before it searched for characters beyond ASCII: every run of letters, digits and marks. */
  function* runsBeyondAscii(text: string): Generator<[number, string]> {
    const ascii = (s: string) => !/[^\x00-\x7f]/.test(s);
    const cjk = new RegExp(CJK_RUN.source, "gu");
    for (const m of text.matchAll(/[\p{L}\p{N}\p{M}]+/gu)) {
      const run = m[0];
      if (ascii(run)) continue;
      let from = 0;
      for (const c of run.matchAll(cjk)) {
        if (c.index > from && !ascii(run.slice(from, c.index))) yield [m.index + from, run.slice(from, c.index)];
        from = c.index + c[0].length;
      }
      if (from === 0) yield [m.index, run];
      else if (from < run.length && !ascii(run.slice(from))) yield [m.index + from, run.slice(from)];
    }
  }

  test("finds every run of letters, digits and marks beyond ASCII, on generated text", () => {
    // Letters beyond the BMP (surrogate pairs), lone surrogates, marks, CJK beside other scripts, emoji.
    const pieces = [
      "Москва",
      "é",
      "\u0301",
      "ab",
      "9",
      "𝐀",
      "𠀀",
      "😀",
      "\ud835",
      "\udc00",
      "数据",
      "ＡＰＩ",
      "'",
      " ",
      "-",
    ];
    const next = rng(5);
    let words = 0;
    for (let i = 0; i < 20_000; i++) {
      let text = "";
      for (let k = 1 + Math.floor(next() * 10); k > 0; k--) text += pieces[Math.floor(next() * pieces.length)]!;
      const found = [...wideWords(text)];
      words += found.length;
      expect({ text, found }).toEqual({ text, found: [...runsBeyondAscii(text)] });
    }
    expect(words).toBeGreaterThan(20_000);
  });
});

describe("makeSnippet never cuts a character in half", () => {
  test("a window edge inside an emoji's surrogate pair moves to the character's edge, highlights kept", () => {
    const terms = queryTerms("needle");
    const texts: string[] = [];
    for (let before = 1; before <= 4; before++)
      for (let after = 1; after <= 4; after++)
        texts.push(`${"😀".repeat(120)}${" ".repeat(before)}needle${" ".repeat(after)}${"🎉".repeat(120)}`);
    // The match at the very end: the window starts 160 characters before it.
    for (let pad = 0; pad <= 1; pad++) texts.push(`${"x".repeat(pad)}${"😀".repeat(150)} needle`);
    for (const text of texts) {
      const s = makeSnippet(text, terms);
      expect(s.text.isWellFormed()).toBe(true);
      expect(s.highlights).toHaveLength(1);
      const [a, b] = s.highlights[0]!;
      expect(s.text.slice(a, b)).toBe("needle");
    }
  });
});
