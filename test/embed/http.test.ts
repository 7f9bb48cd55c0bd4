import { afterEach, describe, expect, test } from "bun:test";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createEmbedder, endpoint, type EmbedderConfig } from "../../src/embed/create-embedder.ts";
import {
  EmbedderConfigError,
  EmbedderRejectedError,
  EmbedderResponseError,
  EmbedderUnavailableError,
} from "../../src/embed/embedder.ts";
import { okBody, startFakeEmbeddings } from "../fixture/fake-embeddings.ts";

const cfg = (over: Partial<EmbedderConfig>): EmbedderConfig => ({
  provider: "openai",
  model: "",
  base_url: "",
  dimensions: 0,
  batch_size: 64,
  timeout_ms: 5000,
  max_retries: 3,
  ...over,
});
const stops: (() => void)[] = [];
afterEach(() => stops.splice(0).forEach((s) => s()));
function fake(...args: Parameters<typeof startFakeEmbeddings>) {
  const f = startFakeEmbeddings(...args);
  stops.push(f.stop);
  return f;
}
const env = { OPENAI_API_KEY: "sk-test-secret", VOYAGE_API_KEY: "pa-voyage-secret" };

describe("openai-compatible embedder", () => {
  test("sends model, dimensions and the key; batches by batch_size; returns unit vectors in order", async () => {
    const f = fake([], { body: okBody(256) });
    const e = await createEmbedder(cfg({ base_url: f.url, batch_size: 2 }), { env });
    expect(e.id).toBe("openai:text-embedding-3-small:256");
    const out = await e.embed(["a", "bb", "ccc", "dddd", "eeeee"]);
    expect(out).toHaveLength(5);
    expect(f.seen).toHaveLength(3);
    expect(f.seen.map((s) => (s.json.input as string[]).length)).toEqual([2, 2, 1]);
    const first = f.seen[0]!;
    expect(first.path).toBe("/v1/embeddings");
    expect(first.json).toMatchObject({ model: "text-embedding-3-small", dimensions: 256, encoding_format: "float" });
    expect(first.headers.get("authorization")).toBe("Bearer sk-test-secret");
    const norm = Math.hypot(...out[2]!);
    expect(norm).toBeCloseTo(1, 5);
  });

  test("a long text is cut to 8,000 bytes of UTF-8 between two characters, in any script (an 8k-token limit)", async () => {
    const f = fake([], { body: okBody(8) });
    const e = await createEmbedder(cfg({ base_url: f.url, dimensions: 8 }), { env });
    const chinese = "部署失敗了請檢查資料庫連線".repeat(1000);
    const emoji = "a" + "😀".repeat(3000);
    const english = "deploy ".repeat(2000);
    await e.embed([chinese, emoji, english, "short 😀 text"]);
    const sent = f.seen[0]!.json.input as string[];
    const bytes = (t: string) => Buffer.byteLength(t, "utf8");
    expect(sent.map(bytes)).toEqual([7998, 7997, 8000, bytes("short 😀 text")]);
    expect(chinese.startsWith(sent[0]!) && emoji.startsWith(sent[1]!) && english.startsWith(sent[2]!)).toBe(true);
    // No half of a surrogate pair is sent.
    expect(sent[1]!.isWellFormed()).toBe(true);
    expect(sent[3]).toBe("short 😀 text");
  });

  test("a text a model of 512 tokens refuses as too long is sent again, shorter, until it fits", async () => {
    let limit = 1500;
    const sent: number[] = [];
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(r) {
        const req = (await r.json()) as { input: string[] };
        sent.push(...req.input.map((t) => Buffer.byteLength(t)));
        // As vLLM answers for a model with a 512-token input limit.
        if (req.input.some((t) => Buffer.byteLength(t) > limit))
          return Response.json(
            { object: "error", message: "This model's maximum context length is 512 tokens.", code: 400 },
            { status: 400 },
          );
        return Response.json(okBody(8)(req));
      },
    });
    stops.push(() => server.stop(true));
    const e = await createEmbedder(cfg({ base_url: `http://127.0.0.1:${server.port}`, dimensions: 8 }), { env });
    const long = "deploy log line ".repeat(1000);
    expect(await e.embed([long])).toHaveLength(1);
    expect(sent).toEqual([8000, 4000, 2000, 1000]);
    // A short text refused is not sent again, and a long one is given up at 500 bytes.
    limit = 0;
    sent.length = 0;
    expect(await e.embed(["short"]).catch((x) => x)).toBeInstanceOf(EmbedderRejectedError);
    expect(sent).toEqual([5]);
    sent.length = 0;
    expect(await e.embed([long]).catch((x) => x)).toBeInstanceOf(EmbedderRejectedError);
    expect(sent).toEqual([8000, 4000, 2000, 1000, 500]);
  });

  test("429 with Retry-After, then success", async () => {
    const f = fake([{ status: 429, headers: { "retry-after": "0" }, body: '{"error":{"message":"slow down"}}' }], {
      body: okBody(256),
    });
    const e = await createEmbedder(cfg({ base_url: f.url }), { env, baseDelayMs: 1 });
    const out = await e.embed(["hello"]);
    expect(out).toHaveLength(1);
    expect(f.seen).toHaveLength(2);
  });

  test("a search's query gets timeout_ms in all, retries included: a long Retry-After fails it at once", async () => {
    const limited = { status: 429, headers: { "retry-after": "30" }, body: '{"error":{"message":"slow down"}}' };
    const f = fake([limited, limited], { body: okBody(8) });
    const e = await createEmbedder(cfg({ base_url: f.url, dimensions: 8, timeout_ms: 2000, max_retries: 4 }), { env });
    const started = performance.now();
    const err = await e.embed(["deploy keys"], undefined, "query").catch((x) => x);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(err).toBeInstanceOf(EmbedderUnavailableError);
    expect(err.message).toContain("rate-limited the request (429): slow down; the server asked to wait 30 s");
    // So does the first answer that tells a model's dimension, which a search may be the one to ask for.
    const probe = fake([limited], { body: okBody(8) });
    const at = performance.now();
    const unknown = await createEmbedder(cfg({ base_url: probe.url, model: "custom", timeout_ms: 2000 }), {
      env,
    }).catch((x) => x);
    expect(performance.now() - at).toBeLessThan(10_000);
    expect(String(unknown)).toContain("rate-limited the request (429)");
    // A short wait still fits in the query's time.
    const soon = fake([{ ...limited, headers: { "retry-after": "0.2" } }], { body: okBody(8) });
    const q = await createEmbedder(cfg({ base_url: soon.url, dimensions: 8, timeout_ms: 2000 }), { env });
    expect(await q.embed(["deploy keys"], undefined, "query")).toHaveLength(1);
    expect(soon.seen).toHaveLength(2);
  }, 20_000);

  test("a Retry-After longer than memvoy waits between attempts fails the call at once, naming the wait", async () => {
    const hour = { status: 429, headers: { "retry-after": "3600" }, body: '{"error":{"message":"slow down"}}' };
    const f = fake([hour], { body: okBody(8) });
    const e = await createEmbedder(cfg({ base_url: f.url, dimensions: 8, max_retries: 3 }), { env });
    const started = performance.now();
    const err = await e.embed(["deploy keys"]).catch((x) => x);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(err).toBeInstanceOf(EmbedderUnavailableError);
    expect(f.seen).toHaveLength(1);
    expect(err.message).toBe(
      `openai embeddings (${f.url}/v1/embeddings) rate-limited the request (429): slow down; the server asked to wait 3,600 s before a retry, longer than memvoy waits between attempts (20 s), so it was not retried now`,
    );
    // After a retried 503, as retry-after-ms (OpenAI's), the attempts are named too.
    const later = fake(
      [
        { status: 503, headers: { "retry-after": "0" }, body: "busy" },
        { status: 503, headers: { "retry-after-ms": "45000" }, body: "busy" },
      ],
      { body: okBody(8) },
    );
    const e2 = await createEmbedder(cfg({ base_url: later.url, dimensions: 8 }), { env });
    const err2 = await e2.embed(["deploy keys"]).catch((x) => x);
    expect(err2.message).toEndWith(
      "failed (503): busy; the server asked to wait 45 s before a retry, longer than memvoy waits between attempts (20 s), so it was not retried now (after 2 attempts)",
    );
    expect(later.seen).toHaveLength(2);
  });

  test("5xx is retried max_retries times, then fails with one clear line", async () => {
    const f = fake([], { status: 503, body: "upstream unavailable" });
    const e = await createEmbedder(cfg({ base_url: f.url, max_retries: 2 }), { env, baseDelayMs: 1 });
    const err = await e.embed(["hello"]).catch((x) => x);
    expect(err).toBeInstanceOf(EmbedderUnavailableError);
    expect(err.message).toContain("kept failing (503) after 3 attempts");
    expect(err.message).not.toContain("\n");
    expect(f.seen).toHaveLength(3);
  });

  test("a server's error message is kept as one line of text, without its escape sequences", async () => {
    const f = fake([], { status: 400, body: '{"error":{"message":"bad \\u001b]0;owned\\u0007input\\u001b[2J"}}' });
    const e = await createEmbedder(cfg({ base_url: f.url, max_retries: 0 }), { env, baseDelayMs: 1 });
    const err = await e.embed(["hello"]).catch((x) => x);
    expect(err.message).toContain("bad input");
    expect(err.message).not.toMatch(/[\x00-\x1f]/);
  });

  test("garbage responses are rejected: wrong count, wrong dimension, non-numbers, zeros, not JSON", async () => {
    const cases: [string, string][] = [
      [JSON.stringify({ data: [] }), "0 embeddings for 1 inputs"],
      [JSON.stringify({ data: [{ index: 0, embedding: [1, 2, 3] }] }), "3-dimensional vector where 256 was expected"],
      [JSON.stringify({ data: [{ index: 0, embedding: new Array(256).fill("x") }] }), "non-number"],
      [JSON.stringify({ data: [{ index: 0, embedding: new Array(256).fill(0) }] }), "item 0 is a vector of zeros"],
      [JSON.stringify({ nope: true }), 'no `data` array (it answered: {"nope":true})'],
      // A gateway answering 200 with an error: its words, the key blanked out.
      [
        JSON.stringify({ error: { message: "model fake-embed is not loaded (key sk-test-secret)" } }),
        "no `data` array (it answered: model fake-embed is not loaded (key ",
      ],
      ["<html>oops</html>", "not JSON"],
    ];
    for (const [body, expected] of cases) {
      const f = fake([{ body }]);
      const e = await createEmbedder(cfg({ base_url: f.url }), { env });
      const err = await e.embed(["hello"]).catch((x) => x);
      expect(err).toBeInstanceOf(EmbedderResponseError);
      expect(err.message).toContain(expected);
      expect(err.message).not.toContain("sk-test-secret");
      expect(f.seen).toHaveLength(1);
    }
  });

  test("a server that answers a batch with one vector gets one text per request, from then on", async () => {
    // As some llama.cpp-based servers do: only the first input is embedded.
    const first = (req: { input: string[] }) => okBody(8)({ input: req.input.slice(0, 1) });
    const f = fake([], { body: first });
    const e = await createEmbedder(cfg({ base_url: f.url, dimensions: 8 }), { env });
    const out = await e.embed(["alpha", "beta", "gamma"]);
    const single = async (t: string) => (await e.embed([t]))[0]!;
    expect(out).toEqual([await single("alpha"), await single("beta"), await single("gamma")]);
    expect(out[0]).not.toEqual(out[1]);
    expect(f.seen.map((s) => s.json.input)).toEqual([
      ["alpha", "beta", "gamma"],
      ["alpha"],
      ["beta"],
      ["gamma"],
      ["alpha"],
      ["beta"],
      ["gamma"],
    ]);
    // Later batches go one text at a time without the batch request first.
    f.seen.length = 0;
    expect(await e.embed(["delta", "epsilon"])).toHaveLength(2);
    expect(f.seen.map((s) => s.json.input)).toEqual([["delta"], ["epsilon"]]);
  });

  test("a missing key is a config error before any request", async () => {
    const err = await createEmbedder(cfg({}), { env: {} }).catch((x) => x);
    expect(err).toBeInstanceOf(EmbedderConfigError);
    expect(err.message).toBe('embedder "openai" needs an API key: set OPENAI_API_KEY in the environment');
    const verr = await createEmbedder(cfg({ provider: "voyage" }), { env: {} }).catch((x) => x);
    expect(verr.message).toContain("VOYAGE_API_KEY");
  });

  test("a rejected key names the status and never echoes the key", async () => {
    const f = fake([
      { status: 401, body: JSON.stringify({ error: { message: "Incorrect API key provided: sk-test-secret" } }) },
    ]);
    const e = await createEmbedder(cfg({ base_url: f.url }), { env });
    const err = await e.embed(["x"]).catch((x) => x);
    expect(err).toBeInstanceOf(EmbedderRejectedError);
    expect(err.message).toContain("rejected the API key (401)");
    expect(err.message).not.toContain("sk-test-secret");
  });

  test("a 401 to a request sent without a key says which variable to set, not that the key was rejected", async () => {
    const f = fake([], { status: 401, body: '{"error":{"message":"Missing bearer token"}}' });
    // A server other than api.openai.com may need no key, so none is required before the request.
    const e = await createEmbedder(cfg({ base_url: f.url, dimensions: 8 }), { env: {} });
    const err = await e.embed(["x"]).catch((x) => x);
    expect(err).toBeInstanceOf(EmbedderConfigError);
    expect(err.message).toMatch(
      /^openai embeddings \(http:\/\/127\.0\.0\.1:\d+\/v1\/embeddings\) wants an API key \(401\) and none is set: set OPENAI_API_KEY in the environment$/,
    );
    const o = await createEmbedder(cfg({ provider: "ollama", base_url: f.url, dimensions: 8 }), { env: {} });
    expect(String(await o.embed(["x"]).catch((x) => x))).toContain(
      'wants an API key (401), which the ollama provider never sends: use provider = "openai" with OPENAI_API_KEY',
    );
  });

  test("an unreachable server fails fast with a clear message", async () => {
    const f = fake([]);
    const url = f.url;
    f.stop();
    const e = await createEmbedder(cfg({ provider: "ollama", base_url: `${url}/v1`, dimensions: 8 }), { env: {} });
    const err = await e.embed(["x"]).catch((x) => x);
    expect(err).toBeInstanceOf(EmbedderUnavailableError);
    expect(err.message).toMatch(/^cannot reach ollama embeddings \(http:\/\/127\.0\.0\.1:\d+\/v1\/embeddings\): /);
  });

  test("a connection closed before the answer is tried again; one closed every time fails naming it", async () => {
    // A keep-alive socket the server had just closed, a proxy restarting: the request is sent again.
    let requests = 0;
    let dropFirst = 1;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        requests++;
        if (requests <= dropFirst) return req.socket.destroy();
        const body = JSON.parse(Buffer.concat(chunks).toString()) as { input: string[] };
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify(okBody(8)(body)));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    stops.push(() => server.close());
    const port = (server.address() as AddressInfo).port;
    const e = await createEmbedder(cfg({ base_url: `http://127.0.0.1:${port}`, dimensions: 8, max_retries: 2 }), {
      env,
      baseDelayMs: 1,
    });
    expect(await e.embed(["alpha", "beta"])).toHaveLength(2);
    expect(requests).toBe(2);

    requests = 0;
    dropFirst = 100;
    const err = await e.embed(["gamma"]).catch((x) => x);
    expect(err).toBeInstanceOf(EmbedderUnavailableError);
    expect(err.message).toMatch(
      /^openai embeddings \(http:\/\/127\.0\.0\.1:\d+\/v1\/embeddings\) closed the connection before answering \(3 attempts\)$/,
    );
    expect(requests).toBe(3);
  });

  test("an answer cut off mid-way is asked again; one that stalls mid-way times out, naming the server", async () => {
    let requests = 0;
    let cutFirst = 1;
    let stall = false;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        requests++;
        const body = JSON.stringify(okBody(8)(JSON.parse(Buffer.concat(chunks).toString()) as { input: string[] }));
        res.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) });
        if (requests > cutFirst) return res.end(body);
        res.write(body.slice(0, 20));
        if (!stall) setTimeout(() => req.socket.destroy(), 20);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    stops.push(() => server.closeAllConnections());
    stops.push(() => server.close());
    const port = (server.address() as AddressInfo).port;
    const e = await createEmbedder(
      cfg({ base_url: `http://127.0.0.1:${port}`, dimensions: 8, max_retries: 2, timeout_ms: 300 }),
      { env, baseDelayMs: 1 },
    );
    expect(await e.embed(["alpha"])).toHaveLength(1);
    expect(requests).toBe(2);

    requests = 0;
    cutFirst = 100;
    const cut = await e.embed(["beta"]).catch((x) => x);
    expect(cut).toBeInstanceOf(EmbedderUnavailableError);
    expect(cut.message).toMatch(/^openai embeddings \(\S+\) closed the connection mid-answer \(3 attempts\)$/);

    stall = true;
    const stalled = await e.embed(["gamma"]).catch((x) => x);
    expect(stalled).toBeInstanceOf(EmbedderUnavailableError);
    expect(stalled.message).toMatch(/^openai embeddings \(\S+\) timed out after 300 ms$/);
  });

  test("a server that never answers times out", async () => {
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Promise<Response>(() => {}) });
    stops.push(() => server.stop(true));
    const e = await createEmbedder(
      cfg({ base_url: `http://127.0.0.1:${server.port}`, timeout_ms: 150, max_retries: 0 }),
      { env },
    );
    const err = await e.embed(["x"]).catch((x) => x);
    expect(err).toBeInstanceOf(EmbedderUnavailableError);
    expect(err.message).toContain("timed out after 150 ms");
  });

  test("ollama needs no key; an unknown model's dimension is learnt from the server", async () => {
    const f = fake([], { body: okBody(12) });
    const e = await createEmbedder(cfg({ provider: "ollama", base_url: f.url, model: "all-minilm" }), { env: {} });
    expect(e.id).toBe("ollama:all-minilm:12");
    expect(f.seen[0]!.headers.get("authorization")).toBeNull();
    expect(f.seen[0]!.json.dimensions).toBeUndefined();
  });
});

describe("voyage embedder", () => {
  test("uses input_type and output_dimension on its own wire shape", async () => {
    const f = fake([], { body: okBody(512) });
    const e = await createEmbedder(cfg({ provider: "voyage", base_url: f.url, dimensions: 512 }), { env });
    expect(e.id).toBe("voyage:voyage-3.5:512");
    await e.embed(["q"], undefined, "query");
    expect(f.seen[0]!.json).toMatchObject({
      model: "voyage-3.5",
      input: ["q"],
      input_type: "query",
      output_dimension: 512,
    });
    expect(f.seen[0]!.headers.get("authorization")).toBe("Bearer pa-voyage-secret");
  });
});

test("endpoint() accepts the API root, the server root or the full endpoint", () => {
  expect(endpoint("http://h:1/v1")).toBe("http://h:1/v1/embeddings");
  expect(endpoint("http://h:1/")).toBe("http://h:1/v1/embeddings");
  expect(endpoint("https://x/v1/embeddings")).toBe("https://x/v1/embeddings");
});

test("endpoint() keeps a query after the path it completes", () => {
  expect(endpoint("http://h:1/v1?api-version=2024-02-01")).toBe("http://h:1/v1/embeddings?api-version=2024-02-01");
  expect(endpoint("http://h:1/?a=1&b=2")).toBe("http://h:1/v1/embeddings?a=1&b=2");
  expect(endpoint("http://h:1?a=1")).toBe("http://h:1/v1/embeddings?a=1");
  expect(endpoint("https://x/openai/deployments/d/embeddings?api-version=1")).toBe(
    "https://x/openai/deployments/d/embeddings?api-version=1",
  );
  expect(endpoint("http://h:1/v1/#frag")).toBe("http://h:1/v1/embeddings");
});
