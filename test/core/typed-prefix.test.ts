import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openTemp, removeTempHomes } from "../fixture/home.ts";
import { seededRandom } from "../fixture/seeded-random.ts";
import { openDatabase } from "../../src/storage/sqlite/open-database.ts";
import { windowTexts } from "../../src/storage/sqlite/keyword-queries.ts";
import { ftsAllQuery, queryTerms } from "../../src/search/query-terms.ts";
import { newestTypedWindow } from "../../src/search/typed-prefix.ts";
import { indexTokens, indexTokensStarting } from "../../src/shared/index-tokens.ts";

afterAll(removeTempHomes);

const NOW = 1_790_000_000_000_000_000n;
// Forms whose index tokens begin otherwise than their text: stems, apostrophes, digits inside a word,
// diacritics, CJK next to Latin, ligatures and case changes past ASCII.
const WORDS = [
  "deploy",
  "Deployed",
  "DEPLOYMENT",
  "redeploy",
  "o'deploy",
  "deploy's",
  "'deploying",
  "dep2loy",
  "12'dep",
  "déploiement",
  "Dépôt",
  "数据deploy",
  "dying",
  "died",
  "happy",
  "happily",
  "café",
  "coöperate",
  "naïve",
  "ﬁle",
  "straße",
  "İstanbul",
  "server",
  "observer",
  "serial",
];
const TYPED = [
  "dep",
  "depl",
  "deploy",
  "deploym",
  "die",
  "dyi",
  "happi",
  "happ",
  "caf",
  "coo",
  "coop",
  "nai",
  "fil",
  "str",
  "ist",
  "ser",
  "server dep",
  "deploy ser",
  "the dep",
  "12d",
  // Typed with diacritics, capitals or an apostrophe: the prefix is folded as the index folds its words.
  "dép",
  "DÉPL",
  "Dépô",
  "naï",
  "coö",
  "o'dep",
  "server naï",
];

describe("a query typed with its last word unfinished, newest first", () => {
  test("the prefix spelled out as the words of the newest rows finds the same rows as FTS5's prefix", () => {
    const { api, home } = openTemp({ now: () => NOW });
    try {
      const rnd = seededRandom(11);
      for (const s of ["a", "b"])
        api.add(
          s,
          Array.from({ length: 300 }, (_, i) => ({
            role: "user" as const,
            content: `m${i} ` + Array.from({ length: 5 }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(" "),
            sendAt: NOW - BigInt(600 - i) * 1_000_000_000n,
          })),
        );
      const db = openDatabase(join(home, ".store", "history.db"), { readonly: true });
      let spelled = 0;
      try {
        for (const q of TYPED)
          for (const session of [undefined, "a"])
            for (const size of [5, 20]) {
              const terms = queryTerms(q, { typing: true });
              const got = newestTypedWindow(db, terms, { session }, size);
              if (!got) continue;
              spelled++;
              const newest = (rows: { seq: bigint }[]) =>
                rows
                  .map((r) => r.seq)
                  .sort((a, b) => (a < b ? 1 : -1))
                  .slice(0, size);
              const expected = newest(windowTexts(db, ftsAllQuery(terms)!, 1_000, { session }));
              expect({ q, session, size, rows: newest(got) }).toEqual({ q, session, size, rows: expected });
            }
      } finally {
        db.close();
      }
      // Most typed prefixes are common in these rows: the spelled-out path answered them.
      expect(spelled).toBeGreaterThan(TYPED.length);
    } finally {
      api.close();
    }
  });

  test("a prefix rare in the newest rows, a filter beyond the session, or no unfinished word is left to FTS5", () => {
    const { api, home } = openTemp({ now: () => NOW });
    try {
      api.add(
        "a",
        Array.from({ length: 200 }, (_, i) => ({
          role: "user" as const,
          content: i === 3 ? "a kubernetes cluster" : `routine note ${i}`,
          sendAt: NOW - BigInt(200 - i) * 1_000_000_000n,
        })),
      );
      const db = openDatabase(join(home, ".store", "history.db"), { readonly: true });
      try {
        const typed = queryTerms("kub", { typing: true });
        expect(newestTypedWindow(db, typed, {}, 10)).toBeUndefined();
        const common = queryTerms("rou", { typing: true });
        expect(newestTypedWindow(db, common, {}, 10)?.length).toBe(10);
        expect(newestTypedWindow(db, common, { since: NOW - 1_000_000_000_000n }, 10)).toBeUndefined();
        expect(newestTypedWindow(db, queryTerms("rou ", { typing: true }), {}, 10)).toBeUndefined();
        expect(newestTypedWindow(db, queryTerms("rou"), {}, 10)).toBeUndefined();
      } finally {
        db.close();
      }
    } finally {
      api.close();
    }
  });

  // unicode61 keeps the diacritics of Greek and Cyrillic letters (й, ё, έ): the prefix must not lose them.
  test("a Greek or Cyrillic word typed with diacritics finds the rows holding it, archived ones too", async () => {
    const { api } = openTemp({ env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" }, now: () => NOW, drain: "off" });
    try {
      // An older session, archived, whose rows are all read at once, newest first.
      api.add(
        "b",
        Array.from({ length: 30 }, (_, i) => ({
          role: "user" as const,
          content: `${i}: Действие и ёлка`,
          sendAt: NOW - BigInt(1_000 - i) * 1_000_000_000n,
        })),
      );
      const words = ["Действие", "ёлка", "καλημέρα", "Ελληνικά", "Müller"];
      api.add(
        "a",
        Array.from({ length: 300 }, (_, i) => ({
          role: "user" as const,
          content:
            i % 3 === 0 ? `note ${i}: ${words[(i / 3) % words.length]} today` : `routine line ${i} with filler words`,
          sendAt: NOW - BigInt(300 - i) * 1_000_000_000n,
        })),
      );
      for (const [typed, word] of [
        ["дейст", "Действие"],
        ["Дейст", "Действие"],
        ["ёлк", "ёлка"],
        ["καλημέ", "καλημέρα"],
        ["Ελληνικ", "Ελληνικά"],
        ["mül", "Müller"],
      ])
        for (const order of ["relevance", "newest"] as const) {
          const r = await api.search({ query: typed!, typing: true, order, limit: 100 });
          const held = r.hits.filter((h) => h.message.content.includes(word!));
          expect({ typed, order, held: held.length, archived: held.some((h) => h.source === "archive") }).toEqual({
            typed,
            order,
            held: word === "Действие" || word === "ёлка" ? 50 : 20,
            archived: true,
          });
        }
      for (const typed of ["дейст", "ёлк"]) {
        const r = await api.search({ query: typed, session: "b", typing: true, order: "newest", limit: 50 });
        expect({ typed, hits: r.hits.length }).toEqual({ typed, hits: 30 });
      }
    } finally {
      api.close();
    }
  });

  test("the index tokens a prefix begins, as the index splits and folds the text", () => {
    expect(indexTokensStarting("Deployed o'deploy 12'dep dep2loy redeploy", "dep")).toEqual([
      "deploy",
      "dep",
      "dep2loy",
    ]);
    expect(indexTokensStarting("Déploiement au dépôt, 数据deploy", "dep")).toEqual(["deploiement", "depot", "deploy"]);
    expect(indexTokensStarting("He was dying; they died", "die")).toEqual(["die", "die"]);
  });

  test("text beyond ASCII gives the tokens the whole text's index tokens begin with, whatever lies between its words", () => {
    // Σ's lower case depends on the letters around it past case-ignorable characters (U+FEFF and the apostrophe
    // are; no space is), marks compose, CJK runs split a word.
    const parts = [...WORDS, "ΟΔΟΣ", "Σ", "σας", "é", "\u0301", "数据", "—", "✓", "'", ".", "\ufeff", "ſ"];
    const gaps = [" ", "", "\ufeff", "\u00a0", "\u3000", "\n", "'", ".", "\u200b", "-"];
    const rand = seededRandom(17);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
    const ascii = WORDS.filter((w) => !/[^\x00-\x7f]/.test(w)).concat(["DEP", "12", "2dep", "e'dep", "'", "x"]);
    const wrong: string[] = [];
    for (let i = 0; i < 4_000; i++) {
      let text = "";
      // Every other text ASCII only (tokenized a run at a time).
      // Some texts of many pieces beyond ASCII (tokenized whole).
      for (let n = 1 + Math.floor(rand() * (i % 5 === 1 ? 80 : 10)); n > 0; n--)
        text += i % 2 === 0 ? pick(ascii) + pick([" ", "", "'", ".", "-", "\n"]) : pick(parts) + pick(gaps);
      for (const prefix of ["d", "dep", "ο", "σ", "ς", "e", "数", "s", "caf", "die", "happi", "12", "2"]) {
        const want = indexTokens(text).filter((t) => t.startsWith(prefix));
        if (JSON.stringify(indexTokensStarting(text, prefix)) !== JSON.stringify(want))
          wrong.push(`${JSON.stringify(prefix)} in ${JSON.stringify(text)}`);
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
  });
});
