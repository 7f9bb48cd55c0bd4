// MCP over stdio, driven by the real SDK client and by a plain 2025-06-18 JSON-RPC client; the same
// cases run on `bun src/index.ts mcp` and on the compiled binary.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/client/validators/ajv";
import { LineClient, PROTOCOL, sdkStdio } from "./mcp-client.ts";
import { tempDir } from "./support.ts";

const TOOLS = ["add_messages", "chat_history", "error_memory", "session_context", "summary"];

type Call = { content: { type: string; text: string }[]; structuredContent?: any; isError?: boolean };
const call = async (c: Client, name: string, args: Record<string, unknown>) =>
  (await c.callTool({ name, arguments: args })) as Call;

async function refused(c: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const r = await call(c, name, args);
  expect(r.isError).toBe(true);
  const text = r.content[0]!.text;
  expect(text.split("\n")).toHaveLength(1);
  expect(text.endsWith(".")).toBe(true);
  return text;
}

const lanceMapped = (pid: number) => readFileSync(`/proc/${pid}/maps`, "utf8").includes("lancedb");

export function mcpStdioCases(label: string, command: () => Promise<string[]>, cwd?: () => string): void {
  describe(`memvoy mcp over stdio (${label})`, () => {
    let home: string;
    let cmd: string[];
    let c: Client;
    let pid: number;
    let close: () => Promise<void>;

    beforeAll(async () => {
      home = tempDir();
      cmd = [...(await command()), "mcp", "--home", home];
      ({ client: c, pid, close } = await sdkStdio(cmd, {}, cwd?.()));
    });
    afterAll(async () => close?.());

    test("tools/list: the five tools, each with a non-empty inputSchema, a description and truthful annotations", async () => {
      const { tools } = await c.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
      for (const t of tools) {
        expect(t.description!.length).toBeGreaterThan(60);
        expect(t.inputSchema.type).toBe("object");
        expect(Object.keys(t.inputSchema.properties ?? {}).length).toBeGreaterThan(0);
        expect(t.inputSchema.properties).toHaveProperty("max_chars");
      }
      const ann = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
      expect(ann.chat_history!.readOnlyHint).toBe(true);
      expect(ann.summary!.readOnlyHint).toBe(true);
      expect(ann.add_messages!.readOnlyHint).toBe(false);
      // lookup restarts the TTL of what it finds: not read-only
      expect(ann.error_memory!.readOnlyHint).toBe(false);
      // The TTL is error_memory.ttl_days: the description names no fixed length
      expect(tools.find((t) => t.name === "error_memory")!.description).not.toContain("90-day");
      const ch = tools.find((t) => t.name === "chat_history")!;
      expect((ch.inputSchema.properties as any).mode.enum).toEqual(["search", "recent", "around", "get", "sessions"]);
      // Every field an answer may carry is declared: a search with no row says why.
      expect(ch.outputSchema?.properties).toHaveProperty("emptyReason");
      const contextFields = tools.find((t) => t.name === "session_context")!.outputSchema?.properties;
      expect(contextFields).toHaveProperty("newSession");
      expect(contextFields).toHaveProperty("summaryProblem");
      // The limits memvoy enforces are in the schemas a model reads.
      type Field = { maxLength?: number; maxItems?: number; items?: Field };
      const fields = (name: string) =>
        tools.find((t) => t.name === name)!.inputSchema.properties as Record<string, Field>;
      expect(fields("chat_history").query!.maxLength).toBe(10_000);
      const em = fields("error_memory");
      expect([em.error!.maxLength, em.fix!.maxLength, em.cause!.maxLength, em.tool!.maxLength]).toEqual([
        65_536, 65_536, 65_536, 128,
      ]);
      expect([em.keywords!.maxItems, em.keywords!.items!.maxLength]).toEqual([32, 64]);
      // max_chars promises a next_offset only where the tool takes an offset to pass it back as.
      const budgetText = (name: string) => (fields(name).max_chars as { description: string }).description;
      for (const name of ["chat_history", "session_context", "error_memory", "summary"])
        expect(budgetText(name)).toContain("next_offset");
      expect(budgetText("add_messages")).not.toContain("next_offset");
      expect(budgetText("add_messages")).toContain("every message is stored");
      const output = (name: string) => tools.find((t) => t.name === name)!.outputSchema!.properties!;
      for (const name of ["chat_history", "session_context", "error_memory", "summary"])
        expect(output(name)).toHaveProperty("next_offset");
      expect(output("add_messages")).not.toHaveProperty("next_offset");
      expect(output("add_messages")).toHaveProperty("truncated");
    });

    test("add, then search gives compact rows; get and around give the full text; LanceDB stays unloaded for keyword calls", async () => {
      const long =
        "the deploy pipeline failed at the migration step " + "with a very long stack trace line ".repeat(40);
      const added = await call(c, "add_messages", {
        session: "agent-1",
        messages: [
          { role: "user", content: long, sendAt: "2026-05-01T09:00:00Z" },
          { role: "assistant", content: "rerun the migration with --lock-timeout 30s", sendAt: "2026-05-01T09:01:00Z" },
          { role: "user", content: "that worked, the deploy is green", sendAt: "2026-05-01T09:05:00Z" },
        ],
      });
      expect(added.isError).toBeUndefined();
      const ids = added.structuredContent.ids as string[];
      expect(ids).toHaveLength(3);
      const found = await call(c, "chat_history", { mode: "search", query: "deploy migration", match: "keyword" });
      const rows = found.structuredContent.rows as any[];
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) {
        expect(Object.keys(r).sort()).toEqual(["id", "role", "score", "session", "snippet", "time"]);
        expect(r.snippet.length).toBeLessThanOrEqual(200);
      }
      expect(JSON.parse(found.content[0]!.text)).toEqual(found.structuredContent);
      const got = await call(c, "chat_history", { mode: "get", ids: [ids[0]] });
      expect(got.structuredContent.messages[0].content).toBe(long);
      const around = await call(c, "chat_history", { mode: "around", id: ids[1], before: 1, after: 1 });
      expect(around.structuredContent.messages.map((m: any) => m.id)).toEqual(ids);
      const recent = await call(c, "chat_history", { mode: "recent", session: "agent-1", limit: 2 });
      expect(recent.structuredContent.messages.map((m: any) => m.id)).toEqual(ids.slice(1));
      const sessions = await call(c, "chat_history", { mode: "sessions" });
      expect(sessions.structuredContent.sessions[0]).toMatchObject({ id: "agent-1", messages: 3 });
      if (process.platform === "linux") expect(lanceMapped(pid)).toBe(false);
      const semantic = await call(c, "chat_history", {
        mode: "search",
        query: "database migration failure",
        match: "semantic",
      });
      expect(semantic.isError).toBeUndefined();
      // The compiled binary maps LanceDB's addon from a temp file with a hashed name: checked from source only.
      if (process.platform === "linux" && cwd === undefined) expect(lanceMapped(pid)).toBe(true);
    });

    test("max_chars 500 holds for messages of a session with a 128-character id; the ids stay whole", async () => {
      const session = "s".repeat(128);
      const added = await call(c, "add_messages", {
        session,
        messages: Array.from({ length: 3 }, (_, i) => ({
          role: "user",
          content: `long-named session entry ${i} ${"lorem ".repeat(200)}`,
          sender: "n".repeat(200),
        })),
      });
      const id = added.structuredContent.ids[1];
      for (const args of [
        { mode: "recent", session },
        { mode: "around", id },
        { mode: "get", ids: added.structuredContent.ids },
      ]) {
        const r = await call(c, "chat_history", { ...args, max_chars: 500 });
        expect(r.isError).toBeUndefined();
        expect(r.content[0]!.text.length).toBeLessThanOrEqual(500);
        expect(JSON.stringify(r.structuredContent).length).toBeLessThanOrEqual(500);
        expect(r.structuredContent.truncated).toBe(true);
        expect(added.structuredContent.ids).toContain(r.structuredContent.messages[0].id);
        if (args.mode === "around") expect(r.structuredContent.anchor).toBe(id);
      }
    });

    test("max_chars: the text and structuredContent stay within it; a cut answer pages with next_offset", async () => {
      await call(c, "add_messages", {
        session: "many",
        messages: Array.from({ length: 40 }, (_, i) => ({
          role: i % 2 ? "assistant" : "user",
          content: `kubernetes note number ${i} ${"detail ".repeat(30)}`,
        })),
      });
      const first = await call(c, "chat_history", {
        mode: "search",
        query: "kubernetes note",
        match: "keyword",
        limit: 40,
        max_chars: 1500,
      });
      expect(first.content[0]!.text.length).toBeLessThanOrEqual(1500);
      expect(JSON.stringify(first.structuredContent).length).toBeLessThanOrEqual(1500);
      expect(first.structuredContent.truncated).toBe(true);
      const n = first.structuredContent.rows.length;
      expect(first.structuredContent.next_offset).toBe(n);
      const second = await call(c, "chat_history", {
        mode: "search",
        query: "kubernetes note",
        match: "keyword",
        limit: 40,
        max_chars: 1500,
        offset: n,
      });
      const seen = new Set(first.structuredContent.rows.map((r: any) => r.id));
      for (const r of second.structuredContent.rows) expect(seen.has(r.id)).toBe(false);
      // An offset past the last row says so, instead of an empty page that reads like "no match".
      const past = { mode: "search", query: "kubernetes note", match: "keyword", limit: 10 };
      expect((await call(c, "chat_history", { ...past, offset: 45 })).structuredContent).toEqual({
        mode: "search",
        query: "kubernetes note",
        match: "keyword",
        rows: [],
        emptyReason: "offset 45 is past the end: the search found 40 rows",
      });
      expect((await call(c, "chat_history", { ...past, offset: 1000 })).structuredContent.emptyReason).toBe(
        "offset 1000 is past the end: a search gives at most 1000 rows",
      );
      const huge = "y".repeat(30_000);
      const big = await call(c, "add_messages", { session: "big", messages: [{ role: "user", content: huge }] });
      const got = await call(c, "chat_history", { mode: "get", ids: big.structuredContent.ids });
      expect(got.content[0]!.text.length).toBeLessThanOrEqual(8000);
      expect(got.structuredContent.truncated).toBe(true);
      expect(got.structuredContent.messages[0].content).toContain("[cut:");

      // Ids that name no message count against the budget too: a get of 100 of them pages like the messages.
      const unknown = Array.from({ length: 99 }, (_, i) => `01ZZZZZZZZZZZZZZZZZZZZ${String(i).padStart(4, "0")}`);
      const asked = [second.structuredContent.rows[0].id, ...unknown];
      const messages: string[] = [];
      const missing: string[] = [];
      for (let offset = 0, pages = 0; offset !== undefined; pages++) {
        expect(pages).toBeLessThan(100);
        const page = await call(c, "chat_history", { mode: "get", ids: asked, max_chars: 500, offset });
        expect(page.content[0]!.text.length).toBeLessThanOrEqual(500);
        messages.push(...page.structuredContent.messages.map((m: { id: string }) => m.id));
        missing.push(...(page.structuredContent.missing ?? []));
        offset = page.structuredContent.next_offset;
      }
      expect(messages).toEqual([asked[0]]);
      expect(missing).toEqual(unknown);
    });

    test("session_context, error_memory record then lookup (hits counted), summary", async () => {
      const ctx = await call(c, "session_context", { session: "agent-1", input: "what now?" });
      expect(ctx.structuredContent.messages.at(-1)).toEqual({ role: "user", content: "what now?", kind: "input" });
      // Over budget: the oldest messages go first; the newest and the input stay.
      const whole = ctx.structuredContent.messages;
      const cut = await call(c, "session_context", { session: "agent-1", input: "what now?", max_chars: 1000 });
      const kept = cut.structuredContent.messages;
      expect(cut.structuredContent.truncated).toBe(true);
      expect(cut.structuredContent.next_offset).toBe(kept.length);
      expect(kept.length).toBeLessThan(whole.length);
      expect(kept.at(-1)).toEqual(whole.at(-1));
      expect(kept.at(-2)).toEqual(whole.at(-2));
      const rec = await call(c, "error_memory", {
        mode: "record",
        tool: "psql",
        error: "lock timeout on migration 042",
        fix: "rerun with --lock-timeout 30s",
        keywords: ["migration"],
      });
      expect(rec.structuredContent).toMatchObject({ mode: "record", merged: false });
      const look = await call(c, "error_memory", { mode: "lookup", error: "migration lock timeout", tool: "psql" });
      expect(look.structuredContent.hits[0]).toMatchObject({
        id: rec.structuredContent.id,
        fix: "rerun with --lock-timeout 30s",
        hits: 1,
      });
      const sum = await call(c, "summary", { session: "agent-1" });
      expect(sum.structuredContent).toMatchObject({ session: "agent-1", state: "missing", summary: null });
      // A summary.json that cannot be read: the answer says why, as `memvoy summary --json` does.
      const file = join(home, "sessions", "agent-1", "summary.json");
      writeFileSync(file, "{not json");
      try {
        const broken = await call(c, "summary", { session: "agent-1" });
        expect(broken.structuredContent).toMatchObject({ state: "corrupt", problem: "not valid JSON", summary: null });
      } finally {
        rmSync(file);
      }
    });

    test("max_chars on summary, session_context and error_memory lookup: within it, long texts cut alike, the rest paged with next_offset", async () => {
      const within = (r: Call, max: number) => {
        expect(r.isError).toBeUndefined();
        expect(r.content[0]!.text.length).toBeLessThanOrEqual(max);
        expect(JSON.stringify(r.structuredContent).length).toBeLessThanOrEqual(max);
        return r.structuredContent;
      };
      /** Every page from offset 0 on, each within `max`, until one is not cut. */
      const pages = async (name: string, args: Record<string, unknown>, max: number) => {
        const out: Call["structuredContent"][] = [];
        for (let offset = 0; out.length < 50; ) {
          const page = within(await call(c, name, { ...args, max_chars: max, offset }), max);
          out.push(page);
          if (!page.truncated) break;
          expect(page.next_offset).toBeGreaterThan(offset);
          offset = page.next_offset;
        }
        return out;
      };
      const said = (i: number) => `${"budget line ".repeat(10)}${i}`;
      await call(c, "add_messages", {
        session: "budget",
        messages: Array.from({ length: 8 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: said(i) })),
      });
      const doc = {
        key_decisions: Array.from({ length: 6 }, (_, i) => `Do: keep rule number ${i} of the deploy pipeline in place`),
        past_discussions: Array.from({ length: 3 }, (_, i) => ({
          topic: `topic ${i}`,
          description: `a description of the discussion number ${i} `.repeat(3).trim(),
          direction: "go on",
          last_discussed: "2026-05-01 09:00",
        })),
        current_discussion: { topic: "now", description: "what we talk about now", perspectives: "", direction: "" },
      };
      writeFileSync(join(home, "sessions", "budget", "summary.json"), JSON.stringify(doc, null, 2));
      const sum = await pages("summary", { session: "budget" }, 500);
      expect(sum.length).toBeGreaterThan(1);
      const merged: Record<string, unknown> = {};
      for (const p of sum)
        for (const [k, v] of Object.entries(p.summary))
          merged[k] = Array.isArray(v) ? [...((merged[k] as unknown[]) ?? []), ...v] : v;
      expect(merged).toEqual(doc);
      const ctx = await pages("session_context", { session: "budget", input: "what next?" }, 700);
      const whole = (await call(c, "session_context", { session: "budget", input: "what next?" })).structuredContent;
      expect(ctx[0].messages.at(-1)).toEqual(whole.messages.at(-1));
      expect(ctx[0].system.length).toBeGreaterThan(0);
      for (const p of ctx.slice(1)) expect(p.system).toBe("");
      const collected = ctx.toReversed().flatMap((p) => p.messages);
      expect(collected).toHaveLength(whole.messages.length);
      collected.forEach((m: Call["structuredContent"], i: number) => {
        const w = whole.messages[i];
        const cutAt = m.content.search(/… \[cut: \d+ more characters\]$/);
        expect({ ...m, content: cutAt < 0 ? m.content : w.content }).toEqual(w);
        if (cutAt >= 0) expect(w.content.startsWith(m.content.slice(0, cutAt))).toBe(true);
      });
      await call(c, "error_memory", {
        mode: "record",
        tool: "budget-tool",
        error: "BUDGETERR the step broke",
        fix: "F".repeat(3000),
        cause: "C".repeat(2000),
      });
      const look = within(
        await call(c, "error_memory", { mode: "lookup", error: "BUDGETERR the step broke", max_chars: 500 }),
        500,
      );
      expect(look).toMatchObject({ truncated: true, next_offset: 1 });
      const { fix, cause } = look.hits[0];
      expect(fix).toMatch(/^F{50,}… \[cut: \d+ more characters\]$/);
      expect(cause).toMatch(/^C{50,}… \[cut: \d+ more characters\]$/);
      expect(Math.abs(fix.indexOf("…") - cause.indexOf("…"))).toBeLessThanOrEqual(1);
      const rest = within(
        await call(c, "error_memory", { mode: "lookup", error: "BUDGETERR the step broke", max_chars: 500, offset: 1 }),
        500,
      );
      expect(rest.hits).toEqual([]);
      expect(rest.emptyReason).toBe("offset 1 is past the end: the lookup found no more than 1 record");
    });

    test('arguments as clients send them: text for a number or a list ("20", its JSON), null or "" for an unset optional field', async () => {
      const messages = JSON.stringify([
        { role: "user", content: "the stringified widget broke", sendAt: null, sender: "", idempotencyKey: null },
        { role: "assistant", content: "reading it as a list fixed the stringified widget" },
      ]);
      const added = await call(c, "add_messages", { session: "stringified", messages, max_chars: "2000" });
      expect(added.isError).toBeUndefined();
      expect(added.structuredContent.ids).toHaveLength(2);
      const found = await call(c, "chat_history", {
        mode: "search",
        query: "stringified widget",
        match: "keyword",
        limit: "1",
      });
      expect(found.structuredContent.rows).toHaveLength(1);
      const got = await call(c, "chat_history", { mode: "get", ids: JSON.stringify(added.structuredContent.ids) });
      expect(got.structuredContent.messages).toHaveLength(2);
      const recorded = await call(c, "error_memory", {
        mode: "record",
        tool: "widget",
        error: "stringified args refused",
        fix: "read them as their types",
        keywords: '["args"]',
      });
      expect(recorded.isError).toBeUndefined();
      // An optional field sent as null or "" is left out; a field the mode needs is still asked for.
      const unset = await call(c, "chat_history", {
        mode: "search",
        query: "stringified widget",
        match: null,
        session: "",
        range: null,
        since: "",
        until: null,
        limit: null,
        max_chars: null,
      });
      expect(unset.isError).toBeUndefined();
      expect(unset.structuredContent.rows.length).toBeGreaterThan(0);
      const lookup = await call(c, "error_memory", { mode: "lookup", error: "stringified args refused", tool: "" });
      expect(lookup.structuredContent.hits[0].tool).toBe("widget");
      expect(await refused(c, "chat_history", { mode: "recent", session: null })).toBe(
        "chat_history: session is needed for mode recent.",
      );
      expect(await refused(c, "add_messages", { session: null, messages })).toContain("session");
      // Text that is no such value is still refused, naming the field.
      expect(await refused(c, "chat_history", { mode: "search", query: "x", limit: "ten" })).toContain("limit");
      expect(await refused(c, "chat_history", { mode: "get", ids: "not a list" })).toContain("ids");
    });

    test("bad arguments on every tool: isError with one sentence naming the field; nothing changes; the server lives on", async () => {
      const before = (await call(c, "chat_history", { mode: "sessions" })).structuredContent;
      expect(
        await refused(c, "add_messages", { session: "../x", messages: [{ role: "user", content: "x" }] }),
      ).toContain("session");
      expect(await refused(c, "add_messages", { session: "ok", messages: [{ role: "user", content: "" }] })).toContain(
        "content is empty",
      );
      expect(await refused(c, "add_messages", { session: "ok", messages: "hello" })).toContain("messages");
      expect(
        await refused(c, "add_messages", {
          session: "ok",
          messages: [{ role: "user", content: "x", sendAt: Number("1764900000123456789") }],
        }),
      ).toContain("message 1: sendAt as a number must be unix seconds (a fraction allowed), ms or us");
      expect(await refused(c, "chat_history", { mode: "timeline" })).toContain(
        "mode must be search, recent, around, get or sessions",
      );
      expect(await refused(c, "chat_history", { mode: "search", query: "x", limit: 100000 })).toContain(
        "limit must be a whole number from 1 to 100",
      );
      expect(await refused(c, "chat_history", { mode: "search" })).toBe(
        "chat_history: query is needed for mode search.",
      );
      expect(await refused(c, "error_memory", { mode: "lookup" })).toBe(
        "error_memory: error is needed for mode lookup.",
      );
      expect(await refused(c, "chat_history", { mode: "recent", session: "../x" })).toContain("session");
      expect(await refused(c, "chat_history", { mode: "around", id: "nope" })).toContain("nope");
      expect(await refused(c, "chat_history", { mode: "get", ids: "abc" })).toContain("ids");
      expect(await refused(c, "chat_history", { mode: "sessions", max_chars: 10 })).toContain(
        "max_chars must be a whole number",
      );
      expect(await refused(c, "session_context", { session: "../x" })).toContain("session");
      expect(await refused(c, "error_memory", { mode: "forget" })).toContain("mode must be lookup or record");
      expect(await refused(c, "error_memory", { mode: "record", tool: "git", error: "", fix: "x" })).toContain("error");
      expect(await refused(c, "error_memory", { mode: "lookup", error: "x", limit: 5000 })).toContain("limit");
      // Each refusal names the tool's own field (the lookup's error is the error search's query underneath).
      expect(await refused(c, "error_memory", { mode: "lookup", error: "a\u0000b" })).toBe(
        "error_memory: error contains a NUL character.",
      );
      expect(await refused(c, "error_memory", { mode: "lookup", error: "é".repeat(40_000) })).toBe(
        "error_memory: error is over 64 KiB.",
      );
      expect(await refused(c, "error_memory", { mode: "lookup", error: "x", tool: "a\nb" })).toBe(
        "error_memory: tool must be a name of at most 128 characters on one line.",
      );
      expect(
        await refused(c, "error_memory", {
          mode: "record",
          tool: "git",
          error: "x",
          fix: "y",
          keywords: Array.from({ length: 33 }, (_, i) => `k${i}`),
        }),
      ).toBe("error_memory: keywords must hold at most 32 words.");
      expect(await refused(c, "error_memory", { mode: "record", tool: "git \ud83d", error: "x", fix: "y" })).toBe(
        "error_memory: tool is not valid Unicode (unpaired surrogate).",
      );
      expect(
        await refused(c, "error_memory", { mode: "record", tool: "git", error: "x", fix: "y", keywords: ["a\udc00"] }),
      ).toBe("error_memory: keywords.0: each keyword must be valid Unicode (no unpaired surrogate).");
      expect(await refused(c, "chat_history", { mode: "search", query: "x".repeat(10_001) })).toBe(
        "chat_history: query must be at most 10000 characters (it has 10001).",
      );
      expect(await refused(c, "summary", { session: "../x" })).toContain("session");
      expect(await refused(c, "summary", { session: "nobody" })).toContain("nobody");
      // An unknown session is refused by search as by every other call, naming it (HTTP: 404 for each).
      for (const args of [
        { mode: "search", query: "x", session: "nobody" },
        { mode: "search", query: "x", session: "nobody", match: "semantic" },
        { mode: "recent", session: "nobody" },
      ])
        expect(await refused(c, "chat_history", args)).toMatch(/^chat_history: no (such )?session "nobody" in /);
      expect((await call(c, "chat_history", { mode: "sessions" })).structuredContent).toEqual(before);
    });

    test("add_messages errors number the messages one way, from 1: a field's type, the size and the time alike", async () => {
      const second = (m: Record<string, unknown>) => ({
        session: "numbered",
        messages: [
          { role: "user", content: "first" },
          { role: "user", content: "second", ...m },
        ],
      });
      expect(await refused(c, "add_messages", second({ sender: 5 }))).toBe(
        "add_messages: message 2: sender must be text.",
      );
      expect(await refused(c, "add_messages", second({ colour: "red" }))).toBe(
        "add_messages: message 2, colour: unknown field.",
      );
      expect(await refused(c, "add_messages", second({ sendAt: "yesterday-ish" }))).toStartWith(
        'add_messages: invalid message 2: sendAt "yesterday-ish"',
      );
      expect(await refused(c, "add_messages", second({ content: "x".repeat(1_100_000) }))).toStartWith(
        "add_messages: message 2: content is 1,100,000 bytes",
      );
      // A message that is no object (a bare string or number, as a model may send) is named as one.
      for (const item of ["second", 2, null])
        expect(
          await refused(c, "add_messages", {
            session: "numbered",
            messages: [{ role: "user", content: "first" }, item],
          }),
        ).toBe("add_messages: message 2: must be an object with role and content.");
      const tools = (await c.listTools()).tools;
      expect(tools.find((t) => t.name === "add_messages")!.description).toContain(
        "position counted from 1 (message 1 is the first)",
      );
    });

    test("every tool declares an outputSchema, and structuredContent validates against it: whole, cut by max_chars, and isError", async () => {
      const { tools } = await c.listTools();
      const ajv = new AjvJsonSchemaValidator();
      const validators = new Map(
        tools.map((t) => {
          expect(t.outputSchema?.type).toBe("object");
          // add_messages takes no offset: its cut answer says truncated only.
          expect(Object.keys(t.outputSchema?.properties ?? {})).toEqual(
            expect.arrayContaining(t.name === "add_messages" ? ["truncated"] : ["truncated", "next_offset"]),
          );
          return [t.name, ajv.getValidator(t.outputSchema as any)];
        }),
      );
      const seen = new Map<string, { whole: number; cut: number; errors: number }>();
      const check = async (name: string, args: Record<string, unknown>, refusal = false) => {
        const r = await call(c, name, args);
        expect({
          tool: name,
          args,
          isError: r.isError ?? false,
          text: r.isError ? r.content[0]!.text : "",
        }).toMatchObject({
          isError: refusal,
        });
        const tally = seen.get(name) ?? { whole: 0, cut: 0, errors: 0 };
        seen.set(name, tally);
        if (r.isError) {
          // an error result carries only its sentence: nothing to hold against the outputSchema
          expect(r.structuredContent).toBeUndefined();
          tally.errors++;
          return r;
        }
        const verdict = validators.get(name)!(r.structuredContent);
        expect({ tool: name, args, error: verdict.errorMessage }).toEqual({ tool: name, args, error: undefined });
        expect(JSON.parse(r.content[0]!.text)).toEqual(r.structuredContent);
        if (r.structuredContent.truncated) tally.cut++;
        else tally.whole++;
        return r;
      };
      const filler = "a line of build output that goes on ".repeat(20);
      const many = Array.from({ length: 300 }, (_, i) => ({
        role: i % 2 ? "assistant" : "user",
        content: `shape check ${i} ${filler}`,
      }));
      const added = await check("add_messages", { session: "shapes", messages: many, max_chars: 500 });
      expect(added.structuredContent.truncated).toBe(true);
      // add_messages takes no offset: a cut answer offers none to pass back.
      expect(added.structuredContent).not.toHaveProperty("next_offset");
      const ids = (
        await check("chat_history", { mode: "recent", session: "shapes", limit: 100, max_chars: 200_000 })
      ).structuredContent.messages.map((m: any) => m.id);
      expect(ids).toHaveLength(100);
      await check("add_messages", { session: "shapes-small", messages: [{ role: "user", content: "one line" }] });
      await check("session_context", { session: "shapes-small", input: "and then?" });
      for (const max of [undefined, 500]) {
        const budget = max === undefined ? {} : { max_chars: max };
        await check("chat_history", { mode: "search", query: "shape check", match: "keyword", limit: 50, ...budget });
        await check("chat_history", { mode: "recent", session: "shapes", limit: 20, ...budget });
        await check("chat_history", { mode: "around", id: ids[50], before: 10, after: 10, ...budget });
        await check("chat_history", { mode: "get", ids: [...ids.slice(0, 20), "no-such-id"], ...budget });
        await check("chat_history", { mode: "sessions", ...budget });
        await check("session_context", { session: "shapes", input: "next step?", ...budget });
        await check("error_memory", {
          mode: "record",
          tool: "make",
          error: `linker failed ${filler}`,
          fix: `add the library path ${filler}`,
          cause: "a missing -L flag",
          keywords: ["linker"],
          ...budget,
        });
        await check("error_memory", { mode: "lookup", error: "linker failed", ...budget });
        await check("summary", { session: "shapes", ...budget });
      }
      await check("chat_history", { mode: "get", ids: [ids[0]], max_chars: 500 });
      await check("chat_history", { mode: "search", query: "x", limit: 100_000 }, true);
      await check("add_messages", { session: "../x", messages: [{ role: "user", content: "x" }] }, true);
      await check("session_context", { session: "" }, true);
      await check("error_memory", { mode: "lookup" }, true);
      await check("summary", { session: "nobody-here" }, true);
      for (const t of TOOLS) {
        expect(seen.get(t)!.whole).toBeGreaterThan(0);
        expect(seen.get(t)!.errors).toBeGreaterThan(0);
      }
      for (const t of ["add_messages", "chat_history", "session_context", "error_memory"])
        expect(seen.get(t)!.cut).toBeGreaterThan(0);
    });

    test("a plain newline-delimited JSON-RPC client (protocol 2025-06-18): initialize, initialized, tools/list, tools/call", async () => {
      const proc = Bun.spawn(cmd, {
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
        cwd: cwd?.(),
        env: { PATH: process.env.PATH!, HOME: home },
      });
      const lc = new LineClient(proc);
      try {
        const init = await lc.initialize();
        expect(init.result.protocolVersion).toBe(PROTOCOL);
        expect(init.result.serverInfo.name).toBe("memvoy");
        const list = await lc.request("tools/list");
        expect(list.result.tools.map((t: any) => t.name).sort()).toEqual(TOOLS);
        for (const t of list.result.tools) expect(Object.keys(t.inputSchema.properties).length).toBeGreaterThan(0);
        const added = await lc.request("tools/call", {
          name: "add_messages",
          arguments: {
            session: "plain",
            messages: [{ role: "user", content: "the nightly backup job hit a lock timeout" }],
          },
        });
        expect(added.result.structuredContent.ids).toHaveLength(1);
        const r = await lc.request("tools/call", {
          name: "chat_history",
          arguments: { mode: "search", query: "nightly backup", match: "keyword" },
        });
        expect(r.result.structuredContent.rows[0].session).toBe("plain");
        const bad = await lc.request("tools/call", { name: "chat_history", arguments: { mode: 42 } });
        expect(bad.result.isError).toBe(true);
        // a line that is not JSON, and a 10 MB message: answered, refused, and the server goes on
        proc.stdin.write("{this is not json\n");
        proc.stdin.write('{"not":"json-rpc"}\n');
        const huge = await lc.request("tools/call", {
          name: "add_messages",
          arguments: { session: "plain", messages: [{ role: "user", content: "z".repeat(10 * 1024 * 1024) }] },
        });
        expect(huge.result.isError).toBe(true);
        expect(huge.result.content[0].text).toContain("max_message_bytes");
        const again = await lc.request("tools/list");
        expect(again.result.tools).toHaveLength(5);
      } finally {
        lc.close();
        expect(await proc.exited).toBe(0);
      }
      // JSON that is no JSON-RPC message gets one readable line on stderr (not the first line of a schema dump).
      const stderr = await new Response(proc.stderr).text();
      expect(stderr).toContain("memvoy mcp: ignored a line of stdin that is not a JSON-RPC 2.0 message");
      expect(stderr.split("\n")).not.toContain("memvoy mcp: [");
    });

    test('"params": null and a tools/call\'s "arguments": null (as some clients send "none") are answered, not dropped', async () => {
      const proc = Bun.spawn(cmd, {
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
        cwd: cwd?.(),
        env: { PATH: process.env.PATH!, HOME: home },
      });
      const lc = new LineClient(proc);
      try {
        await lc.request("initialize", {
          protocolVersion: PROTOCOL,
          capabilities: {},
          clientInfo: { name: "nulls", version: "1" },
        });
        proc.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized","params":null}\n');
        const list = await lc.request("tools/list", null);
        expect(list.result.tools).toHaveLength(5);
        expect((await lc.request("ping", null)).result).toEqual({});
        const call = await lc.request("tools/call", { name: "chat_history", arguments: null });
        expect(call.result).toEqual({
          content: [{ type: "text", text: "chat_history: mode: missing." }],
          isError: true,
        });
      } finally {
        lc.close();
        expect(await proc.exited).toBe(0);
      }
      expect(await new Response(proc.stderr).text()).toBe("");
    });

    test("a line that is not UTF-8 (Latin-1 text) is refused with a parse error for its id; nothing is stored", async () => {
      const line = (m: Record<string, unknown>) => `${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`;
      const add = (id: number, content: string) =>
        line({
          id,
          method: "tools/call",
          params: { name: "add_messages", arguments: { session: "latin", messages: [{ role: "user", content }] } },
        });
      const start =
        line({
          id: 1,
          method: "initialize",
          params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "latin", version: "1" } },
        }) + line({ method: "notifications/initialized" });
      // "é" as the one byte 0xE9, as a Latin-1 file's text piped in as it is
      const latin1 = Uint8Array.from(add(2, "caf\u00e9 cr\u00e8me"), (c) => c.charCodeAt(0));
      const input = Buffer.concat([Buffer.from(start), latin1, Buffer.from(add(3, "caf\u00e9 as UTF-8"))]);
      const proc = Bun.spawn(cmd, {
        stdin: input,
        stdout: "pipe",
        stderr: "pipe",
        cwd: cwd?.(),
        env: { PATH: process.env.PATH!, HOME: home },
      });
      const [out, err, code] = await Promise.all([
        new Response(proc.stdout).text(),
        new Response(proc.stderr).text(),
        proc.exited,
      ]);
      expect(code).toBe(0);
      const answers = new Map(
        out
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l))
          .map((a) => [a.id, a]),
      );
      expect(answers.get(2).error.code).toBe(-32700);
      expect(answers.get(2).error.message).toContain("not valid UTF-8");
      expect(answers.get(3).result.structuredContent.ids).toHaveLength(1);
      expect(err).toContain("memvoy mcp: refused a line of stdin that is not valid UTF-8");
      const r = await call(c, "chat_history", { mode: "recent", session: "latin", limit: 10 });
      expect(r.structuredContent.messages.map((m: { content: string }) => m.content)).toEqual(["caf\u00e9 as UTF-8"]);
    });

    test("a line over 64 MiB is refused with an error for its id, and the server goes on serving", async () => {
      // As the SDK's client writes a request: method and params first, jsonrpc and id last.
      const request = (id: number, args: Record<string, unknown>) =>
        `${JSON.stringify({ method: "tools/call", params: { name: "add_messages", arguments: args }, jsonrpc: "2.0", id })}\n`;
      const start = [
        {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "big", version: "1" } },
        },
        { jsonrpc: "2.0", method: "notifications/initialized" },
      ].map((m) => `${JSON.stringify(m)}\n`);
      // Each message within limits.max_message_bytes; the batch, 72 MB on one line.
      const messages = Array.from({ length: 80 }, () => ({ role: "user", content: "z".repeat(900_000) }));
      const input = [
        ...start,
        request(2, { session: "big-line", messages }),
        request(3, { session: "big-line", messages: [{ role: "user", content: "after the long line" }] }),
      ].join("");
      const proc = Bun.spawn(cmd, {
        stdin: Buffer.from(input),
        stdout: "pipe",
        stderr: "pipe",
        cwd: cwd?.(),
        env: { PATH: process.env.PATH!, HOME: home },
      });
      const [out, err, code] = await Promise.all([
        new Response(proc.stdout).text(),
        new Response(proc.stderr).text(),
        proc.exited,
      ]);
      expect(code).toBe(0);
      const answers = new Map(
        out
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l))
          .map((a) => [a.id, a]),
      );
      expect(answers.get(2).error.code).toBe(-32600);
      expect(answers.get(2).error.message).toContain("the line is over 64 MiB");
      expect(answers.get(3).result.structuredContent.ids).toHaveLength(1);
      expect(err).toContain("memvoy mcp: refused a line of stdin over 64 MiB");
      const r = await call(c, "chat_history", { mode: "recent", session: "big-line", limit: 10 });
      expect(r.structuredContent.messages.map((m: { content: string }) => m.content)).toEqual(["after the long line"]);
    });

    test("a client that closes stdin right after its requests (a shell pipe) gets every answer; a cancelled call ends cleanly", async () => {
      const lines = (...calls: Record<string, unknown>[]) =>
        [
          {
            id: 1,
            method: "initialize",
            params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "pipe", version: "1" } },
          },
          { method: "notifications/initialized" },
          ...calls,
        ]
          .map((m) => `${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`)
          .join("");
      const lookup = { name: "error_memory", arguments: { mode: "lookup", error: "ECONNREFUSED 127.0.0.1:5432" } };
      const semantic = { name: "chat_history", arguments: { mode: "search", query: "backup lock", match: "semantic" } };
      const piped = async (input: string) => {
        const proc = Bun.spawn(cmd, {
          stdin: new TextEncoder().encode(input),
          stdout: "pipe",
          stderr: "pipe",
          cwd: cwd?.(),
          env: { PATH: process.env.PATH!, HOME: home },
        });
        const [out, err, code] = await Promise.all([
          new Response(proc.stdout).text(),
          new Response(proc.stderr).text(),
          proc.exited,
        ]);
        const answers = out
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l));
        return { answers, err, code };
      };
      // Both calls load the vectors: they are still running when stdin ends.
      const both = await piped(
        lines({ id: 2, method: "tools/call", params: lookup }, { id: 3, method: "tools/call", params: semantic }),
      );
      expect(both.err).toBe("");
      expect(both.code).toBe(0);
      expect(both.answers.map((a) => a.id).sort()).toEqual([1, 2, 3]);
      for (const a of both.answers.filter((x) => x.id !== 1)) expect(a.result.isError).toBeUndefined();
      // A cancelled call is not answered, and the home is not closed under it.
      const cancelled = await piped(
        lines(
          { id: 2, method: "tools/call", params: lookup },
          { method: "notifications/cancelled", params: { requestId: 2, reason: "the user pressed Esc" } },
        ),
      );
      expect(cancelled.err).toBe("");
      expect(cancelled.code).toBe(0);
      expect(cancelled.answers.map((a) => a.id)).toEqual([1]);
      // A subscription (protocol 2026-07-28) is answered only at teardown: the server exits all the same.
      const _meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "modern", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
      };
      const modern = await piped(
        [
          { id: 1, method: "subscriptions/listen", params: { _meta, notifications: { toolsListChanged: true } } },
          { id: 2, method: "tools/call", params: { _meta, ...lookup } },
        ]
          .map((m) => `${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`)
          .join(""),
      );
      expect(modern.code).toBe(0);
      expect(modern.answers.find((a) => a.id === 2).result.structuredContent.mode).toBe("lookup");
    }, 120_000);

    test("a last request whose line has no newline when stdin ends (printf '...' | memvoy mcp) is answered", async () => {
      const piped = async (input: string) => {
        const proc = Bun.spawn(cmd, {
          stdin: new TextEncoder().encode(input),
          stdout: "pipe",
          stderr: "pipe",
          cwd: cwd?.(),
          env: { PATH: process.env.PATH!, HOME: home },
        });
        const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
        expect(code).toBe(0);
        return out
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l));
      };
      const start = [
        {
          id: 1,
          method: "initialize",
          params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "printf", version: "1" } },
        },
        { method: "notifications/initialized" },
      ].map((m) => `${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`);
      const sessions = {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "chat_history", arguments: { mode: "sessions" } },
      };
      const answers = await piped(`${start.join("")}${JSON.stringify(sessions)}`);
      expect(answers.map((a) => a.id)).toEqual([1, 2]);
      expect(answers[1].result.structuredContent.mode).toBe("sessions");
      // Before the SDK was needed at all, and with blanks after the last newline (nothing more to answer).
      expect(await piped(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping" }))).toEqual([
        { jsonrpc: "2.0", id: 7, result: {} },
      ]);
      expect(await piped(`${start[0]}  `)).toHaveLength(1);
    }, 120_000);
  });
}
