// The loopback HTTP API: token, Host and Origin checks, health, bad input on every route, body limits,
// and the OpenAPI document against the router.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { ROUTES, pathParams } from "../../src/app/api/routes.ts";
import { openApiPath } from "../../src/http/openapi.ts";
import { HISTORY_PAGE } from "../../src/memory/history-pages.ts";
import { connectMemory, describeError, RemoteError } from "../../src/lib.ts";
import { connectTo, entry, removeTempDirs, serveHome, TOKEN, type Served } from "./support.ts";
import { processOutput } from "../fixture/process-output.ts";
import { waitFor } from "../fixture/home.ts";
import { parseTime } from "../../src/shared/time.ts";
import { holdWriterLock } from "../fixture/writer-lock-holder.ts";

let s: Served;
beforeAll(async () => {
  s = serveHome({ maxBodyBytes: 64 * 1024, mcp: true });
  const r = await s.fetch("/v1/sessions/s1/messages", {
    method: "POST",
    body: JSON.stringify({ messages: [{ role: "user", content: "hello there" }] }),
  });
  expect(r.status).toBe(200);
});
afterAll(async () => {
  await s.close();
  removeTempDirs();
});

const post = (path: string, body: unknown, init: RequestInit & { token?: string | null } = {}) =>
  s.fetch(path, {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: { "content-type": "application/json" },
    ...init,
  });

async function errorOf(r: Response, status: number): Promise<string> {
  expect(r.status).toBe(status);
  const body = (await r.json()) as { error: { message: string; status: number; code: string } };
  expect(body.error.status).toBe(status);
  expect(body.error.message).not.toContain("\n");
  return body.error.message;
}

describe("loopback safety", () => {
  test("the server binds 127.0.0.1 and prints a 127.0.0.1 URL", () => {
    expect(s.server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  test("[::1] on the same port serves too where the machine has an IPv6 loopback, with the same checks", async () => {
    const port = s.server.port;
    const v6 = "/proc/net/if_inet6";
    // No IPv6 loopback on this machine (or not Linux): 127.0.0.1 alone is the contract.
    if (!existsSync(v6) || !readFileSync(v6, "utf8").includes(`${"0".repeat(31)}1 `)) return;
    expect((await fetch(`http://[::1]:${port}/v1/health`)).status).toBe(200);
    expect(await errorOf(await fetch(`http://[::1]:${port}/v1/sessions`), 401)).toContain("unauthorized");
    const ok = await fetch(`http://[::1]:${port}/v1/sessions`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    const foreign = await fetch(`http://[::1]:${port}/v1/sessions`, {
      headers: { authorization: `Bearer ${TOKEN}`, origin: "http://evil.example" },
    });
    expect(foreign.status).toBe(403);
  });

  test("health answers without a token and says only that memvoy is up, with its version", async () => {
    const r = await s.fetch("/v1/health", { token: null });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ ok: true, name: "memvoy", version: "test" });
  });

  test("a missing or wrong token gets 401 with a JSON error, and nothing changes", async () => {
    expect(await errorOf(await s.fetch("/v1/sessions", { token: null }), 401)).toContain("unauthorized");
    expect(await errorOf(await s.fetch("/v1/sessions", { token: TOKEN + "x" }), 401)).toContain("unauthorized");
    expect(
      await errorOf(await s.fetch("/v1/sessions", { headers: { authorization: `Basic ${TOKEN}` } }), 401),
    ).toContain("unauthorized");
    await errorOf(
      await post("/v1/sessions/s1/messages", { messages: [{ role: "user", content: "sneaky" }] }, { token: "nope" }),
      401,
    );
    await errorOf(await post("/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" }, { token: null }), 401);
    expect((await s.local.history("s1")).messages).toHaveLength(1);
    // The library's user reads the same help, not a redaction mask over it.
    const wrong = connectMemory({ url: s.server.url, token: `Bearer ${TOKEN}` });
    const line = await wrong.sessions().then(
      () => "",
      (e: unknown) => describeError(e),
    );
    expect(line).toContain("unauthorized: send the token of <home>/http.json in an Authorization header");
    expect(line).not.toContain("REDACTED");
  });

  test("a foreign Host (DNS rebinding) or a foreign Origin gets 403, even with the token", async () => {
    const port = s.server.port;
    const viaHost = (host: string) =>
      new Promise<string>((resolve, reject) => {
        // fetch() sets Host from the URL; a raw request carries the foreign name as a rebinding attack would.
        const chunks: Buffer[] = [];
        const sock = require("node:net").connect(port, "127.0.0.1", () => {
          sock.write(
            `GET /v1/sessions HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n\r\n`,
          );
        });
        sock.on("data", (c: Buffer) => chunks.push(c));
        sock.on("end", () => resolve(Buffer.concat(chunks).toString()));
        sock.on("error", reject);
      });
    expect(await viaHost("evil.example:" + port)).toMatch(/^HTTP\/1\.1 403/);
    expect(await viaHost(`attacker.test`)).toMatch(/^HTTP\/1\.1 403/);
    expect(await viaHost(`localhost:${port}`)).toMatch(/^HTTP\/1\.1 200/);
    expect(
      await errorOf(await s.fetch("/v1/sessions", { headers: { origin: "https://evil.example" } }), 403),
    ).toContain("cross-origin");
    await errorOf(
      await post(
        "/v1/sessions/s1/messages",
        { messages: [{ role: "user", content: "x" }] },
        { headers: { origin: "http://evil.example", "content-type": "application/json" } },
      ),
      403,
    );
    expect((await s.fetch("/v1/sessions", { headers: { origin: `http://127.0.0.1:${port}` } })).status).toBe(200);
    expect((await s.local.history("s1")).messages).toHaveLength(1);
  });

  test("no wildcard CORS header is ever sent", async () => {
    const r = await s.fetch("/v1/sessions");
    expect(r.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("bad input on every route: 400 naming the field, 404, 413; nothing changes", () => {
  test("a bad session id (../x) on every session route", async () => {
    const bad = encodeURIComponent("../x");
    for (const [method, path, body] of [
      ["GET", `/v1/sessions/${bad}/history`],
      ["POST", `/v1/sessions/${bad}/messages`, { messages: [{ role: "user", content: "x" }] }],
      ["POST", `/v1/sessions/${bad}/context`, {}],
      ["GET", `/v1/sessions/${bad}/summary`],
      ["POST", `/v1/sessions/${bad}/reset`, {}],
      ["DELETE", `/v1/sessions/${bad}`],
    ] as const) {
      const r = await s.fetch(path, { method, body: body ? JSON.stringify(body) : undefined });
      expect(await errorOf(r, 400)).toContain("session");
    }
    expect(await errorOf(await post("/v1/search", { query: "x", session: "../x" }), 400)).toContain("session");
  });

  test("empty content, an unknown mode, a huge limit, a missing field, an unknown field", async () => {
    expect(
      await errorOf(await post("/v1/sessions/s1/messages", { messages: [{ role: "user", content: "" }] }), 400),
    ).toBe("add: message 1: content is empty");
    expect(await errorOf(await post("/v1/search", { query: "x", match: "fuzzy" }), 400)).toContain(
      "match must be keyword, semantic or hybrid",
    );
    expect(await errorOf(await post("/v1/search", { query: "x", limit: 10_000_000 }), 400)).toContain(
      "limit must be a whole number from 1 to 1000",
    );
    expect(await errorOf(await s.fetch("/v1/sessions/s1/history?last=99999999"), 400)).toContain(
      "last must be a whole number from 1 to 1000000",
    );
    expect(await errorOf(await s.fetch("/v1/errors?limit=5000000"), 400)).toContain(
      "limit must be a whole number from 1 to 1000000",
    );
    expect((await s.fetch("/v1/errors?limit=500000")).status).toBe(200); // as errors list --limit 500000 takes it
    expect(await errorOf(await s.fetch("/v1/messages/x/around?before=500"), 400)).toContain(
      "before must be a whole number from 0 to 50",
    );
    expect(await errorOf(await post("/v1/search", {}), 400)).toContain("query");
    expect(await errorOf(await post("/v1/search", { query: "x", colour: "red" }), 400)).toContain(
      "colour: unknown field",
    );
    expect(await errorOf(await post("/v1/errors", { tool: "git", error: "", fix: "x" }), 400)).toContain("error");
    expect(await errorOf(await post("/v1/errors/search", { query: "" }), 400)).toContain("query");
    expect(await errorOf(await post("/v1/messages/get", { ids: [] }), 400)).toContain("ids is empty");
    expect(await errorOf(await post("/v1/errors/hits", { ids: [] }), 400)).toBe("hitErrors: ids is empty");
    expect(await errorOf(await post("/v1/errors/hits", { ids: "abc" }), 400)).toBe(
      "hitErrors: ids must be a list of error record ids",
    );
    expect(await errorOf(await post("/v1/errors/hits", { ids: ["abc"], all: true }), 400)).toContain(
      "all: unknown field",
    );
    expect(await (await post("/v1/errors/hits", { ids: ["0badc0de"] })).json()).toEqual({ records: [] });
    expect(await errorOf(await s.fetch("/v1/sessions?sort=size"), 400)).toContain("sort must be recent or name");
  });

  test("sendAt: nanoseconds as a JSON number (past 2^53) get 400 naming the field; as a string they stay exact", async () => {
    const ns = "1764900000123456789";
    const asNumber = `{"messages":[{"role":"user","content":"number","sendAt":${ns}}]}`;
    expect(await errorOf(await post("/v1/sessions/ns/messages", asNumber), 400)).toBe(
      "add: message 1: sendAt as a number must be unix seconds (a fraction allowed), ms or us: a number past 2^53 (9007199254740991), such as nanoseconds, has lost digits in JSON; send it as a string",
    );
    const asText = await post("/v1/sessions/ns/messages", {
      messages: [{ role: "user", content: "text", sendAt: ns }],
    });
    expect(asText.status).toBe(200);
    const millis = await post("/v1/sessions/ns/messages", {
      messages: [{ role: "user", content: "millis", sendAt: 1764900000123 }],
    });
    expect(millis.status).toBe(200);
    const stored = (await s.local.history("ns")).messages.map((m) => [m.content, m.sendAt]);
    expect(stored).toEqual([
      ["text", "2025-12-05T02:00:00.123456789Z"],
      ["millis", "2025-12-05T02:00:00.123000000Z"],
    ]);
  });

  test("a time whose zone offset is no offset (+25:00, +05:99) gets 400, never a time moved by it", async () => {
    for (const t of ["2026-01-01T00:00:00+25:00", "2026-01-01T00:00:00+05:99", "2026-01-01T00:00:00-2400"]) {
      expect(parseTime(t)).toBeUndefined();
      const add = await post("/v1/sessions/zone/messages", { messages: [{ role: "user", content: "x", sendAt: t }] });
      expect(await errorOf(add, 400)).toContain(t);
      expect(await errorOf(await post("/v1/search", { query: "hello", since: t }), 400)).toContain(t);
    }
    expect(parseTime("2026-01-01T00:00:00+23:59")).toBe(parseTime("2025-12-31T00:01:00Z"));
    expect(parseTime("2026-01-01T00:00:00-0530")).toBe(parseTime("2026-01-01T05:30:00Z"));
    expect((await s.local.sessions()).map((x) => x.id)).not.toContain("zone");
  });

  test("history with both all=true and last is refused, as the CLI refuses --all with --last", async () => {
    expect(await errorOf(await s.fetch("/v1/sessions/s1/history?all=true&last=1"), 400)).toBe(
      "history: give all or last, not both",
    );
    const r = (await (await s.fetch("/v1/sessions/s1/history?all=false&last=1")).json()) as { messages: unknown[] };
    expect(r.messages).toHaveLength(1);
  });

  test("a sendAt in the years 0-99 is out of range, not read as 1900-1999", async () => {
    const r = await post("/v1/sessions/year80/messages", {
      messages: [{ role: "user", content: "x", sendAt: "0080-06-01T00:00:00Z" }],
    });
    expect(await errorOf(r, 400)).toContain("out of range: use a time from 1970-01-01T00:00:00Z");
    expect(parseTime("0080-06-01 10:00")).toBeUndefined();
    expect(parseTime("1999-06-01T00:00:00Z")).toBe(BigInt(Date.UTC(1999, 5, 1)) * 1_000_000n);
    expect((await s.local.sessions()).map((x) => x.id)).not.toContain("year80");
  });

  test("a search bound written as a date before 1970 or past 2262 is the first or last time stored, not refused", async () => {
    await s.local.add("bounds", [{ role: "user", content: "aardvark sighting" }]);
    const search = async (bounds: Record<string, string>) =>
      (await (await post("/v1/search", { query: "aardvark", ...bounds })).json()) as { hits: unknown[] };
    expect((await search({ since: "1900-01-01", until: "2300-12-31" })).hits).toHaveLength(1);
    expect((await search({ until: "1969-12-31" })).hits).toHaveLength(0);
    const api = connectTo(s);
    expect((await api.search({ query: "aardvark", since: "1800-01-01T00:00:00Z" })).hits).toHaveLength(1);
  });

  test("a boolean in the query string as other languages spell it: True and False (Python, .NET), 1 and 0", async () => {
    // Python's requests sends params={"all": True} as all=True.
    await s.local.add("flags", [
      { role: "user", content: "first" },
      { role: "assistant", content: "second" },
    ]);
    const count = async (query: string) =>
      ((await (await s.fetch(`/v1/sessions/flags/history?${query}`)).json()) as { messages: unknown[] }).messages
        .length;
    expect(await count("all=True")).toBe(2);
    expect(await count("all=TRUE")).toBe(2);
    expect(await count("all=False&last=1")).toBe(1);
    expect(await count("all=0&last=1")).toBe(1);
    expect(await errorOf(await s.fetch("/v1/sessions/flags/history?all=yes"), 400)).toBe(
      "history: all must be true or false",
    );
    const [id] = (await s.local.add("flags", [{ role: "user", content: "third" }])).ids;
    const r = (await (await s.fetch(`/v1/messages/${id}?dropSummary=False`, { method: "DELETE" })).json()) as {
      summaryRemoved: boolean;
    };
    expect(r.summaryRemoved).toBe(false);
  });

  test("history of a large session is sent a page at a time, the same JSON as the library's", async () => {
    const n = HISTORY_PAGE + 5;
    for (let i = 0; i < n; i += 2_000)
      await s.local.add(
        "big",
        Array.from({ length: Math.min(2_000, n - i) }, (_, k) => ({
          role: "user" as const,
          content: `line ${i + k} é 日本`,
        })),
      );
    const whole = JSON.stringify(await s.local.history("big", { all: true }));
    const r = await s.fetch("/v1/sessions/big/history?all=true");
    expect(r.status).toBe(200);
    // Streamed: no length is known before the last page is read.
    expect(r.headers.get("content-length")).toBeNull();
    const reader = r.body!.getReader();
    const chunks: Uint8Array[] = [];
    for (let c = await reader.read(); !c.done; c = await reader.read()) {
      chunks.push(c.value);
      // A message added while the answer is under way is not in it, as in one read.
      if (chunks.length === 1) await s.local.add("big", { role: "user", content: "added meanwhile" });
    }
    expect(Buffer.concat(chunks).toString("utf8")).toBe(whole);
    // A client that stops reading midway leaves the server answering.
    const cut = await s.fetch("/v1/sessions/big/history?all=true");
    const cutReader = cut.body!.getReader();
    await cutReader.read();
    await cutReader.cancel();
    expect((await s.fetch("/v1/sessions/big/history?last=2")).status).toBe(200);
    await s.local.rm("big");
  });

  test("a POST with its fields in the query string (reset?all=true) gets 400 naming them; nothing changes", async () => {
    await post("/v1/sessions/q1/messages", { messages: [{ role: "user", content: "kept" }] });
    const r = await post("/v1/sessions/q1/reset?all=true", {});
    expect(await errorOf(r, 400)).toBe("reset: all: give it in the JSON body, not in the query string");
    expect((await s.local.history("q1")).messages).toHaveLength(1);
    for (const route of ROUTES.filter((x) => x.method === "POST")) {
      const path = route.path.replace(/:\w+/g, "q1");
      expect(await errorOf(await post(`${path}?limit=5&x=1`, {}), 400)).toContain(
        "limit: give it in the JSON body, not in the query string; x: give it",
      );
    }
    expect((await s.local.history("q1")).messages).toHaveLength(1);
  });

  test("a body or query string naming another session or id than the path gets 400 naming it; nothing changes", async () => {
    const messages = [{ role: "user", content: "where does this go" }];
    const r = await post("/v1/sessions/path-one/messages", { session: "body-two", messages });
    expect(await errorOf(r, 400)).toBe(
      'add: session: the path names "path-one" and the body "body-two": give it in the path only',
    );
    const names = (await s.local.sessions()).map((x) => x.id);
    expect(names).not.toContain("path-one");
    expect(names).not.toContain("body-two");
    // The same name in both says nothing else.
    expect((await post("/v1/sessions/path-one/messages", { session: "path-one", messages })).status).toBe(200);
    expect(await errorOf(await s.fetch("/v1/sessions/path-one/history?session=s1"), 400)).toContain(
      'history: session: the path names "path-one" and the query string "s1"',
    );
    const [id] = (await s.local.history("path-one")).messages.map((m) => m.id);
    expect(await errorOf(await s.fetch(`/v1/messages/${id}?id=other`, { method: "DELETE" }), 400)).toContain(
      "rm-message: id: the path names",
    );
    expect((await s.local.history("path-one")).messages).toHaveLength(1);
  });

  test("a GET or DELETE given a field twice (?tool=git&tool=npm) gets 400 naming it; nothing changes", async () => {
    await s.local.recordError({ tool: "git", error: "fatal: not a git repository", fix: "cd into the repo" });
    expect(await errorOf(await s.fetch("/v1/errors?tool=git&tool=npm"), 400)).toBe(
      "errors list: tool: given more than once: give it once (it takes one value)",
    );
    expect(await errorOf(await s.fetch("/v1/sessions/s1/history?last=1&last=2"), 400)).toContain("last: given more");
    const [id] = (await s.local.add("twice", [{ role: "user", content: "kept" }])).ids;
    const r = await s.fetch(`/v1/messages/${id}?dropSummary=false&dropSummary=true`, { method: "DELETE" });
    expect(await errorOf(r, 400)).toContain("rm-message: dropSummary: given more than once");
    expect((await s.local.history("twice")).messages).toHaveLength(1);
    expect((await s.fetch("/v1/errors?tool=git")).status).toBe(200);
  });

  test("a DELETE or GET with a body (dropSummary in the body) gets 400 naming the field; nothing changes", async () => {
    const [id] = (await s.local.add("b1", [{ role: "user", content: "to remove" }])).ids;
    const r = await s.fetch(`/v1/messages/${id}`, {
      method: "DELETE",
      body: JSON.stringify({ dropSummary: true }),
      headers: { "content-type": "application/json" },
    });
    expect(await errorOf(r, 400)).toBe("rm-message: dropSummary: give it in the query string, not in the body");
    expect(await errorOf(await s.fetch("/v1/sessions/b1", { method: "DELETE", body: "x" }), 400)).toBe(
      "rm: DELETE takes no body: give its fields in the query string",
    );
    expect((await s.local.history("b1")).messages).toHaveLength(1);
    // An empty body is no body.
    expect((await s.fetch(`/v1/messages/${id}?dropSummary=true`, { method: "DELETE", body: "" })).status).toBe(200);
  });

  test("a GET with a body (as requests.get(url, json=...) sends it) gets 400, not an answer that left the body unread", async () => {
    // fetch() sends no GET body: the request is written by hand.
    const get = async (path: string, body: string) => {
      const chunks: Uint8Array[] = [];
      const closed = Promise.withResolvers<void>();
      const socket = await Bun.connect({
        hostname: "127.0.0.1",
        port: s.server.port,
        socket: { data: (_, d) => void chunks.push(d), close: () => closed.resolve(), error: () => closed.resolve() },
      });
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${s.server.port}\r\nAuthorization: Bearer ${TOKEN}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      await closed.promise;
      const text = Buffer.concat(chunks).toString();
      return { status: Number(text.split(" ")[1]), body: text.slice(text.indexOf("\r\n\r\n") + 4) };
    };
    const r = await get("/v1/sessions/s1/history", JSON.stringify({ all: true }));
    expect(r.status).toBe(400);
    expect(r.body).toContain("history: GET takes no body: give its fields in the query string");
    expect((await get("/v1/errors", "")).status).toBe(200);
  });

  test("a body that is not JSON, or not an object, on every POST route", async () => {
    for (const r of ROUTES.filter((x) => x.method === "POST")) {
      const path = r.path.replace(/:\w+/g, "s1");
      expect(await errorOf(await post(path, "{not json"), 400)).toContain("not valid JSON");
      expect(await errorOf(await post(path, "[1,2]"), 400)).toContain("JSON object");
    }
  });

  test("a body that is not UTF-8 (a Latin-1 file sent as it is) gets 400 on every POST route and /mcp; nothing is stored", async () => {
    const latin1 = (json: string) => Uint8Array.from(json, (c) => c.charCodeAt(0)); // "é" as the one byte 0xE9
    const add = latin1('{"messages":[{"role":"user","content":"caf\u00e9 cr\u00e8me"}]}');
    const postBytes = (path: string, body: Uint8Array, accept = "application/json") =>
      s.fetch(path, { method: "POST", body, headers: { "content-type": "application/json", accept } });
    for (const r of ROUTES.filter((x) => x.method === "POST")) {
      const path = r.path.replace(/:\w+/g, "latin");
      expect(await errorOf(await postBytes(path, add), 400)).toBe(
        "the body is not valid UTF-8 (JSON is sent as UTF-8); nothing was written",
      );
    }
    const call = latin1(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add_messages","arguments":{"session":"latin","messages":[{"role":"user","content":"caf\u00e9"}]}}}',
    );
    const mcp = await postBytes("/mcp", call, "application/json, text/event-stream");
    expect(await errorOf(mcp, 400)).toContain("not valid UTF-8");
    expect((await s.local.sessions()).map((x) => x.id)).not.toContain("latin");
    // the same text as UTF-8 is stored exactly
    const utf8 = await post("/v1/sessions/latin/messages", new TextDecoder("latin1").decode(add));
    expect(utf8.status).toBe(200);
    expect((await s.local.history("latin")).messages[0]!.content).toBe("caf\u00e9 cr\u00e8me");
  });

  test("a body over max_body_bytes gets 413 (10 MB), with or without a Content-Length", async () => {
    const huge = JSON.stringify({ messages: [{ role: "user", content: "x".repeat(10 * 1024 * 1024) }] });
    expect(await errorOf(await post("/v1/sessions/s1/messages", huge), 413)).toContain("max_body_bytes");
    const stream = new ReadableStream({
      start(c) {
        for (let i = 0; i < 20; i++) c.enqueue(new TextEncoder().encode("x".repeat(8192)));
        c.close();
      },
    });
    expect(
      await errorOf(
        await s.fetch("/v1/search", { method: "POST", body: stream, headers: { "content-type": "application/json" } }),
        413,
      ),
    ).toContain("max_body_bytes");
    expect((await s.local.history("s1")).messages).toHaveLength(1);
  });

  test("unknown sessions, messages and error ids get 404; unknown routes too", async () => {
    expect(await errorOf(await s.fetch("/v1/sessions/nobody/history"), 404)).toContain("nobody");
    expect(await errorOf(await post("/v1/search", { query: "hi", session: "nobody" }), 404)).toContain("nobody");
    for (const match of ["semantic", "hybrid"])
      expect(await errorOf(await post("/v1/search", { query: "hi", session: "nobody", match }), 404)).toContain(
        "nobody",
      );
    expect(await errorOf(await s.fetch("/v1/messages/01ABC/around"), 404)).toContain("01ABC");
    expect(await errorOf(await s.fetch("/v1/errors/zzzz"), 404)).toContain("zzzz");
    await errorOf(await s.fetch("/v1/nope"), 404);
  });

  test("an error line cut at its limit never ends in half an emoji", async () => {
    for (const pad of ["", "x"]) {
      const message = await errorOf(await post("/v1/search", { query: "x", since: pad + "😀".repeat(600) }), 400);
      expect(message.length).toBeGreaterThanOrEqual(999);
      expect(message.isWellFormed()).toBe(true);
    }
  });

  test("connectMemory refuses a url that is not http(s) at once, naming it", () => {
    for (const url of ["localhost:7411", "127.0.0.1:7411", "ftp://127.0.0.1:7411"])
      expect(() => connectMemory({ url, token: TOKEN })).toThrow(
        `connectMemory: url ${JSON.stringify(url)} is not an http:// URL (e.g. http://127.0.0.1:7411)`,
      );
  });

  test("connectMemory refuses a timeoutMs that is no duration at once (not a TypeError at each call); Infinity is none", async () => {
    for (const timeoutMs of [-1, 0, Number.NaN, "5000" as unknown as number])
      expect(() => connectMemory({ url: s.server.url, token: TOKEN, timeoutMs })).toThrow(
        `connectMemory: timeoutMs ${String(timeoutMs)} is not a number of milliseconds above 0 (Infinity: no timeout)`,
      );
    const api = connectMemory({ url: s.server.url, token: TOKEN, timeoutMs: Number.POSITIVE_INFINITY });
    expect((await api.history("s1")).messages.length).toBeGreaterThan(0);
  });

  test("a path segment is decoded once: an id holding % or %41 is that very id, never a 500", async () => {
    expect(await errorOf(await s.fetch("/v1/messages/50%25/around"), 404)).toContain('"50%"');
    expect(await errorOf(await s.fetch("/v1/messages/x%2541", { method: "DELETE" }), 404)).toContain('"x%41"');
    expect(await errorOf(await s.fetch("/v1/errors/%25"), 404)).toContain('"%"');
    await errorOf(await s.fetch("/v1/sessions/%25/history"), 400);
    const remote = connectTo(s);
    await expect(remote.rmMessage("100%")).rejects.toThrow('no message "100%"');
    await expect(remote.around("x%41")).rejects.toThrow('no message "x%41"');
  });

  test('a literal path hides no route of its shape: a message whose id is "get" is removed over HTTP and connectMemory', async () => {
    const file = join(s.home, "get.jsonl");
    writeFileSync(
      file,
      [
        { type: "session", id: "literal" },
        {
          type: "message",
          id: "get",
          session: "literal",
          role: "user",
          content: "pasted secret",
          sendAt: "2026-01-01T00:00:00.000000000Z",
        },
        {
          type: "message",
          id: "search",
          session: "literal",
          role: "user",
          content: "another",
          sendAt: "2026-01-01T00:00:01.000000000Z",
        },
      ]
        .map((l) => JSON.stringify(l))
        .join("\n") + "\n",
    );
    const imported = await processOutput(
      Bun.spawn(["bun", entry, "import", "jsonl", file, "--home", s.home], { stdout: "pipe", stderr: "pipe" }),
    );
    expect(imported.stderr).toBe("");
    expect(imported.code).toBe(0);
    const r = await s.fetch("/v1/messages/get", { method: "DELETE" });
    expect(r.status).toBe(200);
    expect(((await r.json()) as { id: string }).id).toBe("get");
    await connectTo(s).rmMessage("search");
    expect((await s.local.history("literal", { all: true })).messages).toEqual([]);
    // An error id that is the literal segment of another route is an unknown id, as locally.
    expect(await errorOf(await s.fetch("/v1/errors/search"), 404)).toContain('"search"');
    await expect(connectTo(s).getError("search")).rejects.toThrow('"search" is not an error id');
    const wrong = await s.fetch("/v1/messages/get", { method: "PUT" });
    expect(wrong.headers.get("allow")).toBe("POST, DELETE");
  });

  test("a method a route does not serve gets 405 with Allow (401 first without the token); nothing changes", async () => {
    const wrong = async (method: string, path: string, allow: string) => {
      const r = await s.fetch(path, { method });
      expect(r.headers.get("allow")).toBe(allow);
      expect(await errorOf(r, 405)).toBe(`${method} is not allowed on ${path}; use ${allow}`);
    };
    await wrong("POST", "/v1/sessions", "GET");
    await wrong("PUT", "/v1/sessions/s1/messages", "POST");
    await wrong("DELETE", "/v1/sessions/s1/history", "GET");
    await wrong("PATCH", "/v1/errors/zzzz", "GET, DELETE");
    await wrong("POST", "/v1/health", "GET");
    // OPTIONS on a route that exists says which methods it takes (no CORS: a browser page gets nothing more).
    await wrong("OPTIONS", "/v1/sessions", "GET");
    await wrong("OPTIONS", "/v1/errors/zzzz", "GET, DELETE");
    // /mcp serves POST alone (no session stream to GET, no session to DELETE), and says so to every other method.
    for (const method of ["GET", "DELETE", "PUT"]) await wrong(method, "/mcp", "POST");
    await errorOf(await s.fetch("/v1/sessions/s1", { method: "POST", token: null }), 401);
    expect((await s.local.history("s1")).messages).toHaveLength(1);
  });
});

/** Another process (an import, a CLI add) holds the home's writer lock until told to let go, 5 s at the latest. */
const holdLock = () => holdWriterLock(s.home, 5_000, { transaction: false });

describe("a write waiting for another process's writer lock", () => {
  test("does not freeze the server: other requests are answered meanwhile, and the write lands once the lock is free", async () => {
    const holder = await holdLock();
    const adding = s.local.add("locked", { role: "user", content: "written once the lock is free" });
    expect((await s.fetch("/v1/health")).status).toBe(200);
    expect((await s.fetch("/v1/sessions")).status).toBe(200);
    expect(holder.proc.exitCode).toBeNull(); // answered while the lock was still held
    await holder.release();
    expect((await adding).ids).toHaveLength(1);
    expect((await s.local.history("locked")).messages).toHaveLength(1);
  });

  test("connectMemory past its timeoutMs says the daemon did not answer in time, not that it cannot be reached", async () => {
    const holder = await holdLock();
    const api = connectMemory({ url: s.server.url, token: TOKEN, timeoutMs: 200 });
    const err = await api.add("slow", { role: "user", content: "stored after the client gave up" }).then(
      () => undefined,
      (e) => e,
    );
    expect(err).toBeInstanceOf(RemoteError);
    expect((err as RemoteError).data).toEqual({ problem: "timeout", base: s.server.url, timeoutMs: 200 });
    expect((err as Error).message).toBe(
      `memvoy at ${s.server.url} did not answer within 200 ms (timeoutMs): the request may still be carried out (retry an add with the same idempotencyKey)`,
    );
    await holder.release();
    // The request had reached the daemon: the write lands once the lock is free.
    const stored = () =>
      s.local.history("slow").then(
        (h) => h.messages.map((m) => m.content),
        () => [],
      );
    await waitFor(async () => (await stored()).length > 0, 15_000, "the add to land once the lock is free");
    expect(await stored()).toEqual(["stored after the client gave up"]);
  });
});

describe("OpenAPI 3.1", () => {
  test("the document is valid OpenAPI 3.1 and its operations are exactly the router's", async () => {
    const r = await s.fetch("/v1/openapi.json");
    expect(r.status).toBe(200);
    const doc = (await r.json()) as any;
    expect(doc.openapi).toBe("3.1.0");
    const verdict = await new Validator().validate(structuredClone(doc));
    expect(verdict.errors ?? []).toEqual([]);
    expect(verdict.valid).toBe(true);
    expect(doc.info.title).toBe("memvoy");
    // A client generated from the document reaches this server (the port is the home's), with the token everywhere
    // but /v1/health.
    expect(doc.servers).toEqual([{ url: s.server.url }]);
    const health = await fetch(`${doc.servers[0].url}/v1/health`);
    expect(health.status).toBe(200);
    const operations = doc.paths as Record<string, Record<string, { security?: unknown }>>;
    for (const [path, item] of Object.entries(operations))
      for (const op of Object.values(item))
        expect([path, op.security ?? doc.security]).toEqual([path, path === "/v1/health" ? [] : [{ bearer: [] }]]);
    const ops = new Set<string>();
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      expect(path.startsWith("/")).toBe(true);
      for (const [method, op] of Object.entries<any>(item)) {
        expect(["get", "post", "delete"]).toContain(method);
        expect(typeof op.operationId).toBe("string");
        expect(op.responses["200"] ?? op.responses["401"]).toBeDefined();
        const declared = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
        const params = (op.parameters ?? []).filter((p: any) => p.in === "path").map((p: any) => p.name);
        expect(params.sort()).toEqual(declared.sort());
        for (const p of op.parameters ?? []) expect(p.schema && typeof p.schema).toBe("object");
        if (op.requestBody) expect(op.requestBody.content["application/json"].schema.type).toBe("object");
        ops.add(`${method.toUpperCase()} ${path}`);
      }
    }
    // The limits the API enforces are in the document.
    const body = (path: string) => doc.paths[path].post.requestBody.content["application/json"].schema.properties;
    expect(body("/v1/search").query.maxLength).toBe(10_000);
    const record = body("/v1/errors");
    expect([record.error.maxLength, record.fix.maxLength, record.tool.maxLength]).toEqual([65_536, 65_536, 128]);
    expect([record.keywords.maxItems, record.keywords.items.maxLength]).toEqual([32, 64]);
    expect(body("/v1/errors/search").query.maxLength).toBe(65_536);
    const router = new Set(ROUTES.map((x) => `${x.method} ${openApiPath(x.path)}`));
    router.add("GET /v1/health").add("GET /v1/openapi.json").add("POST /mcp");
    expect([...ops].sort()).toEqual([...router].sort());
    // every route of the table answers (not 404) at its documented path
    for (const x of ROUTES) {
      const path = x.path.replace(/:\w+/g, (m) => (pathParams(x.path).includes(m.slice(1)) ? "s1" : m));
      const res = await s.fetch(path, { method: x.method, body: x.method === "POST" ? "{}" : undefined });
      expect(res.status === 404 ? `${x.method} ${x.path}: ${await res.text()}` : "ok").not.toContain("no route");
    }
  });
});
