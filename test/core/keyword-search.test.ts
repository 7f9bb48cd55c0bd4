import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { NS_PER_DAY } from "../../src/shared/time.ts";
import { type HomeMemory } from "../../src/app/open-memory.ts";
import { join } from "node:path";
import { addTexts, openTemp, removeTempHomes } from "../fixture/home.ts";
import { rankRecentRows } from "../../src/search/keyword.ts";
import { openDatabase } from "../../src/storage/sqlite/open-database.ts";

afterAll(removeTempHomes);

const NOW = 1_790_000_000_000_000_000n;
const daysAgo = (d: number) => NOW - BigInt(d) * NS_PER_DAY;
const ids = (r: { hits: { message: { content: string } }[] }) => r.hits.map((h) => h.message.content);

describe("keyword search", () => {
  let api: HomeMemory;
  beforeAll(() => {
    // 6 KiB history.json: early messages are compacted into the archive, the last ones stay recent.
    api = openTemp({ env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "6000" }, now: () => NOW }).api;
    const pad = " filler".repeat(60);
    const old = [
      ["user", "We deployed the payment service to production last night"],
      ["assistant", "The deployment finished; the rollback plan is ready" + pad],
      ["user", "我們今天下午要部署新的數據庫服務器" + pad],
      ["assistant", "今日の午後に新しいデータベースサーバーをデプロイします" + pad],
      ["user", 'quoted "NEAR(x y)" AND -minus * (unbalanced' + pad],
      ["assistant", "ok noted" + pad],
    ] as const;
    old.forEach(([role, content], i) => api.add("alpha", { role, content, sendAt: daysAgo(300 - i) }));
    for (let i = 0; i < 20; i++)
      api.add("alpha", {
        role: i % 2 ? "assistant" : "user",
        content: `padding message ${i}${pad}`,
        sendAt: daysAgo(200 - i),
      });
    api.add("alpha", {
      role: "user",
      content: "recent: we must redeploy the Deployment controller",
      sendAt: daysAgo(2),
    });
    api.add("alpha", { role: "assistant", content: "Sure, redeploying now", sendAt: daysAgo(1) });
    api.add("beta", { role: "user", content: "beta session talks about deploy keys", sendAt: daysAgo(20) });
    api.add("beta", { role: "assistant", content: "服務 器 spaced characters", sendAt: daysAgo(20) });
  });
  afterAll(() => api.close());

  test("the archive part excludes what is still in history.json; the recent part finds it", async () => {
    const r = await api.search({ query: "deploy", session: "alpha", limit: 20 });
    const bySource = (s: string) =>
      r.hits
        .filter((h) => h.source === s)
        .map((h) => h.message.content.slice(0, 20))
        .sort();
    expect(bySource("archive")).toEqual(["The deployment finis", "We deployed the paym"]);
    expect(bySource("recent")).toEqual(["Sure, redeploying no", "recent: we must rede"]);
    expect(r.hits.every((h) => (h.source === "recent") === h.message.recent)).toBe(true);
    expect(new Set(r.hits.map((h) => h.message.id)).size).toBe(r.hits.length);
  });

  test("English search is stemming-aware", async () => {
    for (const q of ["deploy", "deployed", "deployment", "DEPLOYING"]) {
      const found = ids(await api.search({ query: q, session: "alpha", limit: 20 }));
      expect(found.some((c) => c.startsWith("We deployed"))).toBe(true);
      expect(found.some((c) => c.startsWith("The deployment finished"))).toBe(true);
    }
  });

  test("CJK: substrings of 1 and 2 characters, in the archive and in recent rows", async () => {
    const one = ids(await api.search({ query: "庫", session: "alpha" }));
    expect(one.some((c) => c.startsWith("我們今天"))).toBe(true);
    const oneLast = ids(await api.search({ query: "器", session: "alpha" })); // the last character of a run
    expect(oneLast.some((c) => c.startsWith("我們今天"))).toBe(true);
    const two = ids(await api.search({ query: "據庫", session: "alpha" })); // not a word boundary
    expect(two.some((c) => c.startsWith("我們今天"))).toBe(true);
    expect(ids(await api.search({ query: "データ" })).some((c) => c.startsWith("今日の午後"))).toBe(true);
    expect(ids(await api.search({ query: "ログ" }))).toEqual([]);
    expect(ids(await api.search({ query: "服務", session: "beta" }))).toEqual(["服務 器 spaced characters"]);
    // a 2-character query never matches two characters that are not adjacent
    expect(ids(await api.search({ query: "務器", session: "beta" }))).toEqual([]);
  });

  test("FTS5 syntax in the query is just text", async () => {
    for (const q of [
      '"',
      '"NEAR(x y)"',
      "AND",
      "*",
      "NEAR(",
      "-minus",
      "(unbalanced",
      "a OR",
      ")",
      "^x",
      "col:val",
      "''",
      "\\",
    ]) {
      const r = await api.search({ query: q });
      expect(Array.isArray(r.hits)).toBe(true);
    }
    expect(ids(await api.search({ query: "-minus" })).some((c) => c.startsWith("quoted"))).toBe(true);
    expect(ids(await api.search({ query: "(unbalanced" })).some((c) => c.startsWith("quoted"))).toBe(true);
  });

  test("filters: session, time range and limit", async () => {
    expect(ids(await api.search({ query: "deploy", session: "beta" }))).toEqual([
      "beta session talks about deploy keys",
    ]);
    const week = await api.search({ query: "deploy", range: "7d" });
    expect(week.hits.map((h) => h.message.session)).toEqual(["alpha", "alpha"]);
    const month = await api.search({ query: "deploy", range: "30d" });
    expect(month.hits.map((h) => h.message.session).sort()).toEqual(["alpha", "alpha", "beta"]);
    const all = await api.search({ query: "deploy", range: "all", limit: 2 });
    expect(all.hits.length).toBe(2);
    expect((await api.search({ query: "deploy", range: "1d" })).hits.map((h) => h.message.content)).toEqual([
      "Sure, redeploying now",
    ]);
  });

  test("hits carry highlighted snippets on the original text", async () => {
    const r = await api.search({ query: "rollback plan", session: "alpha" });
    const h = r.hits[0]!;
    expect(h.message.content.startsWith("The deployment finished")).toBe(true);
    const marked = h.highlights.map(([s, e]) => h.snippet.slice(s, e).toLowerCase());
    expect(marked).toEqual(["rollback", "plan"]);
    const cjk = (await api.search({ query: "數據", session: "alpha" })).hits[0]!;
    expect(cjk.highlights.map(([s, e]) => cjk.snippet.slice(s, e))).toEqual(["數據"]);
  });

  test("order newest: every term must match, newest first (the search-as-you-type path)", async () => {
    const r = await api.search({ query: "deploy", order: "newest", limit: 20 });
    const times = r.hits.map((h) => h.message.sendAt);
    expect(times).toEqual([...times].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
    expect(r.hits.map((h) => h.message.content.slice(0, 12))).toContain("We deployed ");
    expect(r.hits[0]!.message.content).toBe("Sure, redeploying now");
    const both = await api.search({ query: "deployment rollback", order: "newest" });
    expect(both.hits.map((h) => h.message.content.slice(0, 23))).toEqual(["The deployment finished"]);
    await expect(api.search({ query: "x", order: "best" as "newest" })).rejects.toThrow(/invalid order/);
  });

  test("invalid options are refused", async () => {
    await expect(api.search({ query: " " })).rejects.toThrow(/needs a query/);
    await expect(api.search({ query: "x", session: "../x" })).rejects.toThrow(/invalid session id/);
    await expect(api.search({ query: "x", range: "2d" as "1d" })).rejects.toThrow(/invalid range/);
    await expect(api.search({ query: "x", limit: 0 })).rejects.toThrow(/invalid limit/);
  });
});

test("a recent message found by a substring inside a longer word shows and highlights it, however far in it is", async () => {
  const { api } = openTemp({ now: () => NOW, drain: "off" });
  try {
    const lead = "lorem ipsum dolor sit amet ".repeat(40);
    api.add("s", {
      role: "user",
      content: `${lead}the MyDeploymentController calls getUserById on snake_case_name`,
      sendAt: daysAgo(1),
    });
    await api.drainEmbeddings();
    for (const [query, shown] of [
      ["controller", "Controller"],
      ["userbyid", "UserById"],
      ["case_name", "case_name"],
      ["eployment", "eployment"],
    ] as const)
      for (const match of ["keyword", "hybrid"] as const) {
        const [hit] = (await api.search({ query, match })).hits;
        const marked = hit!.highlights.map(([s, e]) => hit!.snippet.slice(s, e));
        expect({ query, match, marked }).toEqual({ query, match, marked: [shown] });
      }
  } finally {
    api.close();
  }
}, 30_000);

test("a message said many times: a short page holds its newest instances, the first ones of a long page", async () => {
  // 4 KiB history.json: the first instances are compacted into the archive, the last ones stay recent.
  const { api } = openTemp({ env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" }, now: () => NOW, drain: "off" });
  try {
    for (let i = 0; i < 40; i++) {
      api.add("s", { role: "user", content: `status check ${i}`, sendAt: daysAgo(80 - 2 * i) });
      api.add("s", {
        role: "assistant",
        content: "Deployed payment-service; rollout finished",
        sendAt: daysAgo(79 - 2 * i),
      });
    }
    for (const until of [undefined, daysAgo(40)]) {
      const search = (limit: number) =>
        api.search({ query: "rollout", limit, ...(until === undefined ? {} : { until }) }).then((r) => r.hits);
      const long = await search(30);
      expect(new Set(long.slice(0, 5).map((h) => h.source))).toEqual(
        new Set(until === undefined ? ["recent"] : ["archive"]),
      );
      for (const limit of [1, 2, 3, 5]) {
        const page = (await search(limit)).map((h) => h.message.sendAt);
        expect({ until, limit, page }).toEqual({
          until,
          limit,
          page: long.slice(0, limit).map((h) => h.message.sendAt),
        });
      }
      const times = long.map((h) => h.message.sendAt).sort((a, b) => (a < b ? 1 : -1));
      expect(long[0]!.message.sendAt).toBe(times[0]!);
    }
  } finally {
    api.close();
  }
}, 30_000);

test("a short page is the start of a long one when messages were written out of their time order, or the query names a month", async () => {
  // Session b is written after a but its messages interleave a's in time (as imports write them): equal scores are
  // the newest sent first, on every page.
  const { api } = openTemp({ env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" }, now: () => NOW, drain: "off" });
  try {
    const at = (i: number) => daysAgo(300 - i);
    for (const [session, odd] of [
      ["a", 1],
      ["b", 0],
    ] as const)
      for (let i = odd; i < 240; i += 2) {
        // The redis messages are the older ones: all archived.
        const content =
          i % 5 === 0 && i < 100 ? `we moved the redis cache to a bigger instance #${i}` : `standup notes #${i}`;
        api.add(session, { role: i % 4 < 2 ? "user" : "assistant", content, sendAt: at(i) });
      }
    const month = new Date(Number(at(40) / 1_000_000n)).toLocaleString("en", { month: "long", timeZone: "UTC" });
    const year = new Date(Number(at(40) / 1_000_000n)).getUTCFullYear();
    for (const query of ["redis", "redis cache", `redis in ${month} ${year}`]) {
      const search = async (limit: number) =>
        (await api.search({ query, limit, match: "keyword" })).hits.map((h) => h.message.content);
      const long = await search(12);
      expect(long.length).toBe(12);
      for (const limit of [1, 2, 3, 5])
        expect({ query, limit, page: await search(limit) }).toEqual({ query, limit, page: long.slice(0, limit) });
    }
  } finally {
    api.close();
  }
}, 30_000);

test("a message holding the query as typed (payment-service) ranks with those holding its words as a phrase", async () => {
  const { api } = openTemp({ now: () => NOW, drain: "off" });
  try {
    api.add("s", { role: "user", content: "deploy the payment service tonight", sendAt: daysAgo(3) });
    api.add("s", { role: "user", content: "the staging run looked fine", sendAt: daysAgo(2) });
    api.add("s", { role: "assistant", content: "restarted payment-service after the deploy", sendAt: daysAgo(1) });
    for (const query of ["payment-service", "Payment-Service deploy"]) {
      const [top] = (await api.search({ query, limit: 1 })).hits;
      expect({ query, top: top!.message.content }).toEqual({
        query,
        top: "restarted payment-service after the deploy",
      });
    }
    const [spaced] = (await api.search({ query: "payment service", limit: 1 })).hits;
    expect(spaced!.message.content).toBe("deploy the payment service tonight");
  } finally {
    api.close();
  }
}, 30_000);

test("a recent message holding the query as a whole word or by stem ranks above one holding it only as a longer word's start", async () => {
  const { api } = openTemp({ now: () => NOW, drain: "off" });
  try {
    api.add("s", { role: "user", content: "we went to art class on monday", sendAt: daysAgo(3) });
    api.add("s", { role: "user", content: "she deployed the docs site", sendAt: daysAgo(3) });
    api.add("s", { role: "assistant", content: "the build artifact is in the deployment bucket", sendAt: daysAgo(1) });
    expect(ids(await api.search({ query: "art", match: "keyword" }))).toEqual([
      "we went to art class on monday",
      "the build artifact is in the deployment bucket",
    ]);
    // "deployed" and "deployment" both stem to the query's word: the newer first, as equals are.
    expect(ids(await api.search({ query: "deploy", match: "keyword" }))).toEqual([
      "the build artifact is in the deployment bucket",
      "she deployed the docs site",
    ]);
  } finally {
    api.close();
  }
}, 30_000);

test("a hit marks only the words the search matched: a query word starting a longer word does not mark it", async () => {
  // 4 KiB history.json: the first messages are compacted into the archive, the last ones stay recent.
  const { api } = openTemp({ env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" }, now: () => NOW, drain: "off" });
  try {
    const say = (content: string, i: number) => api.add("s", { role: "user", content, sendAt: daysAgo(100 - i) });
    say("Let's use the pre-commit hook and mail ops@example.com about the configuration of config", 0);
    say("ภาษาไทยเป็นภาษาที่ยาก การทดสอบระบบค้นหา", 1);
    say("the Müllers came to the portal of the port", 2);
    for (let i = 0; i < 40; i++) say(`padding message ${i}${" filler".repeat(20)}`, 3 + i);
    await api.drainEmbeddings();
    for (const [query, marked] of [
      ["com", ["com"]],
      ["ops@example.com", ["ops@example.com"]],
      ["config", ["config"]],
      ["ภาษา", ["ภาษา", "ภาษา"]],
      ["port", ["port"]],
      ["müller", ["Müllers"]],
    ] as const)
      for (const match of ["keyword", "hybrid"] as const) {
        const [hit] = (await api.search({ query, match })).hits;
        expect(hit!.message.recent).toBe(false);
        const shown = hit!.highlights.map(([s, e]) => hit!.snippet.slice(s, e));
        expect({ query, match, shown }).toEqual({ query, match, shown: [...marked] });
      }
    // While typed (search as you type), the last word still marks the words it starts.
    const [start] = (await api.search({ query: "por", order: "newest", typing: true })).hits;
    expect(start!.highlights.map(([s, e]) => start!.snippet.slice(s, e))).toEqual(["portal", "port"]);
  } finally {
    api.close();
  }
}, 30_000);

test("an identifier joined by underscores marks its words where a hit holds them with other characters between", async () => {
  // 4 KiB history.json: the first messages are compacted into the archive, the last ones stay recent.
  const { api } = openTemp({ env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" }, now: () => NOW, drain: "off" });
  try {
    const say = (content: string, i: number) => api.add("s", { role: "user", content, sendAt: daysAgo(100 - i) });
    say("Set DATABASE_URL=postgres://localhost/app in the env file", 0);
    say("The config key is database.url in settings.yaml", 1);
    for (let i = 0; i < 40; i++) say(`padding message ${i}${" filler".repeat(20)}`, 2 + i);
    await api.drainEmbeddings();
    for (const match of ["keyword", "hybrid"] as const) {
      const hits = (await api.search({ query: "DATABASE_URL", match })).hits;
      const shown = hits.map((h) => h.highlights.map(([s, e]) => h.snippet.slice(s, e)));
      expect({ match, shown: shown.sort() }).toEqual({ match, shown: [["DATABASE_URL"], ["database.url"]] });
    }
  } finally {
    api.close();
  }
}, 30_000);

test("a CJK match after a Turkish İ is highlighted where it is", async () => {
  // İ's lower case is two characters long: ranges found in the lower-cased text would fall one further per İ.
  const { api } = openTemp({ env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" }, now: () => NOW, drain: "off" });
  try {
    const say = (content: string, i: number) => api.add("s", { role: "user", content, sendAt: daysAgo(100 - i) });
    say("İstanbul ve İzmir toplantısı: 数据库迁移", 0);
    for (let i = 0; i < 40; i++) say(`padding message ${i}${" filler".repeat(20)}`, 1 + i);
    say("İstanbul ve İzmir toplantısı: 数据库迁移 again", 41);
    await api.drainEmbeddings();
    for (const match of ["keyword", "hybrid"] as const) {
      const hits = (await api.search({ query: "数据库", match })).hits.filter((h) =>
        h.message.content.includes("数据库"),
      );
      expect(hits.map((h) => h.message.recent).sort()).toEqual([false, true]);
      for (const h of hits) expect(h.highlights.map(([s, e]) => h.snippet.slice(s, e))).toEqual(["数据库"]);
    }
  } finally {
    api.close();
  }
}, 30_000);

test("a rare word's messages are ranked however many newer messages hold a common word of the query", async () => {
  // More newer messages hold "deploy" than a ranking window holds: the two holding "zebra" are older than all of them.
  const old = ["the zebra crossing sensor broke last spring", "we rolled back the canary after the zebra alert"];
  const deploys = Array.from({ length: 2_100 }, (_, i) => `deploy number ${i} went out to production`);
  for (const limit of ["4194304", "65536"]) {
    // The default history.json keeps every message recent; 64 KiB leaves the old ones in the archive only.
    const { home, api } = openTemp({ env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: limit }, now: () => NOW, drain: "off" });
    try {
      addTexts(api, "s", [...old, ...deploys], daysAgo(1));
      for (const session of [undefined, "s"]) {
        const r = await api.search({ query: "deploy zebra", session, limit: 3 });
        const top = r.hits.slice(0, 2).map((h) => h.message.content);
        expect({ limit, session, top: top.sort() }).toEqual({ limit, session, top: [...old].sort() });
        expect(r.hits[0]!.message.recent).toBe(limit === "4194304");
      }
      // Hybrid search's bm25 list over the recent tier, as it ranks them.
      if (limit === "4194304") {
        const db = openDatabase(join(home, ".store", "history.db"));
        try {
          const ranked = rankRecentRows(db, "deploy zebra", {}, 3).map((x) => x.message.content);
          expect(ranked.slice(0, 2).sort()).toEqual([...old].sort());
        } finally {
          db.close();
        }
      }
    } finally {
      api.close();
    }
  }
}, 60_000);

test("a Chinese, Japanese or Korean question with particles finds the messages holding its words, in every mode", async () => {
  // 4 KiB history.json: the first messages are compacted into the archive, the last ones stay recent.
  const { api } = openTemp({ env: { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" }, now: () => NOW, drain: "off" });
  try {
    let day = 300;
    const say = (content: string) => api.add("s", { role: "user", content, sendAt: daysAgo(day--) });
    const texts = [
      "東京で会議があります。明日の午後三時です",
      "依使用者列出訂單的查詢在掃全表，要加索引",
      "새 회의록 업로드 완료",
    ];
    for (const t of texts) say(`舊 ${t}`);
    say("取引の消去について");
    for (let i = 0; i < 40; i++) say(`padding message ${i}${" filler".repeat(20)}`);
    for (const t of texts) say(`新 ${t}`);
    await api.drainEmbeddings();
    for (const [query, text] of [
      ["東京の会議", texts[0]!],
      ["会議は明日", texts[0]!],
      ["東京の会議はいつですか", texts[0]!],
      ["会議はいつですか", texts[0]!],
      ["この会議", texts[0]!],
      ["訂單的索引", texts[1]!],
      // A Korean word with the particle a question gives it.
      ["회의록을 찾아줘", texts[2]!],
    ] as const)
      for (const match of ["keyword", "hybrid", "semantic"] as const) {
        const r = await api.search({ query, match, limit: 20 });
        const tiers = r.hits.filter((h) => h.message.content.endsWith(text)).map((h) => h.message.recent);
        // Semantic search covers the recent tier only.
        const want = match === "semantic" ? [true] : [false, true];
        expect({ query, match, tiers: [...new Set(tiers)].sort() }).toEqual({ query, match, tiers: want });
      }
    // A word that holds a particle keeps it: 取り消し is not 取 and 消 anywhere.
    expect((await api.search({ query: "取り消し" })).hits).toEqual([]);
  } finally {
    api.close();
  }
}, 60_000);
