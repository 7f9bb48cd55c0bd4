// A fake Anthropic Messages API for tests and benchmarks: Bun.serve on 127.0.0.1, port 0.
//
//   const fake = await startFakeAnthropic();          // fake.url -> ANTHROPIC_BASE_URL, fake.apiKey -> ANTHROPIC_API_KEY
//   fake.push({ json: {...}, tag: "summary" }, { status: 529 }, { hang: true });   // scripted, one step per request
//   fake.respond((req) => req.system.includes("noise") ? { json: {...} } : undefined); // used when the script is empty
//   ... run the code under test with the real @anthropic-ai/sdk ...
//   fake.requests[0].system, fake.calls, fake.inputTokens            // everything it received, and counts
//   await fake.stop();
//
// Steps: `{ text }` answers with that text; `{ json, tag? }` answers with JSON (inside <tag>…</tag> when given);
// `{ status, type?, message?, headers? }` answers with an API error (429, 529, 500, 401…); `{ hang: true }` never
// answers (until the client gives up or the fake stops); `{ delayMs, then }` waits, then does `then`;
// `{ rawBody, status? }` sends a body that is not an API response at all. A request with no step and no
// responder gets HTTP 500 "no scripted response", so an unexpected call fails loudly.
//
// Tokens are counted the same way for every request: ceil(characters / 4) of the system prompt plus every
// message's text (input), and of the answer text (output). They are returned as `usage`, so code under test
// records exactly what the fake counted.

export type FakeStep =
  | { text: string }
  | { json: unknown; tag?: string }
  | { status: number; type?: string; message?: string; headers?: Record<string, string> }
  | { hang: true }
  | { delayMs: number; then: FakeStep }
  | { rawBody: string; status?: number };

export interface FakeRequest {
  /** 1-based arrival order. */
  n: number;
  body: Record<string, unknown>;
  model: string;
  /** The system prompt as one string (text blocks joined). */
  system: string;
  messages: { role: string; content: string }[];
  headers: Record<string, string>;
  inputTokens: number;
  /** What was sent back (0 while hanging or when the client went away first). */
  status: number;
  outputTokens: number;
}

export interface FakeAnthropic {
  readonly url: string;
  readonly apiKey: string;
  readonly requests: FakeRequest[];
  /** Requests received (answered or not). */
  readonly calls: number;
  /** Totals over answered (HTTP 200) requests. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  push(...steps: FakeStep[]): void;
  /** Fallback for requests the script does not cover; return undefined for the "no scripted response" 500. */
  respond(fn: ((req: FakeRequest) => FakeStep | undefined) | undefined): void;
  /** Forget the script, the responder and the recorded requests. */
  reset(): void;
  /** Resolves once `n` requests have arrived (polls, with a deadline). */
  waitForCalls(n: number, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export function estimateTokens(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return Math.ceil(n / 4);
}

function blockText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((b) => (b && typeof b === "object" && typeof b.text === "string" ? b.text : "")).join("");
  return "";
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

export async function startFakeAnthropic(options: { apiKey?: string } = {}): Promise<FakeAnthropic> {
  const apiKey = options.apiKey ?? "test-key";
  const script: FakeStep[] = [];
  const requests: FakeRequest[] = [];
  const hanging = new Set<() => void>();
  let responder: ((req: FakeRequest) => FakeStep | undefined) | undefined;
  let inputTokens = 0;
  let outputTokens = 0;

  const json = (status: number, value: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json", ...headers } });

  async function answer(step: FakeStep, rec: FakeRequest, signal: AbortSignal): Promise<Response> {
    if ("delayMs" in step) {
      await new Promise((r) => setTimeout(r, step.delayMs));
      return answer(step.then, rec, signal);
    }
    if ("hang" in step) {
      return new Promise<Response>((resolve) => {
        const done = () => {
          hanging.delete(done);
          resolve(new Response(null, { status: 499 }));
        };
        hanging.add(done);
        signal.addEventListener("abort", done, { once: true });
      });
    }
    if ("rawBody" in step) {
      rec.status = step.status ?? 200;
      return new Response(step.rawBody, { status: rec.status, headers: { "content-type": "application/json" } });
    }
    if ("status" in step) {
      rec.status = step.status;
      const type = step.type ?? ERROR_TYPES[step.status] ?? "api_error";
      return json(step.status, { type: "error", error: { type, message: step.message ?? `fake ${type}` } }, step.headers);
    }
    const text = "text" in step ? step.text : step.tag ? `<${step.tag}>\n${JSON.stringify(step.json)}\n</${step.tag}>` : JSON.stringify(step.json);
    rec.status = 200;
    rec.outputTokens = estimateTokens(text);
    inputTokens += rec.inputTokens;
    outputTokens += rec.outputTokens;
    return json(200, {
      id: `msg_fake_${rec.n}`,
      type: "message",
      role: "assistant",
      model: rec.model,
      content: [{ type: "text", text }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: rec.inputTokens, output_tokens: rec.outputTokens },
    });
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      if (req.method !== "POST" || url.pathname !== "/v1/messages") return json(404, { type: "error", error: { type: "not_found_error", message: url.pathname } });
      const headers = Object.fromEntries(req.headers.entries());
      const body = (await req.json().catch(() => ({}))) as Record<string, unknown>;
      const messages = Array.isArray(body.messages)
        ? body.messages.map((m: { role?: unknown; content?: unknown }) => ({ role: String(m.role), content: blockText(m.content) }))
        : [];
      const system = blockText(body.system);
      const rec: FakeRequest = {
        n: requests.length + 1,
        body,
        model: String(body.model ?? ""),
        system,
        messages,
        headers,
        inputTokens: estimateTokens(system + messages.map((m) => m.content).join("")),
        status: 0,
        outputTokens: 0,
      };
      requests.push(rec);
      const key = headers["x-api-key"] ?? headers.authorization?.replace(/^Bearer /, "");
      if (key !== apiKey) {
        rec.status = 401;
        return json(401, { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } });
      }
      const step = script.shift() ?? responder?.(rec);
      if (!step) {
        rec.status = 500;
        return json(500, { type: "error", error: { type: "api_error", message: "no scripted response" } });
      }
      return answer(step, rec, req.signal);
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    apiKey,
    requests,
    get calls() {
      return requests.length;
    },
    get inputTokens() {
      return inputTokens;
    },
    get outputTokens() {
      return outputTokens;
    },
    push: (...steps) => void script.push(...steps),
    respond(fn) {
      responder = fn;
    },
    reset() {
      script.length = 0;
      requests.length = 0;
      responder = undefined;
      inputTokens = 0;
      outputTokens = 0;
    },
    async waitForCalls(n, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (let delay = 2; requests.length < n; delay = Math.min(delay * 2, 50)) {
        if (Date.now() > deadline) throw new Error(`fake Anthropic: ${requests.length} of ${n} expected requests arrived`);
        await Bun.sleep(delay);
      }
    },
    async stop() {
      for (const done of [...hanging]) done();
      await server.stop(true);
    },
  };
}
