// memvoy mcp over stdio from source; 4 concurrent servers on one home; lost writes are none.
import { afterAll, expect, test } from "bun:test";
import { openMemory } from "../../src/lib.ts";
import { mcpStdioCases } from "./mcp.case.ts";
import { sdkStdio } from "./mcp-client.ts";
import { entry, removeTempDirs, tempDir } from "./support.ts";

afterAll(removeTempDirs);

mcpStdioCases("from source", async () => ["bun", entry]);

test("4 concurrent stdio servers on one home, each adding 15 messages to one session: all 60 stored once", async () => {
  const home = tempDir();
  const servers = await Promise.all([0, 1, 2, 3].map(() => sdkStdio(["bun", entry, "mcp", "--home", home])));
  try {
    await Promise.all(
      servers.map(async (s, n) => {
        for (let i = 0; i < 15; i++) {
          const r = await s.client.callTool({
            name: "add_messages",
            arguments: {
              session: "shared",
              messages: [{ role: i % 2 ? "assistant" : "user", content: `server ${n} message ${i}` }],
            },
          });
          expect(r.isError, JSON.stringify(r.content)).toBeUndefined();
        }
      }),
    );
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
  const api = openMemory({ home, env: {} });
  const all = (await api.history("shared", { all: true })).messages;
  expect(all).toHaveLength(60);
  expect(new Set(all.map((m) => m.content)).size).toBe(60);
  for (let n = 0; n < 4; n++) {
    const mine = all.filter((m) => m.content.startsWith(`server ${n} `)).map((m) => Number(m.content.split(" ").pop()));
    expect(mine).toEqual(Array.from({ length: 15 }, (_, i) => i));
  }
  await api.close();
}, 120_000);
