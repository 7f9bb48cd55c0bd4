// The summary rules on their own, and end to end: at most 8 decisions, Do:/Don't: prefixes with legacy
// markers rewritten, past topics capped by age, times as YYYY-MM-DD HH:mm, Traditional Chinese, the strict schema.
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { parseLooseSummary, assertValidSummary, InvalidSummaryError } from "../../src/memory/summary/summary-schema.ts";
import { applySummaryRules, normalizeDecision, normalizeMinute } from "../../src/memory/summary/summary-rules.ts";
import { emptySummary, type Summary } from "../../src/memory/summary/summary-types.ts";
import {
  isJapaneseOutput,
  languageRule,
  toTraditional,
  wantsTraditional,
} from "../../src/memory/summary/reply-language.ts";
import { addExchanges, current, readJson, setup, summaryStep, type Setup } from "../fixture/summary-home.ts";

let s: Setup | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const rules = (value: unknown, fallback: Summary = emptySummary()) =>
  applySummaryRules(parseLooseSummary(value)!, fallback);

test("a field over 2,000 characters is cut at a whole character: never half an emoji", () => {
  for (const pad of [1997, 1998]) {
    const text = "a".repeat(pad) + "😀".repeat(5);
    const { summary } = rules({
      key_decisions: [],
      current_discussion: { topic: "t", description: text, perspectives: "", direction: "" },
    });
    const cut = summary.current_discussion.description;
    expect(cut.isWellFormed()).toBe(true);
    expect(cut.endsWith("…")).toBe(true);
    expect(cut.length).toBeLessThanOrEqual(2000);
    expect(normalizeDecision("Do: " + text.slice(4))!.isWellFormed()).toBe(true);
  }
});

test("a field that grows past 2,000 characters in Traditional Chinese is cut again, so the summary stays valid", async () => {
  // 㓆 becomes 𠗣, a surrogate pair: 2,000 characters of text become 3,999.
  const description = "中" + "㓆".repeat(1999);
  const { summary } = await toTraditional({ ...emptySummary(), current_discussion: { ...current("t"), description } });
  const cut = summary.current_discussion.description;
  expect(cut.length).toBeLessThanOrEqual(2000);
  expect(cut.isWellFormed()).toBe(true);
  expect(cut.startsWith("中𠗣")).toBe(true);
  expect(() => assertValidSummary(summary)).not.toThrow();
});

test("decisions: legacy markers rewritten, English prefixes normalised, an unprefixed rule becomes Do:", () => {
  expect(normalizeDecision("要：用繁體中文回答")).toBe("Do: 用繁體中文回答");
  expect(normalizeDecision("不要: 用 tabs")).toBe("Don't: 用 tabs");
  expect(normalizeDecision("する：テストを書く")).toBe("Do: テストを書く");
  expect(normalizeDecision("しない：mock を使う")).toBe("Don't: mock を使う");
  expect(normalizeDecision("DON'T - push on Fridays")).toBe("Don't: push on Fridays");
  expect(normalizeDecision("do not: use eval")).toBe("Don't: use eval");
  expect(normalizeDecision("Do:  run the linter")).toBe("Do: run the linter");
  expect(normalizeDecision("Always answer in English")).toBe("Do: Always answer in English");
  expect(normalizeDecision("Documentation: keep it short")).toBe("Do: Documentation: keep it short");
  expect(normalizeDecision("  ")).toBeUndefined();
  expect(normalizeDecision("要：")).toBeUndefined();
});

test("a rule opened by a negative word (no colon) is a Don't: rule, the word dropped; \"don't forget to\" is a Do:", () => {
  expect(normalizeDecision("Don't use tabs")).toBe("Don't: use tabs");
  expect(normalizeDecision("Don’t use tabs")).toBe("Don't: use tabs");
  expect(normalizeDecision("do not push on Fridays")).toBe("Don't: push on Fridays");
  expect(normalizeDecision("Never commit secrets")).toBe("Don't: commit secrets");
  expect(normalizeDecision("不要用第二個資料庫")).toBe("Don't: 用第二個資料庫");
  expect(normalizeDecision("別用 eval")).toBe("Don't: 用 eval");
  expect(normalizeDecision("しない mock を使う")).toBe("Don't: mock を使う");
  expect(normalizeDecision("Don't forget to run the linter")).toBe("Do: run the linter");
  expect(normalizeDecision("Never forget to tag the release")).toBe("Do: tag the release");
  // Not openers: a word that merely starts with the letters, a rule that is positive.
  expect(normalizeDecision("Nevertheless keep the log")).toBe("Do: Nevertheless keep the log");
  expect(normalizeDecision("Donate the old servers")).toBe("Do: Donate the old servers");
});

test("a negative opener with a colon, a stray quote, a list marker or bold is read as the rule it opens", () => {
  expect(normalizeDecision("Never: deploy on Fridays")).toBe("Don't: deploy on Fridays");
  expect(normalizeDecision("NEVER - push to main")).toBe("Don't: push to main");
  expect(normalizeDecision("別：用 Docker")).toBe("Don't: 用 Docker");
  expect(normalizeDecision("Don‘t: use eval")).toBe("Don't: use eval");
  expect(normalizeDecision("- Do: run the linter")).toBe("Do: run the linter");
  expect(normalizeDecision("2. Don't: use tabs")).toBe("Don't: use tabs");
  expect(normalizeDecision("**Don't:** use tabs")).toBe("Don't: use tabs");
  expect(normalizeDecision("**Do**: answer in English")).toBe("Do: answer in English");
  expect(normalizeDecision("-v is always passed")).toBe("Do: -v is always passed");
});

test("more than 8 decisions are cut to the first 8 (duplicates merged first)", () => {
  const ten = Array.from({ length: 10 }, (_, i) => `Do: rule ${i}`);
  const { summary, notes } = rules({
    key_decisions: ["Do: rule 0", ...ten],
    past_discussions: [],
    current_discussion: {},
  });
  expect(summary.key_decisions).toEqual(ten.slice(0, 8));
  expect(notes.decisionsCut).toBe(2);
});

test("past topics: one per topic, at most 8 keeping the newest, times normalised", () => {
  const past = Array.from({ length: 10 }, (_, i) => ({
    topic: `t${i}`,
    description: "d",
    direction: "x",
    last_discussed: `2026-05-${String(10 + i).padStart(2, "0")}T08:15:59Z`,
  }));
  past.push({ topic: "t3", description: "newer", direction: "y", last_discussed: "2026-06-01 10:00" });
  const { summary, notes } = rules({ key_decisions: [], past_discussions: past, current_discussion: {} });
  expect(summary.past_discussions).toHaveLength(8);
  expect(summary.past_discussions.map((p) => p.topic)).toEqual(["t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"]);
  expect(summary.past_discussions[1]).toEqual({
    topic: "t3",
    description: "newer",
    direction: "y",
    last_discussed: "2026-06-01 10:00",
  });
  expect(summary.past_discussions[0]!.last_discussed).toBe("2026-05-12 08:15");
  expect(notes.pastCut).toBe(2);
  expect(normalizeMinute("yesterday")).toBe("");
  expect(normalizeMinute("2026-05-01")).toBe("2026-05-01 00:00");
});

test("a last_discussed given with a zone is the same instant in UTC, as the transcript's times are", () => {
  expect(normalizeMinute("2026-05-01T16:30:00+08:00")).toBe("2026-05-01 08:30");
  expect(normalizeMinute("2026-05-01 01:15 -0500")).toBe("2026-05-01 06:15");
  expect(normalizeMinute("2026-05-01T03:00:00.250Z")).toBe("2026-05-01 03:00");
  expect(normalizeMinute("2026-05-01 07:45 UTC")).toBe("2026-05-01 07:45");
  expect(normalizeMinute("2026-05-01T05:00+05:30")).toBe("2026-04-30 23:30");
  expect(normalizeMinute("2026-05-01 09:10:11")).toBe("2026-05-01 09:10");
});

test("a topic given as bare text is that topic, with its other fields empty", () => {
  const { summary } = rules({
    key_decisions: ["Do: x"],
    past_discussions: ["the old deploy plan", { topic: "db", description: "pg", direction: "", last_discussed: "" }],
    current_discussion: "  the rollout  ",
  });
  expect(summary.past_discussions).toEqual([
    { topic: "the old deploy plan", description: "", direction: "", last_discussed: "" },
    { topic: "db", description: "pg", direction: "", last_discussed: "" },
  ]);
  expect(summary.current_discussion).toEqual({
    topic: "the rollout",
    description: "",
    perspectives: "",
    direction: "",
  });
});

test("an answer wrapped in one key is the summary inside it", () => {
  const inner = { key_decisions: ["Do: x"], past_discussions: [], current_discussion: { topic: "t" } };
  expect(parseLooseSummary({ summary: inner })?.key_decisions).toEqual(["Do: x"]);
  expect(parseLooseSummary({ result: { summary: inner } })?.key_decisions).toEqual(["Do: x"]);
  expect(parseLooseSummary({ summary: inner, note: "two keys" })).toBeUndefined();
  expect(parseLooseSummary({ summary: "text" })).toBeUndefined();
});

test("an answer must hold at least two of the three keys; a missing key keeps the previous value", () => {
  expect(parseLooseSummary({ key_decisions: [] })).toBeUndefined();
  expect(parseLooseSummary({ key_decisions: "Do: x", past_discussions: [] })).toBeUndefined();
  expect(parseLooseSummary([1, 2])).toBeUndefined();
  const previous: Summary = { key_decisions: ["Do: keep"], past_discussions: [], current_discussion: current("old") };
  const { summary } = rules(
    { past_discussions: [], current_discussion: { topic: "new", perspectives: ["a", "b"] } },
    previous,
  );
  expect(summary.key_decisions).toEqual(["Do: keep"]);
  expect(summary.current_discussion).toEqual({ topic: "new", description: "", perspectives: "a; b", direction: "" });
  // A list given as null is one left out.
  const nulls = rules({ key_decisions: null, past_discussions: null, current_discussion: current("new") }, previous);
  expect(nulls.summary.key_decisions).toEqual(["Do: keep"]);
});

test("the strict schema refuses what summary.json must never hold", () => {
  const ok: Summary = { key_decisions: ["Do: a"], past_discussions: [], current_discussion: current("x") };
  expect(assertValidSummary(ok)).toEqual(ok);
  const nine = { ...ok, key_decisions: Array.from({ length: 9 }, (_, i) => `Do: ${i}`) };
  expect(() => assertValidSummary(nine)).toThrow(InvalidSummaryError);
  expect(() => assertValidSummary({ ...ok, key_decisions: ["要：a"] })).toThrow(/Do: /);
  expect(() =>
    assertValidSummary({
      ...ok,
      past_discussions: [{ topic: "t", description: "", direction: "", last_discussed: "May 1" }],
    }),
  ).toThrow(/last_discussed/);
});

test("Simplified Chinese becomes Traditional; Japanese and other text are left alone", async () => {
  const { summary, changed } = await toTraditional({
    key_decisions: ["Do: 使用数据库", "Don't: use eval"],
    past_discussions: [{ topic: "软件开发", description: "会議の資料を作る", direction: "继续", last_discussed: "" }],
    current_discussion: current("语言"),
  });
  expect(summary.key_decisions).toEqual(["Do: 使用數據庫", "Don't: use eval"]);
  expect(summary.past_discussions[0]).toEqual({
    topic: "軟件開發",
    description: "会議の資料を作る",
    direction: "繼續",
    last_discussed: "",
  });
  expect(summary.current_discussion.topic).toBe("語言");
  expect(changed).toBe(5);
  expect(isJapaneseOutput("auto", "今日は会議の資料を作りましょう")).toBe(true);
  expect(isJapaneseOutput("auto", "我们今天开会")).toBe(false);
  expect(isJapaneseOutput("ja-JP", "我们")).toBe(true);
  expect(isJapaneseOutput("zh-TW", "ですます")).toBe(false);
});

test("end to end: 10 decisions from the model are stored as 8, legacy markers rewritten, Simplified stored as Traditional", async () => {
  s = await setup();
  addExchanges(s.api, "s1", 2);
  writeFileSync(
    s.home + "/sessions/s1/summary.json",
    JSON.stringify({
      key_decisions: ["要：用繁體中文", "不要：用 tabs"],
      past_discussions: [],
      current_discussion: current("舊"),
    }),
  );
  writeFileSync(s.home + "/sessions/s1/.summary_cursor", "2026-05-01 08:00:00");
  const answer = ["不要：用 tabs", "要：先寫測試", ...Array.from({ length: 8 }, (_, i) => `Do: 规则 ${i}`)];
  s.fake.push(
    summaryStep({
      key_decisions: answer,
      current_discussion: { topic: "数据库迁移", description: "讨论数据库", perspectives: "", direction: "继续" },
    }),
  );
  const r = (await s.api.summarize("s1")).sessions[0]!;
  expect(r.outcome).toBe("ok");
  // The previous summary reached the model with its markers already rewritten.
  const previous = s.fake.requests[0]!.system.split("## Previous summary")[1]!;
  expect(previous).toContain('"Do: 用繁體中文"');
  expect(previous).not.toContain("要：");
  const saved = readJson(s.home + "/sessions/s1/summary.json") as Summary;
  expect(saved.key_decisions).toEqual([
    "Don't: 用 tabs",
    "Do: 先寫測試",
    ...Array.from({ length: 6 }, (_, i) => `Do: 規則 ${i}`),
  ]);
  expect(saved.current_discussion).toEqual({
    topic: "數據庫遷移",
    description: "討論數據庫",
    perspectives: "",
    direction: "繼續",
  });
  expect(r.notes.join("\n")).toContain("over the limit of 8");
  expect(r.notes.join("\n")).toContain("legacy marker");
  expect(r.notes.join("\n")).toContain("Traditional Chinese");
});

test("the language rule reaches the prompt: auto follows the conversation, a fixed reply_lang is named", async () => {
  s = await setup({ MEMVOY_REPLY_LANG: "fr" });
  addExchanges(s.api, "s1", 1);
  s.fake.push(summaryStep({ current_discussion: current("t") }));
  await s.api.summarize("s1");
  expect(s.fake.requests[0]!.system).toContain("Write every text field in this language: fr.");
  expect(s.fake.requests[0]!.system).toContain("Traditional Chinese");
  expect(s.fake.requests[0]!.system).toContain("`Do: ` (agreed) or `Don't: ` (rejected), written in English");
});

test("an explicit Simplified reply_lang (zh-CN, zh-Hans) is followed: no Traditional rule in the prompt, no conversion", async () => {
  for (const lang of ["zh-CN", "zh-Hans", "zh-hans-SG", "Simplified Chinese"]) {
    expect(wantsTraditional(lang)).toBe(false);
    expect(languageRule(lang)).not.toContain("Traditional");
  }
  for (const lang of ["auto", "zh-TW", "zh-Hant", "zh-HK", "Traditional Chinese", "fr"])
    expect(wantsTraditional(lang)).toBe(true);
  s = await setup({ MEMVOY_REPLY_LANG: "zh-CN" });
  addExchanges(s.api, "s1", 1);
  s.fake.push(
    summaryStep({
      key_decisions: ["Do: 使用数据库迁移"],
      current_discussion: { topic: "数据库迁移", description: "讨论数据库", perspectives: "", direction: "继续" },
    }),
  );
  const r = (await s.api.summarize("s1")).sessions[0]!;
  expect(r.outcome).toBe("ok");
  expect(s.fake.requests[0]!.system).toContain("Write every text field in this language: zh-CN.");
  expect(s.fake.requests[0]!.system).not.toContain("Traditional");
  const saved = readJson(s.home + "/sessions/s1/summary.json") as Summary;
  expect(saved.key_decisions).toEqual(["Do: 使用数据库迁移"]);
  expect(saved.current_discussion.topic).toBe("数据库迁移");
  expect(r.notes.join("\n")).not.toContain("Traditional Chinese");
});
