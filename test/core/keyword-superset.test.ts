import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openTemp, removeTempHomes } from "../fixture/home.ts";
import { SMALL_TABLE } from "../../src/storage/sqlite/substring-queries.ts";
import { newestOfWindow, ONE_TERM_WINDOW, windowTexts } from "../../src/storage/sqlite/keyword-queries.ts";
import { openDatabase } from "../../src/storage/sqlite/open-database.ts";
import { seededRandom } from "../fixture/seeded-random.ts";

afterAll(removeTempHomes);

const NOW = 1_790_000_000_000_000_000n;
const WORDS = [
  "deploy",
  "redeploying",
  "Deployment",
  "deploys",
  "undeployable",
  "server",
  "servers",
  "observer",
  "log",
  "catalog",
  "blog",
  "login",
  "dialogue",
  "ÄRGERLICH",
  "ärger",
  "東京都",
  "a&&b",
  "x->y",
  // Compatibility forms (full-width, half-width, a ligature): stored and indexed as written.
  "ＡＰＩキー",
  "ｶﾀｶﾅ",
  "ﬁnance",
  "Ｄｅｐｌｏｙ",
  // Apostrophes inside words, and quotes.
  "don't",
  "rock'n'roll",
  "O'Brien",
  "“quoted”",
  // Capitals the substring index folds unlike the runtime's lower case (trigram-fold.ts).
  "İstanbul",
  "x?İσ",
  // Capitals JS lower-cases into ASCII letters, which LIKE does not fold them to: İ (i̇) and the Kelvin sign (k).
  "SPİNE",
  "\u212aELVIN",
  "ᏣᎳᎩ",
  "ꞫꞬ",
];

/** Both ways the substring index is walked: a small table on all trigrams, a large one on the rarest few. */
const TABLE_SIZES = [
  ["a small index table", SMALL_TABLE.rows],
  ["a large index table", 0],
] as const;

/** Run `check` with the substring index walked as a table of `small` rows at most is. */
async function withTableSize(small: number, check: () => Promise<void>): Promise<void> {
  const rows = SMALL_TABLE.rows;
  SMALL_TABLE.rows = small;
  try {
    await check();
  } finally {
    SMALL_TABLE.rows = rows;
  }
}

describe("keyword search over recent rows", () => {
  test.each(TABLE_SIZES)(
    "finds every message that holds the query as a case-insensitive substring (a superset of those), ranked or not, with or without typing: %s",
    (_, small) => withTableSize(small, supersetOfSubstrings),
  );
});

/** `n` messages of six random words each (joined by two spaces a fifth of the time with `doubled`). */
function randomMessages(rnd: () => number, words: readonly string[], n: number, doubled = false): string[] {
  return Array.from(
    { length: n },
    (_, i) =>
      `m${i} ` +
      Array.from({ length: 6 }, () => words[Math.floor(rnd() * words.length)]).join(
        doubled && rnd() >= 0.8 ? "  " : " ",
      ),
  );
}

/** Every recent message holding a query as a substring is a hit, across sessions and in one, typing or not. */
async function supersetOfSubstrings(): Promise<void> {
  const { api } = openTemp({ now: () => NOW });
  try {
    const contents = randomMessages(seededRandom(7), WORDS, 300);
    api.add(
      "s",
      contents.map((content, i) => ({
        role: "user" as const,
        content,
        sendAt: NOW - BigInt(300 - i) * 1_000_000_000n,
      })),
    );
    // Across sessions the substring index answers (short needles too); in one session, the scan.
    for (const q of [
      "deploy",
      "server",
      "log",
      "DEPLOY server",
      "observ",
      "ploy",
      "ärger",
      "東京",
      "og",
      "g",
      "rgerl",
      "ＡＰＩ",
      "ｶﾀ",
      "ﬁna",
      "ｄｅｐ",
      "don't",
      "n't",
      "rock'n",
      "rock'n'roll",
      "O'Bri",
      "“",
      "İst",
      "?İ",
      "kelv",
      "spi",
      "i",
      "ᏣᎳ",
      "ꮳꮃ",
      "ɜɡ",
    ]) {
      const needles = q.toLowerCase().split(" ");
      const expected = contents.filter((c) => needles.every((n) => c.toLowerCase().includes(n)));
      for (const typing of [false, true]) {
        const got = new Set((await api.search({ query: q, limit: 1000, typing })).hits.map((h) => h.message.content));
        expect(expected.filter((c) => !got.has(c))).toEqual([]);
        for (const session of ["s"]) {
          const inSession = new Set(
            (await api.search({ query: q, session, limit: 1000, typing })).hits.map((h) => h.message.content),
          );
          expect(expected.filter((c) => !inSession.has(c))).toEqual([]);
        }
      }
    }
  } finally {
    api.close();
  }
}

describe("random pieces of the messages themselves as queries", () => {
  test.each(TABLE_SIZES)(
    "every recent message holding the piece is a hit, across sessions and in one, typing or not: %s",
    (_, small) => withTableSize(small, randomPieces),
  );
});

/** Words of real messages: punctuation, emoji, scripts, widths, apostrophes, paths and operators. */
const MIXED = [
  ...WORDS,
  "It's",
  "👍",
  "🎉🎉",
  "e-mail",
  "C#",
  "node.js",
  "naïve",
  "x\u00a0y",
  "3.14",
  "50%",
  "$HOME",
  "ß",
  "STRASSE",
  "ΣΟΦΙΑ",
  "‘single’",
  "…",
  "(paren)",
  "[1]",
  "@user",
  "~/.ssh",
  "C:\\Users",
  "http://x.io/a?b=c",
  "x86_64",
  "서버",
  "server,",
  "log.",
  "c > d",
  "#123",
];

async function randomPieces(): Promise<void> {
  const { api } = openTemp({ now: () => NOW });
  try {
    const rnd = seededRandom(2);
    const contents = randomMessages(rnd, MIXED, 200, true);
    for (const [s, part] of [
      ["s", contents.slice(0, 100)],
      ["t", contents.slice(100)],
    ] as const)
      api.add(
        s,
        part.map((content, i) => ({ role: "user" as const, content, sendAt: NOW - BigInt(200 - i) * 1_000_000_000n })),
      );
    const missed: string[] = [];
    for (let k = 0; k < 120; k++) {
      // A run of 1 to 20 characters (whole code points) of a message, as a person might copy it.
      const chars = Array.from(contents[Math.floor(rnd() * contents.length)]!);
      const at = Math.floor(rnd() * chars.length);
      const q = chars.slice(at, at + 1 + Math.floor(rnd() * 20)).join("");
      if (!q.trim()) continue;
      const holding = (c: string) => c.toLowerCase().includes(q.toLowerCase());
      for (const session of [undefined, "s"]) {
        const expected = contents.filter((c, i) => holding(c) && (session === undefined || i < 100));
        for (const typing of [false, true]) {
          const got = new Set(
            (await api.search({ query: q, session, limit: 1000, typing })).hits.map((h) => h.message.content),
          );
          if (expected.some((c) => !got.has(c)))
            missed.push(`${JSON.stringify(q)} in ${session ?? "all"}, typing ${typing}`);
        }
      }
    }
    expect(missed).toEqual([]);
  } finally {
    api.close();
  }
}

describe("recent rows beside archived ones", () => {
  test("every recent message holding the query as a substring is a hit, through the recent tier's own substring table", async () => {
    const { api, home } = openTemp({ now: () => NOW, env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" } });
    try {
      const rnd = seededRandom(3);
      const text = (i: number) =>
        `m${i} ` + Array.from({ length: 5 }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(" ");
      // Three sessions of turns (user, then assistant): each one's oldest turns are archived by compaction.
      for (const s of ["a", "b", "c"])
        api.add(
          s,
          Array.from({ length: 120 }, (_, i) => ({
            role: i % 2 === 0 ? ("user" as const) : ("assistant" as const),
            content: text(i),
            sendAt: NOW - BigInt(500 - i) * 1_000_000_000n,
          })),
        );
      const held = (s: string) =>
        (JSON.parse(readFileSync(join(home, "sessions", s, "history.json"), "utf8")) as { content: string }[]).map(
          (m) => m.content,
        );
      const recent = ["a", "b", "c"].flatMap(held);
      expect(recent.length).toBeLessThan(120);
      for (const q of [
        "ploy",
        "bserv",
        "DEPLOYMENT",
        "og",
        "g",
        "rgerl",
        "ärger",
        "東京",
        "server deploy",
        "ＡＰＩ",
        "ｶﾀ",
        "ﬁna",
      ]) {
        const needles = q.toLowerCase().split(" ");
        const expected = recent.filter((c) => needles.every((n) => c.toLowerCase().includes(n)));
        const got = new Set(
          (await api.search({ query: q, limit: 1000 })).hits
            .filter((h) => h.source === "recent")
            .map((h) => h.message.content),
        );
        expect({ q, missing: expected.filter((c) => !got.has(c)) }).toEqual({ q, missing: [] });
      }
    } finally {
      api.close();
    }
  });
});

describe("the word being typed", () => {
  test("matches as a prefix in the archive only when the caller says a person is typing", async () => {
    const { api } = openTemp({ now: () => NOW, env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" } });
    try {
      const pad = " filler".repeat(40);
      api.add("a", { role: "user", content: "we deployed the kubernetes cluster" + pad, sendAt: NOW - 1000n });
      for (let i = 0; i < 40; i++)
        api.add("a", { role: "assistant", content: `later message ${i}` + pad, sendAt: NOW - 900n + BigInt(i) });
      const archived = (r: { hits: { source: string; message: { content: string } }[] }) =>
        r.hits.filter((h) => h.source === "archive").map((h) => h.message.content.slice(0, 11));
      expect(archived(await api.search({ query: "clust" }))).toEqual([]);
      expect(archived(await api.search({ query: "clust", typing: true }))).toEqual(["we deployed"]);
      expect(archived(await api.search({ query: "clust ", typing: true }))).toEqual([]); // a space ends the word
      expect(archived(await api.search({ query: "cluster" }))).toEqual(["we deployed"]);
    } finally {
      api.close();
    }
  });
});

describe("CJK needles found through the word index", () => {
  const CJK = ["東京都", "会議室", "データベース", "ログ", "数据库", "サーバー", "カ・タ", "한국어", "库存"];
  test("recent matches are the newest recent rows holding every needle, past archived rows that hold them too", async () => {
    for (const maxBytes of ["4096", undefined]) {
      const { api, home } = openTemp({
        now: () => NOW,
        env: maxBytes ? { MEMVOY_LIMITS_MAX_HISTORY_BYTES: maxBytes } : {},
      });
      try {
        const rnd = seededRandom(11);
        const text = (i: number) =>
          `m${i} ` + Array.from({ length: 4 }, () => CJK[Math.floor(rnd() * CJK.length)]).join("");
        // Session a is long (most of it archived under the small limit) and newer than b's few messages.
        const b = Array.from({ length: 12 }, (_, i) => text(i));
        const a = Array.from({ length: 400 }, (_, i) => text(100 + i));
        api.add(
          "b",
          b.map((content, i) => ({ role: "user" as const, content, sendAt: NOW - 10_000_000_000_000n + BigInt(i) })),
        );
        api.add(
          "a",
          a.map((content, i) => ({ role: "user" as const, content, sendAt: NOW - 1_000_000_000_000n + BigInt(i) })),
        );
        // The recent tier: what history.json holds.
        const held = (s: string) =>
          (JSON.parse(readFileSync(join(home, "sessions", s, "history.json"), "utf8")) as { content: string }[]).map(
            (m) => m.content,
          );
        const recent = new Set([...held("a"), ...held("b")]);
        expect(maxBytes ? recent.size < 60 : recent.size === 412).toBe(true);
        for (const q of [
          "東京",
          "京都会",
          "ログ",
          "库",
          "据库存",
          "サーバ",
          "ー",
          "カ・タ",
          "・",
          "한국",
          "東京 ログ",
        ]) {
          const needles = q.split(" ");
          const expected = [...recent].filter((c) => needles.every((n) => c.includes(n)));
          const got = (await api.search({ query: q, limit: 1000 })).hits;
          const gotRecent = new Set(got.filter((h) => h.source === "recent").map((h) => h.message.content));
          expect({ q, maxBytes, missing: expected.filter((c) => !gotRecent.has(c)) }).toEqual({
            q,
            maxBytes,
            missing: [],
          });
          // One needle: the default page's recent hits are rows holding it (any term would do for several).
          if (needles.length > 1) continue;
          const page = (await api.search({ query: q })).hits.filter((h) => h.source === "recent");
          expect(page.every((h) => h.message.content.includes(q))).toBe(true);
          expect({ q, maxBytes, n: page.length }).toEqual({ q, maxBytes, n: Math.min(10, expected.length) });
        }
      } finally {
        api.close();
      }
    }
  });
});

describe("a one-term query's recent window read once", () => {
  test("its newest rows are the rows the substring pass would read for itself, in any home and filter", () => {
    // A small home (its window read oldest first) and one larger than the window, nothing archived.
    for (const n of [300, ONE_TERM_WINDOW + 400]) {
      const { api } = openTemp({ now: () => NOW });
      const db = openDatabase(api.paths.db);
      try {
        api.add(
          "a",
          Array.from({ length: n }, (_, i) => ({
            role: i % 2 ? ("assistant" as const) : ("user" as const),
            content: `${i % 3 ? "库存" : "数据"} ${i}`,
            sendAt: NOW - BigInt(n - i) * 1_000_000_000n,
            ...(i % 4 === 0 ? { sender: "ann" } : {}),
          })),
        );
        for (const filter of [{}, { role: "user" as const }, { sender: "ann" }, { since: NOW - 200_000_000_000n }])
          for (const [match, size] of [
            ['"库存"', 50],
            ['"数据"', 50],
            ['"库存"', 150],
          ] as const) {
            const f = { ...filter, recent: true };
            const window = windowTexts(db, match, ONE_TERM_WINDOW, f);
            const own = windowTexts(db, match, size, { ...f, passing: true });
            const derived = newestOfWindow(window, size);
            if (window.length < size) expect(derived).toBeUndefined();
            else expect({ n, filter, match, rows: derived }).toEqual({ n, filter, match, rows: own });
          }
      } finally {
        db.close();
        api.close();
      }
    }
  });
});
