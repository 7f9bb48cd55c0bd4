// MCP chat_history mode=recent under max_chars keeps the newest messages, as session_context does: the last one
// said is the one an agent asks for them for.
import { afterAll, expect, test } from "bun:test";
import { openMemory } from "../../src/lib.ts";
import { sdkStdio } from "./mcp-client.ts";
import { entry, removeTempDirs, tempDir } from "./support.ts";

afterAll(removeTempDirs);

test("mode=recent cut by max_chars keeps the newest messages in order; next_offset pages back to the oldest", async () => {
  const home = tempDir();
  const seeding = openMemory({ home, env: {} });
  const { ids } = await seeding.add(
    "talk",
    Array.from({ length: 10 }, (_, i) => ({
      role: i % 2 ? ("assistant" as const) : ("user" as const),
      content: `turn ${i} ${"words ".repeat(150)}`,
    })),
  );
  await seeding.close();
  const s = await sdkStdio(["bun", entry, "mcp", "--home", home]);
  try {
    const pages: string[][] = [];
    for (let offset: number | undefined = 0; offset !== undefined; ) {
      expect(pages.length).toBeLessThan(20);
      const r = (await s.client.callTool({
        name: "chat_history",
        arguments: { mode: "recent", session: "talk", limit: 10, max_chars: 2500, offset },
      })) as { structuredContent: { messages: { id: string }[]; next_offset?: number; truncated?: boolean } };
      expect(JSON.stringify(r.structuredContent).length).toBeLessThanOrEqual(2500);
      pages.push(r.structuredContent.messages.map((m) => m.id));
      offset = r.structuredContent.next_offset;
    }
    expect(pages.length).toBeGreaterThan(2);
    // The first page ends with the newest message; each next page holds the ones just before.
    expect(pages[0]!.at(-1)).toBe(ids.at(-1));
    expect(pages.toReversed().flat()).toEqual(ids);
  } finally {
    await s.close();
  }
}, 60_000);
