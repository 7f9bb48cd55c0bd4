// MCP Streamable HTTP at /mcp: the real SDK client with the bearer token, and a plain 2025-06-18 JSON-RPC
// client posting one message at a time.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { httpRpc, PROTOCOL, sdkHttp } from "./mcp-client.ts";
import { removeTempDirs, serveHome, TOKEN, type Served } from "./support.ts";

let s: Served;
beforeAll(() => {
  s = serveHome({ mcp: true });
});
afterAll(async () => {
  await s.close();
  removeTempDirs();
});

test("the SDK client over Streamable HTTP: tools/list, add_messages, chat_history, a bad argument", async () => {
  const { client, close } = await sdkHttp(`${s.server.url}/mcp`, TOKEN);
  try {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "add_messages",
      "chat_history",
      "error_memory",
      "session_context",
      "summary",
    ]);
    for (const t of tools) expect(Object.keys(t.inputSchema.properties ?? {}).length).toBeGreaterThan(0);
    const add = (await client.callTool({
      name: "add_messages",
      arguments: {
        session: "web",
        messages: [{ role: "user", content: "rotate the TLS certificate on the edge proxy" }],
      },
    })) as any;
    expect(add.structuredContent.ids).toHaveLength(1);
    const found = (await client.callTool({
      name: "chat_history",
      arguments: { mode: "search", query: "certificate", match: "keyword" },
    })) as any;
    expect(found.structuredContent.rows[0].id).toBe(add.structuredContent.ids[0]);
    const bad = (await client.callTool({
      name: "chat_history",
      arguments: { mode: "search", query: "x", limit: 1e9 },
    })) as any;
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toContain("limit must be a whole number from 1 to 100");
  } finally {
    await close();
  }
  expect((await s.local.history("web")).messages).toHaveLength(1);
});

test("a plain JSON-RPC client (2025-06-18) over HTTP: initialize, initialized, tools/list, tools/call", async () => {
  const url = `${s.server.url}/mcp`;
  const init = await httpRpc(url, TOKEN, {
    id: 1,
    method: "initialize",
    params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "plain", version: "1" } },
  });
  expect(init.status).toBe(200);
  expect(init.body.result.protocolVersion).toBe(PROTOCOL);
  const headers = { "mcp-protocol-version": PROTOCOL };
  const note = await httpRpc(url, TOKEN, { method: "notifications/initialized" }, headers);
  expect(note.status).toBeLessThan(300);
  const list = await httpRpc(url, TOKEN, { id: 2, method: "tools/list" }, headers);
  expect(list.body.result.tools).toHaveLength(5);
  const called = await httpRpc(
    url,
    TOKEN,
    { id: 3, method: "tools/call", params: { name: "chat_history", arguments: { mode: "sessions" } } },
    headers,
  );
  expect(called.body.result.structuredContent.sessions.map((x: any) => x.id)).toContain("web");
  const unauth = await httpRpc(url, "wrong", { id: 4, method: "tools/list" }, headers);
  expect(unauth.status).toBe(401);
});

test('/mcp: "params": null and a tools/call\'s "arguments": null (as some clients send "none") read as left out', async () => {
  const url = `${s.server.url}/mcp`;
  const headers = { "mcp-protocol-version": PROTOCOL };
  const list = await httpRpc(url, TOKEN, { id: 1, method: "tools/list", params: null }, headers);
  expect(list.body.result.tools).toHaveLength(5);
  const ping = await httpRpc(url, TOKEN, { id: 2, method: "ping", params: null }, headers);
  expect(ping.body.result).toEqual({});
  const call = await httpRpc(
    url,
    TOKEN,
    { id: 3, method: "tools/call", params: { name: "chat_history", arguments: null } },
    headers,
  );
  expect(call.body.result).toEqual({
    content: [{ type: "text", text: "chat_history: mode: missing." }],
    isError: true,
  });
});

test("/mcp: a body that is not JSON gets a JSON-RPC parse error, a 10 MB body gets 413; the server lives on", async () => {
  const url = `${s.server.url}/mcp`;
  const post = (body: string) =>
    fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body,
    });
  const garbage = await post("{not json");
  expect(garbage.status).toBeGreaterThanOrEqual(400);
  expect(garbage.status).toBeLessThan(500);
  expect(await garbage.text()).toMatch(/parse|json/i);
  const huge = await post(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "add_messages",
        arguments: { session: "web", messages: [{ role: "user", content: "x".repeat(10 * 1024 * 1024) }] },
      },
    }),
  );
  expect(huge.status).toBe(413);
  const list = await httpRpc(url, TOKEN, { id: 2, method: "tools/list" }, { "mcp-protocol-version": PROTOCOL });
  expect(list.body.result.tools).toHaveLength(5);
});

test("/mcp takes bodies up to [http] max_body_bytes (8 MiB here, past the SDK's 4 MiB); over it, the documented 413 body", async () => {
  const url = `${s.server.url}/mcp`;
  const headers = {
    authorization: `Bearer ${TOKEN}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": PROTOCOL,
  };
  const call = (id: number, mib: number) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: {
        name: "add_messages",
        arguments: {
          session: "five",
          messages: Array.from({ length: mib }, () => ({ role: "user", content: "w".repeat(1024 * 1024 - 64) })),
        },
      },
    });
  const five = await fetch(url, { method: "POST", headers, body: call(3, 5) });
  expect(five.status).toBe(200);
  expect(await five.text()).toContain('\\"ids\\"');
  expect((await s.local.history("five", { all: true })).messages).toHaveLength(5);
  const documented = async (r: Response) => {
    expect(r.status).toBe(413);
    const body = (await r.json()) as { error: { code: string; message: string; status: number } };
    expect(body.error.status).toBe(413);
    expect(body.error.message).toContain("max_body_bytes (8388608)");
  };
  await documented(await fetch(url, { method: "POST", headers, body: call(4, 9) }));
  // Without a Content-Length (streamed): the limit holds as the body comes in.
  const bytes = new TextEncoder().encode(call(5, 9));
  const stream = new ReadableStream({
    start(c) {
      for (let i = 0; i < bytes.length; i += 1 << 20) c.enqueue(bytes.subarray(i, i + (1 << 20)));
      c.close();
    },
  });
  await documented(await fetch(url, { method: "POST", headers, body: stream }));
  expect((await s.local.history("five", { all: true })).messages).toHaveLength(5);
});
