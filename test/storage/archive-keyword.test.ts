// Keyword search through the archive port: the same data gives the same hit set on every backend
// (stems, CJK substrings of 1 and 2 characters, query syntax as plain text); order only where asserted.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ArchivePort, NewMessage, RecentScope } from "../../src/storage/ports/archive-port.ts";
import { queryTerms } from "../../src/search/query-terms.ts";
import { textQuery, textQueryAny } from "../../src/search/text-query.ts";
import { backends } from "./archive-backends.ts";

const NOW = 1_790_000_000_000_000_000n;
const DAY = 86_400_000_000_000n;

const CORPUS: [string, string][] = [
  ["alpha", "We deployed the payment service to production last night"],
  ["alpha", "The deployment finished; the rollback plan is ready"],
  ["alpha", "我們今天下午要部署新的數據庫服務器"],
  ["alpha", "今日の午後に新しいデータベースサーバーをデプロイします"],
  ["alpha", 'quoted "NEAR(x y)" AND -minus * (unbalanced'],
  ["alpha", "ok noted"],
  ["alpha", "recent: we must redeploy the Deployment controller"],
  ["alpha", "Sure, redeploying now"],
  ["alpha", "naïve café résumé with diacritics"],
  ["alpha", "state-of-the-art e-mail user@example.com v1.2.3 /usr/local/bin foo_bar"],
  ["alpha", "한국어 데이터베이스 서버를 배포합니다"],
  ["beta", "beta session talks about deploy keys"],
  ["beta", "服務 器 spaced characters"],
  ["beta", "servers observer catalog login dialogue logs"],
  ["beta", "It's the user's server, don't restart it"],
];

const QUERIES = [
  "deploy",
  "deployed",
  "DEPLOYING",
  "deployment rollback",
  "payment production",
  "庫",
  "器",
  "據庫",
  "數據",
  "データ",
  "デ",
  "ログ",
  "服務",
  "務器",
  "데이터",
  "서",
  "naive",
  "naïve",
  "café",
  "resume",
  "résumé",
  "state of the art",
  "e-mail",
  "example.com",
  "v1.2.3",
  "usr local",
  "foo_bar",
  "server",
  "log",
  "user's",
  "don't",
  '"NEAR(x y)"',
  "-minus",
  "(unbalanced",
  "AND",
  "*",
  "the",
];

for (const backend of backends()) {
  describe(`keyword hit sets: ${backend.name}`, () => {
    let a: ArchivePort;
    beforeAll(async () => {
      a = await backend.open();
      const bySession = new Map<string, NewMessage[]>();
      CORPUS.forEach(([session, content], i) => {
        const list = bySession.get(session) ?? [];
        list.push({
          id: `m${i}`,
          role: i % 2 ? "assistant" : "user",
          content,
          sendAt: NOW - BigInt(CORPUS.length - i) * DAY,
        });
        bySession.set(session, list);
      });
      for (const [session, list] of bySession) await a.appendMessages(session, list, { now: NOW });
    }, 180_000);
    afterAll(() => backend.cleanup());

    const hitSet = async (q: string, session?: string) => {
      const query = textQuery(q);
      if (!query) return [];
      return (await a.searchText(query, { session, limit: 1000 }))
        .map((h) => CORPUS[Number(h.message.id.slice(1))]![1])
        .sort();
    };
    const starts = (list: string[], prefix: string) => list.some((c) => c.startsWith(prefix));

    test("English stems", async () => {
      for (const q of ["deploy", "deployed", "deployment", "DEPLOYING"]) {
        const found = await hitSet(q, "alpha");
        expect(starts(found, "We deployed")).toBe(true);
        expect(starts(found, "The deployment finished")).toBe(true);
      }
      expect(await hitSet("deploy", "beta")).toEqual(["beta session talks about deploy keys"]);
    });

    test("CJK substrings of 1 and 2 characters; never two characters that are not adjacent", async () => {
      expect(starts(await hitSet("庫", "alpha"), "我們今天")).toBe(true);
      expect(starts(await hitSet("器", "alpha"), "我們今天")).toBe(true); // the last character of a run
      expect(starts(await hitSet("據庫", "alpha"), "我們今天")).toBe(true); // not a word boundary
      expect(starts(await hitSet("データ"), "今日の午後")).toBe(true);
      expect(starts(await hitSet("デ"), "今日の午後")).toBe(true);
      expect(await hitSet("ログ")).toEqual([]);
      expect(await hitSet("服務", "beta")).toEqual(["服務 器 spaced characters"]);
      expect(await hitSet("務器", "beta")).toEqual([]);
      expect(starts(await hitSet("데이터"), "한국어")).toBe(true);
      expect(starts(await hitSet("서"), "한국어")).toBe(true);
    });

    test("accented words find themselves; query syntax is plain text", async () => {
      expect(await hitSet("naïve")).toEqual(["naïve café résumé with diacritics"]);
      expect(await hitSet("résumé")).toEqual(["naïve café résumé with diacritics"]);
      expect(starts(await hitSet("-minus"), "quoted")).toBe(true);
      expect(starts(await hitSet("(unbalanced"), "quoted")).toBe(true);
      for (const q of QUERIES) expect(Array.isArray(await hitSet(q))).toBe(true);
    });

    test("any-term queries and ranking: a row holding every term ranks first", async () => {
      const any = textQueryAny(queryTerms("rollback payment production"))!;
      const hits = await a.searchText(any, { limit: 10 });
      expect(hits.map((h) => h.message.id).sort()).toEqual(["m0", "m1"]);
      expect(hits[0]!.message.id).toBe("m0"); // two of the three terms beat one
    });

    test("a long message of distinct words is found by its last word", async () => {
      // 40,000 distinct words (320 KB): PostgreSQL's tsvector holds them all, well under its 1 MB.
      /** The i-th word of zq + 6 letters. */
      const word = (i: number) =>
        `zq${Array.from({ length: 6 }, (_, k) => String.fromCharCode(97 + (Math.floor(i / 26 ** (5 - k)) % 26))).join("")}`;
      const words = Array.from({ length: 40_000 }, (_, i) => word(i));
      await a.appendMessages("long", [{ id: "long1", role: "user", content: words.join(" "), sendAt: NOW }], {
        now: NOW,
      });
      for (const w of [words[0]!, words[20_000]!, words[39_999]!]) {
        const hits = await a.searchText(textQuery(w)!, { session: "long", limit: 5 });
        expect({ w, ids: hits.map((h) => h.message.id) }).toEqual({ w, ids: ["long1"] });
      }
    });

    test("the hit set of every query is the one recorded for all backends", async () => {
      const sets: Record<string, string[]> = {};
      for (const q of QUERIES) sets[q] = await hitSet(q);
      shared[backend.name] = sets;
      expect(Object.values(sets).filter((s) => s.length > 0).length).toBeGreaterThan(25);
      const others = Object.entries(shared).filter(([name]) => name !== backend.name);
      for (const [, other] of others) expect(sets).toEqual(other);
    });

    test("substring match over the recent tier: inside words, any case, symbols; archived rows left out", async () => {
      const b = await backend.open();
      const texts = [
        "an old kubernetes note, archived since",
        "How do I roll out Kubernetes to staging?",
        "ÉCOLE NORMALE and the Straße",
        "50% of requests hit /api/v1_beta",
        "the payment-service crashed with ECONNRESET",
        "kubernetes again, from the assistant",
      ];
      const appended = await b.appendMessages(
        "frag",
        texts.map((content, i) => ({
          id: `f${i}`,
          role: i === 5 ? "assistant" : "user",
          content,
          sendAt: NOW + BigInt(i) * DAY,
          ...(i === 5 ? { sender: "Claude" } : {}),
        })),
        { now: NOW },
      );
      const first = appended[1]!.message;
      await b.archiveBefore("frag", first.seq, first.sendAt, NOW);
      await b.appendMessages("other", [{ id: "o1", role: "user", content: "Kubernetes elsewhere", sendAt: NOW }], {
        now: NOW,
      });
      const holding = async (needles: string[], scope: RecentScope = {}, limit = 100) =>
        (await b.recentHolding(needles, scope, limit)).map((m) => m.id);
      const sets: Record<string, string[]> = {
        netes: await holding(["netes"]),
        session: await holding(["netes"], { session: "frag" }),
        role: await holding(["netes"], { session: "frag", filter: { role: "assistant" } }),
        sender: await holding(["ubern"], { filter: { sender: "claude" } }),
        limit: await holding(["netes"], {}, 2),
        accents: await holding(["école", "straße"]),
        accentedPart: await holding(["cole norm"]),
        percent: await holding(["50%"]),
        underscore: await holding(["v1_b"]),
        noUnderscore: await holding(["v1_c"]),
        words: await holding(["ment-serv", "econn"]),
        none: await holding(["netes", "zzz"]),
      };
      expect(sets).toEqual({
        netes: ["o1", "f5", "f1"],
        session: ["f5", "f1"],
        role: ["f5"],
        sender: ["f5"],
        limit: ["o1", "f5"],
        accents: ["f2"],
        accentedPart: ["f2"],
        percent: ["f3"],
        underscore: ["f3"],
        noUnderscore: [],
        words: ["f4"],
        none: [],
      });
      expect(await b.recentIds({ session: "frag" }, 10)).toEqual(
        expect.arrayContaining(["f1", "f2", "f3", "f4", "f5"]),
      );
      expect((await b.recentIds({ session: "frag" }, 10))?.length).toBe(5);
      expect(await b.recentIds({ session: "frag" }, 4)).toBeUndefined();
      expect(await b.recentIds({ filter: { sender: "CLAUDE" } }, 1)).toEqual(["f5"]);
      // The archived tier's match: the archived row only, in any case, in its session.
      const archived = async (needles: string[], scope: RecentScope = {}) =>
        (await b.archivedHolding(needles, scope, 10)).map((m) => m.id);
      expect({
        netes: await archived(["netes"]),
        session: await archived(["old kub"], { session: "frag" }),
        elsewhere: await archived(["netes"], { session: "other" }),
        none: await archived(["staging"]),
      }).toEqual({ netes: ["f0"], session: ["f0"], elsewhere: [], none: [] });
      // What ranking asks around the hits: a word's rows (counted up to a cap), the senders, and each recent
      // message's recent neighbours.
      expect([
        await b.countText(textQuery("kubernetes")!, 10),
        await b.countText(textQuery("kubernetes")!, 2),
        await b.countText(textQuery("zebra")!, 10),
      ]).toEqual([4, 2, 0]);
      expect([
        await b.knownSenders(undefined, 10),
        await b.knownSenders("frag", 10),
        await b.knownSenders("other", 10),
      ]).toEqual([["Claude"], ["Claude"], []]);
      const seq = (i: number) => appended[i]!.message.seq;
      const near = await b.recentNeighbourSeqs([seq(1), seq(3), seq(5)]);
      expect([...near.entries()].sort((x, y) => (x[0] < y[0] ? -1 : 1))).toEqual([
        [seq(1), { next: seq(2) }],
        [seq(3), { prev: seq(2), next: seq(4) }],
        [seq(5), { prev: seq(4) }],
      ]);
      const messages = await b.recentNeighbours([seq(3)]);
      expect([messages.get(seq(3))?.prev?.id, messages.get(seq(3))?.next?.id]).toEqual(["f2", "f4"]);
      // The full-text search held to the recent tier: the archived row holding the word is left out.
      const recentOnly = await b.searchText(textQuery("kubernetes")!, { session: "frag", recent: true });
      expect(recentOnly.map((h) => h.message.id).sort()).toEqual(["f1", "f5"]);
    });
  });
}

const shared: Record<string, Record<string, string[]>> = {};
