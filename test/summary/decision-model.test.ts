// The decision model in Generate: noise pruning (confidence >= 0.7 dropped, 0.69 kept), nothing left means
// no summary call, superseded entries removed, a failed check keeps everything.
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { PROMPTS } from "../../src/memory/summary/prompts.ts";
import { estimateTokens, type FakeRequest, type FakeStep } from "../fixture/fake-anthropic.ts";
import {
  addExchanges,
  historyWrittenEarlier,
  current,
  readJson,
  readText,
  setup,
  summaryStep,
  transcriptEntries,
  transcriptOf,
  type Setup,
} from "../fixture/summary-home.ts";

let s: Setup;
afterEach(async () => s && (await s.close()));

const DECISION = { MEMVOY_DECISION_MODEL: "claude-haiku-5-5", MEMVOY_SUMMARY_MAX_RETRIES: "0" };
type Kind = "noise" | "supersede" | "summary";
const kindOf = (r: FakeRequest): Kind =>
  r.system === PROMPTS.noiseSystem ? "noise" : r.system === PROMPTS.supersedeSystem ? "supersede" : "summary";

function route(steps: Partial<Record<Kind, FakeStep>>) {
  s.fake.respond((r) => steps[kindOf(r)]);
}
const ofKind = (k: Kind) => s.fake.requests.filter((r) => kindOf(r) === k);
const summarized = () =>
  ofKind("summary").flatMap((r) =>
    transcriptEntries(transcriptOf(r.messages[0]!.content)).map((e) => e.text.split(" lorem")[0]),
  );

function seedSummary(summary: object, cursor = "2026-05-01 08:00:00") {
  writeFileSync(s.home + "/sessions/s1/summary.json", JSON.stringify(summary));
  writeFileSync(s.home + "/sessions/s1/.summary_cursor", cursor);
}

test("noise: confidence 0.7 is dropped, 0.69 is kept, and a non-noise verdict is kept", async () => {
  s = await setup(DECISION);
  addExchanges(s.api, "s1", 3);
  route({
    noise: {
      json: {
        exchanges: [
          { index: 0, noise: true, confidence: 0.7 },
          { index: 1, noise: true, confidence: 0.69 },
          { index: 2, noise: false, confidence: 0.95 },
        ],
      },
    },
    summary: summaryStep({ current_discussion: current("t") }),
  });
  const r = (await s.api.summarize("s1")).sessions[0]!;
  expect(r.outcome).toBe("ok");
  expect(r.droppedAsNoise).toBe(2);
  expect(summarized()).toEqual(["x question 1", "x answer 1", "x question 2", "x answer 2"]);
  const noise = ofKind("noise")[0]!;
  expect(noise.model).toBe("claude-haiku-5-5");
  expect(noise.messages[0]!.content).toContain("=== Exchange 0 ===");
  expect(noise.messages[0]!.content).toContain("=== Exchange 2 ===");
  expect(readText(s.home + "/sessions/s1/.summary_cursor")).toBe("2026-05-01 09:00:05");
  const usage = s.api.summary("s1").usage.map((u) => [u.purpose, u.model, u.calls]);
  expect(usage).toEqual([
    ["noise", "claude-haiku-5-5", 1],
    ["summary", "claude-sonnet-5-5", 1],
  ]);
});

test("a question with no reply of its own shares the next exchange: dropping that exchange never leaves a chunk ending on a user message", async () => {
  s = await setup(DECISION);
  addExchanges(s.api, "s1", 1);
  s.api.add("s1", [
    { role: "user", content: "lone question", sendAt: "2026-05-01T09:01:00Z" },
    { role: "user", content: "thanks!", sendAt: "2026-05-01T09:01:05Z" },
    { role: "assistant", content: "you're welcome", sendAt: "2026-05-01T09:01:06Z" },
  ]);
  // The last exchange judged is noise.
  s.fake.respond((r) => {
    if (kindOf(r) === "summary") return summaryStep({ current_discussion: current("t") });
    const n = [...r.messages[0]!.content.matchAll(/=== Exchange \d+ ===/g)].length;
    return {
      json: { exchanges: Array.from({ length: n }, (_, i) => ({ index: i, noise: i === n - 1, confidence: 0.9 })) },
    };
  });
  const r = (await s.api.summarize("s1")).sessions[0]!;
  expect(r.outcome).toBe("ok");
  const judged = ofKind("noise")[0]!.messages[0]!.content;
  expect(judged.split("=== Exchange 1 ===")[1]).toContain("lone question");
  expect(judged.split("=== Exchange 1 ===")[1]).toContain("thanks!");
  expect(judged).not.toContain("=== Exchange 2 ===");
  expect(r.droppedAsNoise).toBe(3);
  expect(summarized()).toEqual(["x question 0", "x answer 0"]);
  for (const req of ofKind("summary"))
    expect(transcriptEntries(transcriptOf(req.messages[0]!.content)).at(-1)!.role).toBe("assistant");
});

test("when every exchange is noise, the pruned summary and the cursor are saved with no summary call", async () => {
  s = await setup(DECISION);
  addExchanges(s.api, "s1", 2);
  seedSummary({
    key_decisions: ["Do: keep", "Don't: reversed"],
    past_discussions: [],
    current_discussion: current("c"),
  });
  route({
    noise: {
      json: {
        exchanges: [
          { index: 0, noise: true, confidence: 0.9 },
          { index: 1, noise: true, confidence: 0.71 },
        ],
      },
    },
  });
  historyWrittenEarlier(s.home, "s1");
  const r = (await s.api.summarize("s1")).sessions[0]!;
  expect(r.outcome).toBe("pruned");
  expect(ofKind("summary")).toHaveLength(0);
  expect(ofKind("supersede")).toHaveLength(0); // nothing left to supersede anything
  expect(readText(s.home + "/sessions/s1/.summary_cursor")).toBe("2026-05-01 09:00:03");
  expect((readJson(s.home + "/sessions/s1/summary.json") as { key_decisions: string[] }).key_decisions).toEqual([
    "Do: keep",
    "Don't: reversed",
  ]);
  expect(s.api.dueSessions()).toEqual([]);
});

test("an Agenvoy summary in the older format keeps its keys when every exchange is noise; the next summary call gets them", async () => {
  s = await setup(DECISION);
  addExchanges(s.api, "s1", 1);
  const legacy = {
    core_discussion: "Migrating the billing service to Go",
    discussion_log: [{ topic: "queue choice", time: "2026-04-20 10:00", summary: "picked NATS" }],
    confirmed_needs: ["要：use NATS for the queue", "不要：use Kafka"],
    current_conclusion: "NATS it is",
  };
  seedSummary(legacy);
  route({ noise: { json: { exchanges: [{ index: 0, noise: true, confidence: 0.9 }] } } });
  expect((await s.api.summarize("s1")).sessions[0]!.outcome).toBe("pruned");
  expect(readJson(s.home + "/sessions/s1/summary.json")).toMatchObject(legacy);
  expect(readText(s.home + "/sessions/s1/.summary_cursor")).toBe("2026-05-01 09:00:01");

  addExchanges(s.api, "s1", 1, { startMs: Date.UTC(2026, 4, 1, 10, 0, 0), tag: "y" });
  route({
    noise: { json: { exchanges: [{ index: 0, noise: false, confidence: 0.1 }] } },
    summary: summaryStep({ key_decisions: ["Do: use NATS for the queue"], current_discussion: current("billing") }),
  });
  expect((await s.api.summarize("s1")).sessions[0]!.outcome).toBe("ok");
  const sent = ofKind("summary")[0]!.system;
  expect(sent).toContain("Migrating the billing service to Go");
  expect(sent).toContain("要：use NATS for the queue");
  // Folded in by that call: summary.json holds the three keys alone.
  expect(Object.keys(readJson(s.home + "/sessions/s1/summary.json") as object)).toEqual([
    "key_decisions",
    "past_discussions",
    "current_discussion",
  ]);
});

test("entries the remaining exchanges supersede are removed before the summary call", async () => {
  s = await setup(DECISION);
  addExchanges(s.api, "s1", 2);
  const past = (topic: string) => ({
    topic,
    description: `${topic} notes`,
    direction: "on",
    last_discussed: "2026-04-01 10:00",
  });
  seedSummary({
    key_decisions: ["Do: use MySQL", "Do: write tests"],
    past_discussions: [past("database choice"), past("testing")],
    current_discussion: current("c"),
  });
  route({
    noise: { json: { exchanges: [] } },
    supersede: { json: { key_decisions: [0, 7], past_discussions: [0] } },
    summary: summaryStep({ key_decisions: ["Do: write tests", "Do: use Postgres"] }),
  });
  const r = (await s.api.summarize("s1")).sessions[0]!;
  expect(r.outcome).toBe("ok");
  const sup = ofKind("supersede")[0]!;
  expect(sup.messages[0]!.content).toContain("[0] Do: use MySQL");
  expect(sup.messages[0]!.content).toContain("[1] testing: testing notes");
  const previous = ofKind("summary")[0]!.system.split("## Previous summary")[1]!;
  expect(previous).not.toContain("use MySQL");
  expect(previous).not.toContain("database choice");
  expect(previous).toContain("Do: write tests");
  expect(previous).toContain('"topic": "testing"');
  expect(r.changes!.decisionsRemoved).toEqual(["Do: use MySQL"]);
});

test("a failed check keeps everything", async () => {
  s = await setup(DECISION);
  addExchanges(s.api, "s1", 2);
  seedSummary({ key_decisions: ["Do: keep me"], past_discussions: [], current_discussion: current("c") });
  route({
    noise: { text: "I think exchange 0 is noise." },
    supersede: { status: 500 },
    summary: summaryStep({ key_decisions: ["Do: keep me"] }),
  });
  const r = (await s.api.summarize("s1")).sessions[0]!;
  expect(r.outcome).toBe("ok");
  expect(r.droppedAsNoise).toBe(0);
  expect(summarized()).toEqual(["x question 0", "x answer 0", "x question 1", "x answer 1"]);
  expect(ofKind("summary")[0]!.system).toContain("Do: keep me");
  expect(r.notes.join("\n")).toContain("noise check failed");
  expect(r.notes.join("\n")).toContain("supersede check failed");
});

test("without a decision model there is no pruning call", async () => {
  s = await setup({ MEMVOY_SUMMARY_MAX_RETRIES: "0" });
  addExchanges(s.api, "s1", 2);
  route({ summary: summaryStep({ current_discussion: current("t") }) });
  await s.api.summarize("s1");
  expect(s.fake.requests.map(kindOf)).toEqual(["summary"]);
});

test("noise: a long backlog of short exchanges is judged in calls whose answers fit their max_tokens", async () => {
  s = await setup(DECISION);
  addExchanges(s.api, "s1", 250, { userChars: 20, replyChars: 20 });
  // Like a real model: a verdict per exchange, pretty-printed, cut off at the request's max_tokens.
  s.fake.respond((r) => {
    if (kindOf(r) !== "noise") return summaryStep({ current_discussion: current("t") });
    const asked = [...r.messages[0]!.content.matchAll(/=== Exchange (\d+) ===\n\[[^\]]*\] x question (\d+)/g)];
    const exchanges = asked.map(([, index, n]) => {
      const noise = Number(n) % 5 === 0;
      return { index: Number(index), noise, confidence: noise ? 0.9 : 0.1 };
    });
    const text = JSON.stringify({ exchanges }, null, 2);
    const max = Number(r.body.max_tokens);
    return { text: estimateTokens(text) > max ? text.slice(0, max * 4) : text };
  });
  const r = (await s.api.summarize("s1")).sessions[0]!;
  expect(r.notes.filter((n) => n.includes("noise check failed"))).toEqual([]);
  expect(r.droppedAsNoise).toBe(100);
  expect(r.outcome).toBe("ok");
  expect(summarized()).toHaveLength(400);
});
