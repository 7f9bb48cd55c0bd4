// LLM protocol slips: a connection dropped mid-answer is retried; an HTML page instead of an answer is one
// clear line naming the base URL, with any password in it redacted.
import { afterAll, expect, test } from "bun:test";
import { LlmClient, llmSettings } from "../../src/llm/anthropic-client.ts";
import { LlmAnswerError } from "../../src/llm/llm-errors.ts";

const ANSWER = JSON.stringify({
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "m",
  content: [{ type: "text", text: "fine" }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 1, output_tokens: 1 },
});

/** Raw TCP: the first request gets headers and half a body, then the socket is closed; the next, a whole answer. */
function droppingServer() {
  let calls = 0;
  const server = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      data(socket, data) {
        if (!data.toString().includes("\r\n\r\n")) return;
        calls++;
        const body = calls === 1 ? ANSWER.slice(0, 40) : ANSWER;
        const length = calls === 1 ? ANSWER.length : body.length;
        socket.write(
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\nconnection: close\r\n\r\n${body}`,
        );
        socket.flush();
        if (calls === 1) socket.terminate();
        else socket.end();
      },
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, calls: () => calls, stop: () => server.stop(true) };
}

const servers: { stop(): void }[] = [];
afterAll(() => servers.forEach((s) => s.stop()));

const req = {
  model: "m",
  system: "s",
  messages: [{ role: "user" as const, content: "hi" }],
  maxTokens: 16,
  purpose: "summary" as const,
  session: "s1",
};
const settings = (base: string) =>
  llmSettings(
    { ANTHROPIC_API_KEY: "sk-test-1", ANTHROPIC_BASE_URL: base },
    { timeout_ms: 5000, max_retries: 2 },
    { retryBaseMs: 5, retryMaxMs: 20, onWarning: () => {} },
  );

test("a connection dropped mid-answer is retried", async () => {
  const s = droppingServer();
  servers.push(s);
  const reply = await new LlmClient(settings(s.url)).complete(req);
  expect(reply.text).toBe("fine");
  expect(s.calls()).toBe(2);
});

test("a text/html 200 answer is a clear error naming the base URL, password redacted", async () => {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response("<html><body>Sign in</body></html>", { headers: { "content-type": "text/html" } }),
  });
  servers.push({ stop: () => server.stop(true) });
  const base = `http://proxyuser:hunter2pass@127.0.0.1:${server.port}`;
  const err = await new LlmClient(settings(base)).complete(req).catch((e) => e);
  expect(err).toBeInstanceOf(LlmAnswerError);
  expect(err.message).toContain(`http://proxyuser:***@127.0.0.1:${server.port}`);
  expect(err.message).toContain('a text/html body starting "<html><body>Sign in</body></html>"');
  expect(err.message).not.toContain("hunter2pass");
  expect(err.message).not.toContain("undefined is not an object");
});

test("a 200 answer sent as application/json that is not JSON (a proxy's page) names the base URL, not a parse error", async () => {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response("<html><body>Gateway</body></html>", { headers: { "content-type": "application/json" } }),
  });
  servers.push({ stop: () => server.stop(true) });
  const err = await new LlmClient(settings(`http://127.0.0.1:${server.port}`)).complete(req).catch((e) => e);
  expect(err).toBeInstanceOf(LlmAnswerError);
  expect(err.message).toBe(
    `the server at http://127.0.0.1:${server.port} answered HTTP 200 with an application/json body that is not JSON, starting "<html><body>Gateway</body></html>", not a Messages API answer: check ANTHROPIC_BASE_URL`,
  );
});

test("a 200 answer whose body is plain text, not JSON, fails at once naming its type and first characters, redacted", async () => {
  let calls = 0;
  const secret = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789";
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => {
      calls++;
      return new Response(`Bad Gateway: upstream refused key ${secret}`, {
        headers: { "content-type": "application/json" },
      });
    },
  });
  servers.push({ stop: () => server.stop(true) });
  const err = await new LlmClient(settings(`http://127.0.0.1:${server.port}`)).complete(req).catch((e) => e);
  expect(err).toBeInstanceOf(LlmAnswerError);
  expect(err.message).toStartWith(
    `the server at http://127.0.0.1:${server.port} answered HTTP 200 with an application/json body that is not JSON, starting "Bad Gateway: upstream refused key `,
  );
  expect(err.message).not.toContain(secret);
  expect(err.message).not.toContain("connection dropped");
  expect(calls).toBe(1);
  const empty = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response("", { headers: { "content-type": "text/html" } }),
  });
  servers.push({ stop: () => empty.stop(true) });
  const none = await new LlmClient(settings(`http://127.0.0.1:${empty.port}`)).complete(req).catch((e) => e);
  expect(none.message).toContain("answered HTTP 200 with an empty text/html body, not a Messages API answer");
});

test("an answer whose JSON ends early (the connection closed without a length) is retried as a dropped connection", async () => {
  let calls = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () =>
      new Response(++calls === 1 ? ANSWER.slice(0, 40) : ANSWER, { headers: { "content-type": "application/json" } }),
  });
  servers.push({ stop: () => server.stop(true) });
  const reply = await new LlmClient(settings(`http://127.0.0.1:${server.port}`)).complete(req);
  expect([reply.text, calls]).toEqual(["fine", 2]);
});
