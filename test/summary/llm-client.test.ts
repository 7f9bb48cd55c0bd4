// The LLM gateway with the real @anthropic-ai/sdk against the fake: auth header, bounded retry on 429/529/5xx
// with back-off, no retry on other errors or timeouts, the overall deadline, abort, usage, warnings, JSON.
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { LlmClient, llmSettings } from "../../src/llm/anthropic-client.ts";
import { LlmAbortedError, LlmAnswerError, LlmCallError, MissingApiKeyError } from "../../src/llm/llm-errors.ts";
import type { LlmRequest, LlmUsage } from "../../src/llm/llm-types.ts";
import { jsonCandidates } from "../../src/llm/json-answer.ts";
import { backoffMs, retryAfterMs } from "../../src/llm/retry.ts";
import { startFakeAnthropic, type FakeAnthropic } from "../fixture/fake-anthropic.ts";

let fake: FakeAnthropic;
beforeAll(async () => (fake = await startFakeAnthropic({ apiKey: "sk-test-123" })));
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

const usage: LlmUsage[] = [];
const warnings: string[] = [];
function client(o: { timeout_ms?: number; max_retries?: number; base?: string; retryMaxMs?: number } = {}) {
  usage.length = 0;
  warnings.length = 0;
  const settings = llmSettings(
    { ANTHROPIC_API_KEY: "sk-test-123", ANTHROPIC_BASE_URL: o.base ?? fake.url },
    { timeout_ms: o.timeout_ms ?? 5000, max_retries: o.max_retries ?? 3 },
    {
      onUsage: (u) => usage.push(u),
      onWarning: (w) => warnings.push(w),
      retryBaseMs: 5,
      retryMaxMs: o.retryMaxMs ?? 50,
    },
  );
  return new LlmClient(settings);
}
const req = (extra: Partial<LlmRequest> = {}): LlmRequest => ({
  model: "claude-sonnet-5-5",
  system: "be brief",
  messages: [{ role: "user", content: "hello" }],
  maxTokens: 64,
  purpose: "summary",
  session: "s1",
  ...extra,
});

test("a call: Bearer key, the request as given, text and usage back", async () => {
  fake.push({ text: "hi there" });
  const reply = await client().complete(req());
  expect(reply.text).toBe("hi there");
  expect(reply.attempts).toBe(1);
  const r = fake.requests[0]!;
  expect(r.headers.authorization).toBe("Bearer sk-test-123");
  expect([r.model, r.system, r.body.max_tokens]).toEqual(["claude-sonnet-5-5", "be brief", 64]);
  expect(r.messages).toEqual([{ role: "user", content: "hello" }]);
  expect(usage).toEqual([
    {
      purpose: "summary",
      session: "s1",
      model: "claude-sonnet-5-5",
      inputTokens: r.inputTokens,
      outputTokens: r.outputTokens,
    },
  ]);
});

test("429, 529 and 5xx are retried with back-off; usage only for the answer", async () => {
  fake.push({ status: 429 }, { status: 529 }, { status: 503 }, { text: "ok" });
  const reply = await client().complete(req());
  expect([reply.text, reply.attempts, fake.calls]).toEqual(["ok", 4, 4]);
  expect(usage).toHaveLength(1);
});

test("a 429 asking for a wait longer than memvoy waits between attempts fails at once, naming the wait", async () => {
  fake.push({ status: 429, headers: { "retry-after": "3600" } }, { text: "ok" });
  const started = performance.now();
  const err = await client({ max_retries: 3, retryMaxMs: 20_000 })
    .complete(req())
    .catch((e) => e);
  expect(err).toBeInstanceOf(LlmCallError);
  expect([err.kind, err.status, err.attempts, err.fatal, fake.calls]).toEqual(["rate-limit", 429, 1, false, 1]);
  expect(err.message).toBe(
    "summary call to claude-sonnet-5-5 failed: HTTP 429 rate limited: fake rate_limit_error; the server asked to wait 3,600 s before a retry, longer than memvoy waits between attempts (20 s), so it was not retried now",
  );
  expect(performance.now() - started).toBeLessThan(10_000);
  // A wait within it is still taken and the call retried.
  fake.reset();
  fake.push({ status: 429, headers: { "retry-after-ms": "30" } }, { text: "ok" });
  expect((await client({ retryMaxMs: 20_000 }).complete(req())).attempts).toBe(2);
});

test("retries are bounded by summary.max_retries", async () => {
  fake.push({ status: 500 }, { status: 500 }, { status: 500 });
  const err = await client({ max_retries: 2 })
    .complete(req())
    .catch((e) => e);
  expect(err).toBeInstanceOf(LlmCallError);
  expect([err.kind, err.status, err.attempts, fake.calls]).toEqual(["server", 500, 3, 3]);
  expect(err.message).toBe(
    "summary call to claude-sonnet-5-5 failed: HTTP 500 server error: fake api_error (after 3 attempts)",
  );
  expect(usage).toEqual([]);
});

test("other errors are not retried; a refused key is fatal", async () => {
  fake.push({ status: 400, message: "max_tokens too large" });
  const bad = await client()
    .complete(req())
    .catch((e) => e);
  expect([bad.kind, bad.fatal, fake.calls]).toEqual(["request", false, 1]);
  expect(bad.message).toContain("max_tokens too large");
  fake.push({ status: 401 });
  const auth = await client()
    .complete(req())
    .catch((e) => e);
  expect([auth.kind, auth.fatal]).toEqual(["auth", true]);
  const wrongKey = new LlmClient(
    llmSettings({ ANTHROPIC_API_KEY: "nope", ANTHROPIC_BASE_URL: fake.url }, { timeout_ms: 5000, max_retries: 3 }),
  );
  expect((await wrongKey.complete(req()).catch((e) => e)).kind).toBe("auth");
});

test("a 404 names the URL it came from: a base URL ending in /v1 is told from an unknown model", async () => {
  fake.push({ status: 404, message: "Not Found" });
  const e = await client()
    .complete(req())
    .catch((e) => e);
  expect([e.kind, e.fatal, e.status]).toEqual(["request", true, 404]);
  expect(e.message).toBe(
    `summary call to claude-sonnet-5-5 failed: HTTP 404: Not Found (from ${fake.url}/v1/messages)`,
  );
});

test("a 404 naming the model (the API's answer to a model id it does not know) says which setting holds it", async () => {
  for (const [purpose, key] of [
    ["summary", "summary.model"],
    ["relevance", "decision_model"],
  ] as const) {
    fake.push({ status: 404, type: "not_found_error", message: "model: claude-sonet-5" });
    const e = await client()
      .complete(req({ model: "claude-sonet-5", purpose }))
      .catch((e) => e);
    expect(e.message).toBe(
      `${purpose} call to claude-sonet-5 failed: HTTP 404: model: claude-sonet-5 (from ${fake.url}/v1/messages: ` +
        `no model "claude-sonet-5" there; check ${key})`,
    );
  }
});

test("a 404 from a base URL ending in /v1 says the /v1 is doubled and to set it without", async () => {
  for (const base of [`${fake.url}/v1`, `${fake.url}/v1/`]) {
    const e = await client({ base })
      .complete(req())
      .catch((e) => e);
    expect([e.kind, e.status]).toEqual(["request", 404]);
    expect(e.message).toBe(
      `summary call to claude-sonnet-5-5 failed: HTTP 404: /v1/v1/messages (from ${fake.url}/v1/v1/messages: ` +
        "ANTHROPIC_BASE_URL ends in /v1, which memvoy adds itself; set it without the /v1)",
    );
  }
});

test("a timeout fails at once; the overall deadline also bounds retries and back-off", async () => {
  fake.push({ hang: true });
  const t = await client({ timeout_ms: 200 })
    .complete(req())
    .catch((e) => e);
  expect([t.kind, fake.calls]).toEqual(["timeout", 1]);
  expect(t.message).toContain("no answer within 200 ms");
  fake.reset();
  fake.respond(() => ({ status: 529, headers: { "retry-after-ms": "40" } }));
  const d = await client({ max_retries: 10 })
    .complete(req({ deadlineMs: 150 }))
    .catch((e) => e);
  expect(d).toBeInstanceOf(LlmCallError);
  expect(fake.calls).toBeLessThan(11);
});

test("the timeout also bounds reading the answer: a body that stalls after the headers fails as a timeout", async () => {
  fake.push({ stallBody: true });
  const started = performance.now();
  const t = await client({ timeout_ms: 300 })
    .complete(req())
    .catch((e) => e);
  expect(t).toBeInstanceOf(LlmCallError);
  expect([t.kind, fake.calls]).toEqual(["timeout", 1]);
  expect(t.message).toContain("no answer within 300 ms");
  expect(performance.now() - started).toBeLessThan(5000);
});

test("an abort stops the call in flight and the back-off", async () => {
  fake.push({ hang: true });
  const a = new AbortController();
  const p = client().complete(req({ signal: a.signal }));
  await fake.waitForCalls(1);
  a.abort();
  expect(await p.catch((e) => e)).toBeInstanceOf(LlmAbortedError);
  fake.reset();
  fake.push({ status: 529, headers: { "retry-after-ms": "10000" } });
  const b = new AbortController();
  const q = client({ max_retries: 3, retryMaxMs: 20_000 }).complete(req({ signal: b.signal }));
  await fake.waitForCalls(1);
  b.abort();
  expect(await q.catch((e) => e)).toBeInstanceOf(LlmAbortedError);
  expect(fake.calls).toBe(1);
});

test("the SDK's deprecated-model warning goes to onWarning, not the console", async () => {
  const original = console.warn;
  const consoleLines: unknown[] = [];
  console.warn = (...a: unknown[]) => consoleLines.push(a);
  try {
    fake.push({ text: "ok" });
    await client().complete(req({ model: "claude-sonnet-4-5" }));
  } finally {
    console.warn = original;
  }
  expect(consoleLines).toEqual([]);
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toContain("claude-sonnet-4-5");
  expect(warnings[0]).not.toContain("\n");
});

test("a missing key is one line, thrown before any request", () => {
  for (const env of [{}, { ANTHROPIC_API_KEY: "  " }]) {
    const err = (() => {
      try {
        llmSettings(env, { timeout_ms: 1000, max_retries: 0 });
      } catch (e) {
        return e;
      }
    })() as MissingApiKeyError;
    expect(err).toBeInstanceOf(MissingApiKeyError);
    expect(err.exitCode).toBe(2);
    expect(err.message.split("\n")).toHaveLength(1);
  }
  expect(fake.calls).toBe(0);
});

test("JSON answers: tag, fence, brackets, braces; an answer without JSON is an answer error", async () => {
  expect(jsonCandidates('<summary>\n{"a":1}\n</summary>', "summary")).toContainEqual({ a: 1 });
  expect(jsonCandidates('Here:\n```json\n{"b":2}\n```\nDone.')).toEqual([{ b: 2 }, { b: 2 }]);
  expect(jsonCandidates('[summary]{"c":3}[/summary]', "summary")[0]).toEqual({ c: 3 });
  expect(jsonCandidates('Sure! {"d":4} hope this helps')).toEqual([{ d: 4 }]);
  expect(jsonCandidates("nothing here")).toEqual([]);
  // A trailing comma is what the model meant; one inside a string is text.
  expect(jsonCandidates('<summary>{"a": [1, 2,], "b": "x, }",\n}</summary>', "summary")[0]).toEqual({
    a: [1, 2],
    b: "x, }",
  });
  expect(jsonCandidates('{"a": 1,, }')).toEqual([]);
  fake.push({ text: "I cannot." }, { text: "" });
  const c = client();
  const e1 = await c.completeJson(req()).catch((e) => e);
  expect(e1).toBeInstanceOf(LlmAnswerError);
  // Its length only: an answer may quote the conversation.
  expect(e1.message).toContain("held no JSON (9 characters of text)");
  expect(e1.message).not.toContain("I cannot.");
  expect(await c.completeJson(req()).catch((e) => e.message)).toContain("was empty");
});

test("a server message that quotes the request is left out of the error; others are kept", async () => {
  const diary = "my diary: the PRIVATE-DIARY-LINE nobody may read, written on Tuesday";
  fake.push({ status: 400, message: `messages.0.content: cannot process "${diary.slice(3)}"` });
  const quoted = await client()
    .complete(req({ messages: [{ role: "user", content: diary }] }))
    .catch((e) => e);
  expect(quoted.message).toContain("HTTP 400: (the server's message quoted the request, so it is left out)");
  expect(quoted.message).not.toContain("PRIVATE-DIARY-LINE");
  fake.push({ status: 400, message: "prompt is too long: 250000 tokens > 200000 maximum" });
  const kept = await client()
    .complete(req({ messages: [{ role: "user", content: diary }] }))
    .catch((e) => e);
  expect(kept.message).toContain("prompt is too long: 250000 tokens > 200000 maximum");
});

test("a server that cannot be reached is named in the error", async () => {
  const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const base = `http://127.0.0.1:${closed.port}`;
  await closed.stop(true);
  const err = await client({ base, max_retries: 0 })
    .complete(req())
    .catch((e) => e);
  expect(err).toBeInstanceOf(LlmCallError);
  expect(err.kind).toBe("connection");
  expect(err.message).toContain(`(to ${base}/v1/messages)`);
});

test("a server message is kept as one line of text: its escape sequences and line breaks are not", async () => {
  fake.push({ status: 400, message: "bad \x1b]0;owned\x07request\x1b[2J\r\nsee the docs" });
  const err = await client()
    .complete(req())
    .catch((e) => e);
  expect(err).toBeInstanceOf(LlmCallError);
  expect(err.message).toContain("HTTP 400: bad request see the docs");
  expect(err.message).not.toMatch(/[\x00-\x1f]/);
});

test("back-off: exponential with jitter, capped; retry-after wins", () => {
  for (let i = 0; i < 20; i++) {
    const d = backoffMs(2, 100, 10_000);
    expect(d).toBeGreaterThanOrEqual(300);
    expect(d).toBeLessThanOrEqual(500);
  }
  expect(backoffMs(10, 100, 1000)).toBe(1000);
  expect(backoffMs(0, 100, 1000, 5000)).toBe(1000);
  expect(retryAfterMs(new Headers({ "retry-after-ms": "250" }))).toBe(250);
  expect(retryAfterMs(new Headers({ "retry-after": "2" }))).toBe(2000);
  expect(retryAfterMs(new Headers({ "retry-after": new Date(Date.now() + 3000).toUTCString() }))).toBeGreaterThan(1000);
  expect(retryAfterMs(new Headers())).toBeUndefined();
});
