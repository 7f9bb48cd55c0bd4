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

test("mode=recent with an offset gives the limit messages before the newest offset ones, back to the first", async () => {
  const home = tempDir();
  const seeding = openMemory({ home, env: {} });
  const { ids } = await seeding.add(
    "long",
    Array.from({ length: 25 }, (_, i) => ({
      role: i % 2 ? ("assistant" as const) : ("user" as const),
      content: `turn ${i}`,
    })),
  );
  await seeding.close();
  const s = await sdkStdio(["bun", entry, "mcp", "--home", home]);
  try {
    const recent = async (offset: number) =>
      (
        (await s.client.callTool({
          name: "chat_history",
          arguments: { mode: "recent", session: "long", limit: 10, offset },
        })) as { structuredContent: { messages: { id: string }[]; emptyReason?: string } }
      ).structuredContent;
    expect((await recent(0)).messages.map((m) => m.id)).toEqual(ids.slice(15));
    expect((await recent(10)).messages.map((m) => m.id)).toEqual(ids.slice(5, 15));
    expect((await recent(20)).messages.map((m) => m.id)).toEqual(ids.slice(0, 5));
    const past = await recent(30);
    expect(past.messages).toEqual([]);
    expect(past.emptyReason).toBe("offset 30 is past the end of the 25 messages");
  } finally {
    await s.close();
  }
}, 60_000);
