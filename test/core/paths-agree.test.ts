// Keyword search picks among ways to read by measure (cost models, tier sizes, shares): whichever it picks,
// the page is the same. Seeded queries of common, rare and cut-off words, other scripts, symbols and CJK, on
// a home with nothing archived and on one with most rows archived (some rows longer than ranking reads), with
// each measure forced both ways.
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openMemory } from "../../src/app/open-memory.ts";
import { CJK_FIRST } from "../../src/search/cjk-first.ts";
import { FLOOR_WINDOW, PHRASE_LOOKUP } from "../../src/search/keyword.ts";
import { RARER_FIRST } from "../../src/storage/sqlite/and-by-rarer-terms.ts";
import { RECENT_TEXT_CAP } from "../../src/storage/sqlite/recent-text-cache.ts";
import { CHECKED_WALK, REFINED_WALK, SCANNED_TIER, SMALL_TABLE } from "../../src/storage/sqlite/substring-queries.ts";
import { removeTempHomes, tempHome } from "../fixture/home.ts";
import { seededRandom } from "../fixture/seeded-random.ts";

afterAll(removeTempHomes);

const NOW = 1_790_000_000_000_000_000n;
const ROWS = 6_000;
const COMMON = ["widget", "server", "deploy", "error"];
const WORDS = (
  "rollback incident payment refund kubernetes cluster backup restore timeout retry queue worker camera " +
  "painting garden concert recipe marathon violin library museum harbor festival lantern compass"
).split(" ");
const ODD = [
  "İstanbul",
  "ISTANBUL",
  "straße",
  "5\u212A",
  "ﬁle",
  "ＡＢＣ",
  "café",
  "cafe\u0301",
  "naïve",
  "Ελληνικά",
  "ελληνικα",
  "ёлка",
  "елка",
  "हिन्दी",
  "مرحبا",
  "안녕하세요",
  "東京で会議",
  "東京 会議",
  "数据库备份",
  "ログを確認",
  "库存",
  "東京",
  "会議",
  "ログ",
  "数据",
  "🚀 deploy",
  "don't",
  "O'Reilly",
  "e-mail",
  "x86_64",
  "foo_bar",
  "v1.2.3",
  "https://example.com/a?q=1",
  "/usr/local/bin",
  "ERROR: connection refused (ECONNREFUSED)",
  "TypeError: Cannot read properties of undefined",
  "100%",
  "a_b_c",
  "self-hosted",
  "redeploy",
  "deployment",
  "deployed",
  "servers",
  "server's",
];
const SESSIONS = ["s0", "s1", "s2", "s3", "s4", "s5"];

/** A word found only past the start of long rows, which ranking reads (ranked-text.ts). */
const TAIL = "tailmark";

/**
 * An agent's tool output: longer than ranking reads, with oddities on either side of where that ends (İ, which
 * lower-cases into two characters; a character outside the BMP; a capital sigma) and words past it.
 */
function longText(rnd: () => number): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const parts: string[] = [];
  let length = 0;
  const target = 3_950 + Math.floor(rnd() * 1_200);
  while (length < target) {
    const w = rnd() < 0.05 ? pick(["İstanbul", "🚀", "ΣΟΦΙΑ", "東京"]) : pick(rnd() < 0.8 ? WORDS : ODD);
    parts.push(w);
    length += w.length + 1;
  }
  parts.push(TAIL, pick(WORDS), pick(ODD), "ΣΣ");
  return parts.join(rnd() < 0.5 ? " " : "\n");
}

/** Texts where some words are in most rows, some in few, with real-world oddities mixed in, a few long. */
function texts(): { session: string; content: string }[] {
  const rnd = seededRandom(17);
  const long = seededRandom(41);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  return Array.from({ length: ROWS }, () => {
    if (long() < 0.01) return { session: pick(SESSIONS), content: longText(rnd) };
    const words = Array.from({ length: 3 + Math.floor(rnd() * 8) }, () => pick(rnd() < 0.85 ? WORDS : ODD));
    if (rnd() < 0.6) words.push("widget");
    if (rnd() < 0.55) words.unshift("server");
    if (rnd() < 0.12) words.push("deploy");
    if (rnd() < 0.3) words.push(`w${Math.floor(rnd() * 400)}`);
    return { session: pick(SESSIONS), content: words.join(rnd() < 0.9 ? " " : ", ") };
  });
}

function buildHome(maxHistoryBytes?: number): string {
  const home = tempHome();
  if (maxHistoryBytes !== undefined)
    writeFileSync(join(home, "config.toml"), `[limits]\nmax_history_bytes = ${maxHistoryBytes}\n`);
  const api = openMemory({ home, env: {}, now: () => NOW, drain: "off" });
  try {
    const all = texts();
    for (let at = 0; at < all.length; at += 500) {
      const bySession = new Map<string, { role: "user" | "assistant"; content: string; sendAt: bigint }[]>();
      all.slice(at, at + 500).forEach((m, i) => {
        const list = bySession.get(m.session) ?? [];
        const role = (at + i) % 3 === 0 ? "assistant" : "user";
        list.push({ role, content: m.content, sendAt: NOW - BigInt(ROWS - at - i) * 60_000_000_000n });
        bySession.set(m.session, list);
      });
      for (const [session, list] of bySession) api.add(session, list);
    }
  } finally {
    api.close();
  }
  return home;
}

interface Ask {
  query: string;
  limit: number;
  session?: string;
  range?: "7d" | "30d" | "1y";
  since?: string;
  role?: "user" | "assistant";
  order?: "newest";
  typing?: boolean;
}

function asks(): Ask[] {
  const rnd = seededRandom(29);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const word = () => {
    const r = rnd();
    if (r < 0.3) return pick(COMMON);
    if (r < 0.5) return pick(ODD);
    if (r < 0.6) return rnd() < 0.1 ? TAIL : `w${Math.floor(rnd() * 400)}`;
    const w = pick(WORDS);
    return r < 0.9 ? w : w.slice(0, 2 + Math.floor(rnd() * (w.length - 2)));
  };
  return Array.from({ length: 160 }, () => ({
    query: Array.from({ length: 1 + Math.floor(rnd() * 4) }, word).join(" "),
    limit: pick([1, 10, 10, 40]),
    session: rnd() < 0.25 ? pick(SESSIONS) : undefined,
    range: pick([undefined, undefined, "7d", "1y"] as const),
    since: rnd() < 0.15 ? pick(["3d", "30d"]) : undefined,
    role: rnd() < 0.15 ? pick(["user", "assistant"] as const) : undefined,
    order: rnd() < 0.1 ? ("newest" as const) : undefined,
    typing: rnd() < 0.15 ? true : undefined,
  }));
}

/** Each way of reading forced, as `set` leaves it (the test puts every measure back after each). */
const FORCED: { name: string; set: () => void }[] = [
  {
    name: "no shortcut",
    set: () => {
      FLOOR_WINDOW.matchesFirst = false;
      CJK_FIRST.on = false;
      RARER_FIRST.on = false;
    },
  },
  {
    name: "shortcuts wherever they apply",
    set: () => {
      CJK_FIRST.smallTier = 0;
      RARER_FIRST.cost.entry = 100;
      // Else the recent text held in memory answers first.
      Object.assign(RECENT_TEXT_CAP, { rows: 0, chars: 0 });
    },
  },
  { name: "every tier scanned", set: () => void (SCANNED_TIER.rows = 1e9) },
  { name: "no tier scanned", set: () => void (SCANNED_TIER.rows = 0) },
  { name: "candidates checked in JS", set: () => void (CHECKED_WALK.share = 0) },
  { name: "candidates checked in SQL", set: () => void (CHECKED_WALK.share = 2) },
  {
    name: "walks refined early",
    set: () => Object.assign(REFINED_WALK, { candidates: 100, stretch: 50, measure: 1e9 }),
  },
  { name: "walks never refined", set: () => Object.assign(REFINED_WALK, { candidates: 1e9, measure: 0 }) },
  { name: "every table small", set: () => void (SMALL_TABLE.rows = 1e9) },
  { name: "no table small", set: () => void (SMALL_TABLE.rows = 0) },
  { name: "no recent text held", set: () => Object.assign(RECENT_TEXT_CAP, { rows: 0, chars: 0 }) },
  { name: "phrases counted in text", set: () => void (PHRASE_LOOKUP.perRow = 0) },
  { name: "phrases looked up", set: () => void (PHRASE_LOOKUP.perRow = 1e9) },
];

const snapshot = () =>
  structuredClone({
    FLOOR_WINDOW,
    CJK_FIRST,
    RARER_FIRST,
    SCANNED_TIER,
    CHECKED_WALK,
    REFINED_WALK,
    SMALL_TABLE,
    RECENT_TEXT_CAP,
    PHRASE_LOOKUP,
  });

/** Every ask's page (ids, scores, tiers, snippets) on a freshly opened home, so no cache outlives a setting. */
async function pages(home: string): Promise<string[]> {
  const api = openMemory({ home, env: {}, now: () => NOW, drain: "off" });
  try {
    const out: string[] = [];
    for (const a of asks()) {
      const r = await api.search(a);
      out.push(
        `${JSON.stringify(a)} ${r.hits.map((h) => `${h.message.id}:${h.score.toFixed(9)}:${h.source}:${h.snippet}`).join("|")}`,
      );
    }
    return out;
  } finally {
    api.close();
  }
}

describe("keyword search's ways of reading", () => {
  for (const [name, maxHistoryBytes] of [
    ["nothing archived", undefined],
    ["most rows archived", 4096],
  ] as const)
    test(`give the same pages, ${name}`, async () => {
      const home = buildHome(maxHistoryBytes);
      const base = await pages(home);
      expect(base.filter((p) => p.includes(":recent:") || p.includes(":archive:")).length).toBeGreaterThan(100);
      const kept = snapshot();
      for (const f of FORCED) {
        f.set();
        try {
          const forced = await pages(home);
          const differing = forced.filter((p, i) => p !== base[i]).slice(0, 3);
          expect({ forced: f.name, differing }).toEqual({ forced: f.name, differing: [] });
        } finally {
          Object.assign(FLOOR_WINDOW, kept.FLOOR_WINDOW);
          Object.assign(CJK_FIRST, kept.CJK_FIRST);
          Object.assign(RARER_FIRST, kept.RARER_FIRST);
          RARER_FIRST.cost = { ...kept.RARER_FIRST.cost };
          Object.assign(SCANNED_TIER, kept.SCANNED_TIER);
          Object.assign(CHECKED_WALK, kept.CHECKED_WALK);
          Object.assign(REFINED_WALK, kept.REFINED_WALK);
          Object.assign(SMALL_TABLE, kept.SMALL_TABLE);
          Object.assign(RECENT_TEXT_CAP, kept.RECENT_TEXT_CAP);
          Object.assign(PHRASE_LOOKUP, kept.PHRASE_LOOKUP);
        }
      }
    }, 120_000);
});
