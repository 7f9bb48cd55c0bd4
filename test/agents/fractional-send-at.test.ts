// A message time given as fractional unix seconds (Python's time.time(), Date.now() / 1000) on every surface:
// read from its decimal text where the surface has it, to the nanosecond.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { cli, tempHome } from "../fixture/home.ts";
import { parseTime, parseTimeOrThrow, timeSpan } from "../../src/shared/time.ts";
import { sdkHttp } from "./mcp-client.ts";
import { connectTo, removeTempDirs, serveHome, TOKEN, type Served } from "./support.ts";

let s: Served;
beforeAll(() => {
  s = serveHome({ mcp: true });
});
afterAll(async () => {
  await s.close();
  removeTempDirs();
});

const at = (t: string) => parseTime(t);

test("a unix time with a fraction is read from its digits, its whole part's length giving the unit", () => {
  expect(at("1765000000.5")).toBe(1_765_000_000_500_000_000n);
  expect(at("1765000000.123456789")).toBe(1_765_000_000_123_456_789n);
  expect(at("1765000000.1234567891")).toBe(1_765_000_000_123_456_789n); // past the nanosecond: dropped
  expect(at("1765000000123.456")).toBe(1_765_000_000_123_456_000n); // milliseconds
  expect(at("1765000000123456.7")).toBe(1_765_000_000_123_456_700n); // microseconds
  expect(at("1.7650000005e9")).toBe(1_765_000_000_500_000_000n);
  expect(at("1765000000.")).toBeUndefined();
  expect(at("-1.5")).toBeUndefined();
  expect(timeSpan("1765000000.5")).toBe(100_000_000n);
  expect(() => parseTimeOrThrow("1765000000.5.1", "--at")).toThrow(
    'invalid --at "1765000000.5.1": use RFC 3339 (2026-05-01T09:30:00Z), local "2026-05-01 09:30[:00]", or unix seconds (a fraction allowed: 1765000000.5), ms, us or ns',
  );
});

test("add from stdin JSONL and --at take fractional seconds, exactly", async () => {
  const home = tempHome("frac-");
  const lines = [
    '{"role":"user","content":"py","sendAt":1765000000.123456789}',
    '{"role":"assistant","content":"js","sendAt":1765000000.5}',
  ];
  const r = await cli(["add", "f"], { home, stdin: `${lines.join("\n")}\n` });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect((await cli(["add", "f", "--role", "user", "--content", "flag", "--at", "1765000001.25"], { home })).code).toBe(
    0,
  );
  const h = JSON.parse((await cli(["history", "f", "--json"], { home })).stdout);
  expect(h.messages.map((m: { sendAt: string }) => m.sendAt)).toEqual([
    "2025-12-06T05:46:40.123456789Z",
    "2025-12-06T05:46:40.500000000Z",
    "2025-12-06T05:46:41.250000000Z",
  ]);
});

test("import jsonl takes a number sendAt, a fraction read from the line's text", async () => {
  const home = tempHome("frac-import-");
  const file = join(home, "in.jsonl");
  writeFileSync(
    file,
    '{"type":"session","id":"imp"}\n' +
      '{"type":"message","id":"m1","session":"imp","role":"user","content":"a","sendAt":1765000000.123456789}\n' +
      '{"type":"message","id":"m2","session":"imp","role":"user","content":"b","sendAt":1765000000123456789}\n',
  );
  const r = await cli(["import", "jsonl", file], { home });
  expect(r.code).toBe(0);
  const h = JSON.parse((await cli(["history", "imp", "--json"], { home })).stdout);
  expect(h.messages.map((m: { sendAt: string }) => m.sendAt)).toEqual([
    "2025-12-06T05:46:40.123456789Z",
    "2025-12-06T05:46:40.123456789Z",
  ]);
});

test("HTTP reads a fractional sendAt from the body's text; MCP and the library from the number", async () => {
  const body = '{"messages":[{"role":"user","content":"http","sendAt":1765000000.123456789}]}';
  const r = await s.fetch("/v1/sessions/fr/messages", {
    method: "POST",
    body,
    headers: { "content-type": "application/json" },
  });
  expect(r.status).toBe(200);
  const { client, close } = await sdkHttp(`${s.server.url}/mcp`, TOKEN);
  try {
    const add = (await client.callTool({
      name: "add_messages",
      arguments: { session: "fr", messages: [{ role: "user", content: "mcp", sendAt: 1765000001.5 }] },
    })) as { isError?: boolean };
    expect(add.isError).toBeUndefined();
  } finally {
    await close();
  }
  await s.local.add("fr", { role: "user", content: "lib", sendAt: 1765000002.25 });
  const remote = connectTo(s);
  await remote.add("fr", { role: "user", content: "lib-http", sendAt: 1765000003.75 });
  const stored = (await s.local.history("fr")).messages.map((m) => [m.content, m.sendAt]);
  expect(stored).toEqual([
    ["http", "2025-12-06T05:46:40.123456789Z"],
    ["mcp", "2025-12-06T05:46:41.500000000Z"],
    ["lib", "2025-12-06T05:46:42.250000000Z"],
    ["lib-http", "2025-12-06T05:46:43.750000000Z"],
  ]);
});
