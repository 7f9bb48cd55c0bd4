// MCP pages past the end of their list say so (emptyReason) in every mode, as search and lookup do: an empty page
// there would read as an empty session, no sessions or no summary.
import { afterAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { openTemp, removeTempHomes } from "../fixture/home.ts";
import { openMemoryApi } from "../../src/app/api/local-memory-api.ts";
import { TOOLS } from "../../src/mcp/tools.ts";

afterAll(removeTempHomes);

test("recent, around, get, sessions, session_context and summary: an offset past the end says why the page is empty", async () => {
  const { home, api: seeding } = openTemp({ drain: "off" });
  const { ids } = seeding.add("s", [
    { role: "user", content: "one" },
    { role: "assistant", content: "two" },
    { role: "user", content: "three" },
  ]);
  seeding.close();
  const summary = { key_decisions: ["Do: a", "Do: b"], current_discussion: { topic: "t", description: "d" } };
  writeFileSync(join(home, "sessions", "s", "summary.json"), JSON.stringify(summary));
  const api = openMemoryApi({ home, env: {} });
  const run = async (name: string, args: Record<string, unknown>) => {
    const tool = TOOLS.find((t) => t.name === name)!;
    const { value } = await tool.run(api, args);
    // Declared in the tool's outputSchema, as a client checks it.
    expect(v.safeParse(tool.output, value).success).toBe(true);
    return value as Record<string, unknown>;
  };
  try {
    const recent = await run("chat_history", { mode: "recent", session: "s", offset: 5 });
    expect([recent.messages, recent.emptyReason]).toEqual([[], "offset 5 is past the end of the 3 messages"]);
    const around = await run("chat_history", { mode: "around", id: ids[1], before: 1, after: 0, offset: 2 });
    expect(around.emptyReason).toBe("offset 2 is past the end of the 2 messages");
    const get = await run("chat_history", { mode: "get", ids: [ids[0], "nope"], offset: 2 });
    expect(get.emptyReason).toBe("offset 2 is past the end of the 1 message found and 1 id not found");
    const sessions = await run("chat_history", { mode: "sessions", offset: 1 });
    expect([sessions.sessions, sessions.emptyReason]).toEqual([[], "offset 1 is past the end of the 1 session"]);
    const context = await run("session_context", { session: "s", input: "next", offset: 9 });
    expect([context.messages, context.emptyReason]).toEqual([
      [],
      "offset 9 is past the end of the context's 5 messages",
    ]);
    const cut = await run("summary", { session: "s", offset: 3 });
    expect([cut.summary, cut.emptyReason]).toEqual([{}, "offset 3 is past the end of the summary's 3 entries"]);
    // Within the list, or at offset 0 of an empty one, nothing is added.
    expect((await run("chat_history", { mode: "recent", session: "s", offset: 2 })).emptyReason).toBeUndefined();
    expect((await run("session_context", { session: "new" })).emptyReason).toBeUndefined();
    expect((await run("summary", { session: "s", offset: 2 })).emptyReason).toBeUndefined();
  } finally {
    await api.close();
  }
});
