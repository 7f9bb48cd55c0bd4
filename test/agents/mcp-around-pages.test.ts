// MCP chat_history mode=around cut by max_chars holds the message asked about and the ones nearest it; next_offset
// pages on outward, and every page is in time order.
import { afterAll, expect, test } from "bun:test";
import { openMemory } from "../../src/lib.ts";
import { sdkStdio } from "./mcp-client.ts";
import { entry, removeTempDirs, tempDir } from "./support.ts";

afterAll(removeTempDirs);

test("mode=around over max_chars shows the anchor first, then its neighbours outward, each page in time order", async () => {
  const home = tempDir();
  const seeding = openMemory({ home, env: {} });
  const { ids } = await seeding.add(
    "talk",
    Array.from({ length: 11 }, (_, i) => ({
      role: i % 2 ? ("assistant" as const) : ("user" as const),
      content: `turn ${i} ${"words ".repeat(300)}`,
    })),
  );
  await seeding.close();
  const anchor = ids[5]!;
  const s = await sdkStdio(["bun", entry, "mcp", "--home", home]);
  try {
    const pages: string[][] = [];
    for (let offset: number | undefined = 0; offset !== undefined; ) {
      expect(pages.length).toBeLessThan(20);
      const r = (await s.client.callTool({
        name: "chat_history",
        arguments: { mode: "around", id: anchor, offset },
      })) as { structuredContent: { anchor: string; messages: { id: string }[]; next_offset?: number } };
      expect(r.structuredContent.anchor).toBe(anchor);
      const page = r.structuredContent.messages.map((m) => m.id);
      expect(page).toEqual([...page].sort((x, y) => ids.indexOf(x) - ids.indexOf(y)));
      pages.push(page);
      offset = r.structuredContent.next_offset;
    }
    expect(pages.length).toBeGreaterThan(1);
    // The first page is the anchor with the messages right around it.
    expect(pages[0]).toContain(anchor);
    expect(pages[0]).toContain(ids[4]!);
    expect(pages[0]).toContain(ids[6]!);
    // Every message of the timeline comes once over the pages.
    expect(pages.flat().toSorted()).toEqual(ids.toSorted());
  } finally {
    await s.close();
  }
}, 60_000);
