// MCP chat_history mode=sessions takes limit, as search and recent do: the most recently active sessions first.
import { afterAll, expect, test } from "bun:test";
import { openMemory } from "../../src/lib.ts";
import { sdkStdio } from "./mcp-client.ts";
import { entry, removeTempDirs, tempDir } from "./support.ts";

afterAll(removeTempDirs);

test("mode=sessions with limit gives that many, the most recently active first; offset pages on", async () => {
  const home = tempDir();
  const seeding = openMemory({ home, env: {} });
  for (const [i, session] of ["oldest", "middle", "newest"].entries())
    await seeding.add(session, { role: "user", content: `hello ${session}`, sendAt: `2026-05-0${i + 1}T09:00:00Z` });
  await seeding.close();
  const s = await sdkStdio(["bun", entry, "mcp", "--home", home]);
  try {
    const sessions = async (args: Record<string, unknown>) => {
      const r = (await s.client.callTool({ name: "chat_history", arguments: { mode: "sessions", ...args } })) as {
        structuredContent: { total: number; sessions: { id: string }[]; truncated?: boolean };
        isError?: boolean;
      };
      expect(r.isError).toBeUndefined();
      return r.structuredContent;
    };
    const first = await sessions({ limit: 2 });
    expect(first.sessions.map((x) => x.id)).toEqual(["newest", "middle"]);
    expect([first.total, first.truncated]).toEqual([3, undefined]);
    expect((await sessions({ limit: 2, offset: 2 })).sessions.map((x) => x.id)).toEqual(["oldest"]);
    expect((await sessions({ limit: "1" })).sessions.map((x) => x.id)).toEqual(["newest"]);
    expect((await sessions({})).sessions).toHaveLength(3);
  } finally {
    await s.close();
  }
}, 60_000);
