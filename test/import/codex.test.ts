import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { openTemp, removeTempHomes, tempHome } from "../fixture/home.ts";
import { filesHolding } from "../fixture/files-holding.ts";
import {
  CODEX_FIRST_ID,
  CODEX_ID,
  CODEX_OLD_ID,
  CODEX_ZST_ID,
  firstRollout,
  rollout,
  writeCodexHome,
  zstRollout,
} from "../fixture/import/codex.ts";
import { importWith, messagesOf, sessionInfo } from "./support.ts";

afterAll(removeTempHomes);

describe("import codex", () => {
  test("rollouts: event_msg text, injected context and tool traffic left out; old rollouts; .jsonl.zst", async () => {
    const home = writeCodexHome(tempHome("codex-src-"));
    const { api } = openTemp();
    const r = await importWith(api, "codex", [], { env: { CODEX_HOME: home } });
    expect(r.files).toMatchObject({ found: 3, read: 3, failed: 0 });
    expect(r.skippedCount).toBe(1);
    expect(r.skipped[0]).toMatchObject({ line: 10, reason: "not valid JSON" });
    expect(messagesOf(api, `codex-${CODEX_ID}`)).toEqual([
      ["user", "why does `make test` hang?", "2026-06-10T12:00:01.000000000Z"],
      ["assistant", "A test waits on port 8080, which another process holds.", "2026-06-10T12:00:12.000000000Z"],
      ["user", "free the port then", "2026-06-10T12:01:00.000000000Z"],
      ["assistant", "Port 8080 is free; `make test` passes.", "2026-06-10T12:01:30.000000000Z"],
    ]);
    expect(sessionInfo(api, `codex-${CODEX_ID}`)).toMatchObject({
      source: "codex",
      project: "/home/dev/cli",
      title: "why does `make test` hang?",
    });
    expect(messagesOf(api, `codex-${CODEX_OLD_ID}`)).toEqual([
      ["user", "rename foo to bar", "2025-09-01T08:00:01.000000000Z"],
      ["assistant", "Renamed in 3 files.", "2025-09-01T08:00:05.000000000Z"],
    ]);
    expect(sessionInfo(api, `codex-${CODEX_OLD_ID}`)).toMatchObject({
      title: "rename foo to bar",
      project: "/home/dev/old",
    });
    expect(messagesOf(api, `codex-${CODEX_ZST_ID}`)).toEqual([
      ["user", "is this compressed?", "2026-07-01T09:00:01.000000000Z"],
      ["assistant", "Yes, zstd.", "2026-07-01T09:00:02.000000000Z"],
    ]);
    expect(sessionInfo(api, `codex-${CODEX_ZST_ID}`)).toMatchObject({
      title: "is this compressed?",
      project: "/home/dev/zst",
    });
    const again = await importWith(api, "codex", [], { env: { CODEX_HOME: home } });
    expect(again.messages.added).toBe(0);
    api.close();
  });

  test("a first-generation rollout (header line, bare items, no times) imports in order; a later pass adds what grew", async () => {
    const dir = join(tempHome("codex-src-"), "sessions", "2025", "05", "07");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `rollout-2025-05-07T17-24-21-${CODEX_FIRST_ID}.jsonl`);
    const lines = firstRollout();
    writeFileSync(file, `${lines.slice(0, 7).join("\n")}\n`);
    const { api } = openTemp();
    const r = await importWith(api, "codex", [file]);
    expect(r).toMatchObject({ failed: [], skippedCount: 0, messages: { added: 1 } });
    appendFileSync(file, `${lines.slice(7).join("\n")}\n`);
    expect((await importWith(api, "codex", [file])).messages.added).toBe(1);
    expect(messagesOf(api, `codex-${CODEX_FIRST_ID}`)).toEqual([
      ["user", "list the TODOs", "2025-05-07T17:24:21.127000000Z"],
      ["assistant", "One: a.rs line 3.", "2025-05-07T17:24:21.132000000Z"],
    ]);
    expect(sessionInfo(api, `codex-${CODEX_FIRST_ID}`)).toMatchObject({
      source: "codex",
      title: "list the TODOs",
      project: "/home/dev/early",
    });
    expect((await importWith(api, "codex", [file])).messages.added).toBe(0);
    api.close();
  });

  test("a request sent from the IDE extension or the desktop app keeps the person's words, not the editor context", async () => {
    const dir = tempHome("codex-src-");
    const file = join(dir, `rollout-2026-06-10T12-00-00-${CODEX_ID}.jsonl`);
    const l = (timestamp: string, type: string, payload: unknown) => JSON.stringify({ timestamp, type, payload });
    writeFileSync(
      file,
      `${[
        l("2026-06-10T12:00:00.000Z", "session_meta", { id: CODEX_ID, cwd: "/home/dev/site" }),
        l("2026-06-10T12:00:01.000Z", "event_msg", {
          type: "user_message",
          message:
            "# Context from my IDE setup:\n\n## Active file: src/Hero.tsx\n\n## Open tabs:\n- Hero.tsx: src/Hero.tsx\n\n## My request for Codex:\nfix the hover animation on the hero image",
        }),
        l("2026-06-10T12:00:05.000Z", "event_msg", {
          type: "agent_message",
          message: "Fixed: the transition was on the wrong element.",
        }),
        l("2026-06-10T12:01:00.000Z", "event_msg", {
          type: "user_message",
          message:
            "# Files mentioned by the user:\n\n## shot.png: /tmp/shot.png\n\n## My request for Codex:\nnow it flickers, see the screenshot",
        }),
      ].join("\n")}\n`,
    );
    const { api } = openTemp();
    await importWith(api, "codex", [file]);
    expect(messagesOf(api, `codex-${CODEX_ID}`).map((m) => m[1])).toEqual([
      "fix the hover animation on the hero image",
      "Fixed: the transition was on the wrong element.",
      "now it flickers, see the screenshot",
    ]);
    expect(sessionInfo(api, `codex-${CODEX_ID}`)?.title).toBe("fix the hover animation on the hero image");
    api.close();
  });

  test("a .zst that changes is re-read whole, ids keep it idempotent; the plain file wins over its .zst", async () => {
    const home = writeCodexHome(tempHome("codex-src-"));
    const { api } = openTemp();
    await importWith(api, "codex", [join(home, "sessions")]);
    const july = join(home, "sessions", "2026", "07", "01");
    const zst = join(july, readdirSync(july)[0]!);
    const more = [
      ...zstRollout(),
      JSON.stringify({
        timestamp: "2026-07-01T09:00:09.000Z",
        type: "event_msg",
        payload: { type: "user_message", message: "and now?" },
      }),
    ];
    writeFileSync(zst, Bun.zstdCompressSync(Buffer.from(more.join("\n") + "\n")));
    const r = await importWith(api, "codex", [join(home, "sessions")]);
    expect(r.messages).toMatchObject({ added: 1, existing: 2 });
    // The same rollout decompressed beside it: the plain file is read, the .zst no longer listed; same ids.
    writeFileSync(zst.slice(0, -4), more.join("\n") + "\n");
    appendFileSync(
      zst.slice(0, -4),
      JSON.stringify({
        timestamp: "2026-07-01T09:00:10.000Z",
        type: "event_msg",
        payload: { type: "agent_message", message: "Still here." },
      }) + "\n",
    );
    const plain = await importWith(api, "codex", [join(home, "sessions")]);
    expect(plain.messages).toMatchObject({ added: 1, existing: 3 });
    expect(messagesOf(api, `codex-${CODEX_ZST_ID}`).map((m) => m[1])).toEqual([
      "is this compressed?",
      "Yes, zstd.",
      "and now?",
      "Still here.",
    ]);
    api.close();
  });

  test("a .zst cut inside a frame is one failure naming the truncation; its complete lines are kept, and it is read again", async () => {
    const dir = tempHome("codex-cut-zst-");
    const file = join(dir, `rollout-2026-07-01T09-00-00-${CODEX_ZST_ID}.jsonl.zst`);
    const [meta, ask, answer] = zstRollout();
    const first = Bun.zstdCompressSync(Buffer.from(`${meta}\n${ask}\n${answer!.slice(0, 20)}`));
    const second = Bun.zstdCompressSync(Buffer.from(`${answer!.slice(20)}\n`));
    const whole = Buffer.concat([first, second]);
    writeFileSync(file, whole.subarray(0, whole.length - 3));
    const { api } = openTemp();
    for (const pass of [1, 2]) {
      const r = await importWith(api, "codex", [dir]);
      expect([pass, r.messages.added, r.files.failed, r.skippedCount]).toEqual([pass, pass === 1 ? 1 : 0, 1, 0]);
      expect(r.failed).toEqual([
        {
          file,
          reason: `${file}: truncated: the file (${whole.length - 3} bytes) ends inside a zstd frame, so its last lines are missing (an interrupted copy or download?)`,
        },
      ]);
    }
    expect(messagesOf(api, `codex-${CODEX_ZST_ID}`).map((m) => m[1])).toEqual(["is this compressed?"]);
    writeFileSync(file, whole);
    const r = await importWith(api, "codex", [dir]);
    expect([r.messages.added, r.failed]).toEqual([1, []]);
    expect(messagesOf(api, `codex-${CODEX_ZST_ID}`).map((m) => m[1])).toEqual(["is this compressed?", "Yes, zstd."]);
    api.close();
  });

  test("a pass between a user item and its event twin: the next pass leaves the message once, as one pass would", async () => {
    const dir = tempHome("codex-split-");
    const file = join(dir, `rollout-2026-06-10T12-00-00-${CODEX_ID}.jsonl`);
    const lines = rollout();
    // Up to the first user response_item; its event_msg twin is the next line.
    expect(JSON.parse(lines[4]!).payload.type).toBe("user_message");
    writeFileSync(file, lines.slice(0, 4).join("\n") + "\n");
    const { api } = openTemp();
    const first = await importWith(api, "codex", [file]);
    expect(first.messages.added).toBe(1);
    appendFileSync(file, lines.slice(4).join("\n") + "\n");
    const second = await importWith(api, "codex", [file]);
    expect(second.messages).toMatchObject({ removed: 1 });
    const whole = openTemp();
    await importWith(whole.api, "codex", [file]);
    expect(messagesOf(api, `codex-${CODEX_ID}`)).toEqual(messagesOf(whole.api, `codex-${CODEX_ID}`));
    expect(api.history(`codex-${CODEX_ID}`, { all: true }).map((m) => m.id)).toEqual(
      whole.api.history(`codex-${CODEX_ID}`, { all: true }).map((m) => m.id),
    );
    expect(messagesOf(api, `codex-${CODEX_ID}`).map((m) => m[1])).toEqual([
      "why does `make test` hang?",
      "A test waits on port 8080, which another process holds.",
      "free the port then",
      "Port 8080 is free; `make test` passes.",
    ]);
    // The message removed held the title (its first line); the one taking its place gives it back.
    expect(sessionInfo(api, `codex-${CODEX_ID}`)?.title).toBe("why does `make test` hang?");
    const again = await importWith(api, "codex", [file]);
    expect(again.messages).toMatchObject({ added: 0, removed: 0 });
    expect(sessionInfo(api, `codex-${CODEX_ID}`)?.title).toBe("why does `make test` hang?");
    api.close();
    whole.api.close();
  });

  test("a .zst larger than 1 GiB decompressed is read as it decompresses: its messages before and after the bulk", async () => {
    const dir = tempHome("codex-big-zst-");
    const file = join(dir, `rollout-2026-01-01T00-00-00-${CODEX_ID}.jsonl.zst`);
    const at = (s: number) => `2026-01-01T00:00:${String(s).padStart(2, "0")}.000Z`;
    const line = (s: number, type: string, payload: unknown) =>
      `${JSON.stringify({ timestamp: at(s), type, payload })}\n`;
    const z = (text: string) => Bun.zstdCompressSync(Buffer.from(text), { level: 1 });
    // 1.1 GiB of tool output between the prompt and the reply: one compressed 64 MiB frame of 1 MiB lines, repeated
    // (zstd frames concatenate), so the file itself is small.
    const output = line(2, "response_item", {
      type: "function_call_output",
      call_id: "c1",
      output: "x".repeat(1024 * 1024 - 120),
    });
    const bulk = z(output.repeat(Math.floor((64 * 1024 * 1024) / output.length)));
    expect(bulk.length).toBeLessThan(1024 * 1024);
    const head = z(
      line(0, "session_meta", { id: CODEX_ID, cwd: "/home/dev/big" }) +
        line(1, "event_msg", { type: "user_message", message: "grep the whole log for the failing request" }),
    );
    const tail = z(line(3, "event_msg", { type: "agent_message", message: "The request failed at 03:12." }));
    writeFileSync(file, Buffer.concat([head, ...Array.from({ length: 18 }, () => bulk), tail]));
    const { api } = openTemp();
    const r = await importWith(api, "codex", [file]);
    expect(r).toMatchObject({ failed: [], skippedCount: 0 });
    expect(messagesOf(api, `codex-${CODEX_ID}`)).toEqual([
      ["user", "grep the whole log for the failing request", "2026-01-01T00:00:01.000000000Z"],
      ["assistant", "The request failed at 03:12.", "2026-01-01T00:00:03.000000000Z"],
    ]);
    api.close();
  }, 180_000);

  test("a zstd bomb of one endless line is refused by the line limit, named", async () => {
    const dir = tempHome("codex-bomb-");
    const file = join(dir, `rollout-2026-01-01T00-00-00-${CODEX_ID}.jsonl.zst`);
    // 1.1 GiB of one line in a few KiB: one compressed 64 MiB frame, repeated.
    const frame = Bun.zstdCompressSync(Buffer.alloc(64 * 1024 * 1024, 0x61), { level: 1 });
    expect(frame.length).toBeLessThan(64 * 1024);
    writeFileSync(file, Buffer.concat(Array.from({ length: 18 }, () => frame)));
    const { api } = openTemp();
    const r = await importWith(api, "codex", [file]);
    expect(r.files.failed).toBe(1);
    expect(r.failed[0]!.reason).toBe(`${file}:1: a line is over the 256 MiB line limit`);
    api.close();
  }, 120_000);

  test("a .zst that is not zstd is named", async () => {
    const dir = tempHome("codex-bad-zst-");
    const bad = join(dir, `rollout-2026-01-01T00-00-00-${CODEX_ID}.jsonl.zst`);
    writeFileSync(bad, `${rollout().join("\n")}\n`);
    const { api } = openTemp();
    const r = await importWith(api, "codex", [bad]);
    expect(r.failed).toHaveLength(1);
    expect(r.failed[0]!.reason).toStartWith(`${bad}: not a valid zstd file (`);
    api.close();
  });
});

describe("sessions of the TypeScript Codex CLI (rollout-<date>-<uuid>.json)", () => {
  const ID = "6f1c2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b";
  const user = (text: string) => ({ role: "user", type: "message", content: [{ type: "input_text", text }] });
  const reply = (id: string, text: string) => ({
    id,
    type: "message",
    status: "completed",
    role: "assistant",
    content: [{ type: "output_text", annotations: [], text }],
  });
  const first = [
    user("what does utils.ts export?"),
    { id: "rs_1", type: "reasoning", summary: [] },
    {
      id: "fc_1",
      type: "function_call",
      status: "completed",
      arguments: '{"command":["cat","utils.ts"]}',
      call_id: "call_1",
      name: "shell",
    },
    {
      type: "function_call_output",
      call_id: "call_1",
      output: '{"output":"export const x = 1","metadata":{"exit_code":0}}',
    },
    reply("msg_1", "It exports one constant, x."),
  ];
  // Written again whole at each save, pretty-printed, with the time of that save.
  const save = (file: string, timestamp: string, items: unknown[]) =>
    writeFileSync(file, JSON.stringify({ session: { timestamp, id: ID, instructions: "" }, items }, null, 2));

  test("are read: the conversation's text in order, tool traffic left out; a later save adds only what is new", async () => {
    const home = tempHome("codex-ts-");
    mkdirSync(join(home, "sessions"));
    const file = join(home, "sessions", `rollout-2025-05-02-${ID}.json`);
    save(file, "2025-05-02T10:15:30.000Z", first);
    const { api } = openTemp();
    const r = await importWith(api, "codex", [], { env: { CODEX_HOME: home } });
    expect(r).toMatchObject({ files: { found: 1, read: 1 }, failed: [], messages: { added: 2 } });
    expect(messagesOf(api, `codex-${ID}`)).toEqual([
      ["user", "what does utils.ts export?", "2025-05-02T10:15:30.000000000Z"],
      ["assistant", "It exports one constant, x.", "2025-05-02T10:15:30.004000000Z"],
    ]);
    expect(sessionInfo(api, `codex-${ID}`)).toMatchObject({ source: "codex", title: "what does utils.ts export?" });
    save(file, "2025-05-02T10:20:00.000Z", [
      ...first,
      user("and where is it used?"),
      reply("msg_2", "Only in main.ts."),
    ]);
    const again = await importWith(api, "codex", [], { env: { CODEX_HOME: home } });
    expect(again.messages).toMatchObject({ added: 2, existing: 2 });
    expect(messagesOf(api, `codex-${ID}`).map((m) => m[1])).toEqual([
      "what does utils.ts export?",
      "It exports one constant, x.",
      "and where is it used?",
      "Only in main.ts.",
    ]);
    api.close();
  });

  test("a rollout-*.json that is no such session fails with its name", async () => {
    const dir = tempHome("codex-ts-bad-");
    const file = join(dir, `rollout-2025-05-02-${ID}.json`);
    writeFileSync(file, '{"items": []}');
    const { api } = openTemp();
    const r = await importWith(api, "codex", [file]);
    expect(r.failed[0]!.reason).toStartWith(`${file}: not a Codex rollout`);
    api.close();
  });
});

describe("rollouts of Codex 0.147 on (messages as item_completed events)", () => {
  const ID = "019e0000-0000-7000-8000-000000000001";
  const l = (timestamp: string, type: string, payload: unknown) => JSON.stringify({ timestamp, type, payload });
  const at = (s: number) => `2026-09-12T10:00:${String(s).padStart(2, "0")}.000Z`;
  const item = (s: number, type: string, text: string, blockType = "text") =>
    l(at(s), "event_msg", {
      type: "item_completed",
      thread_id: ID,
      turn_id: "t1",
      item: { type, id: `i${s}`, content: [{ type: blockType, text }] },
    });
  const said = (s: number, role: "user" | "assistant", text: string) =>
    l(at(s), "response_item", {
      type: "message",
      role,
      content: [{ type: role === "user" ? "input_text" : "output_text", text }],
    });
  const head = [
    l(at(0), "session_meta", { id: ID, cwd: "/home/dev/app", originator: "codex_cli_rs", cli_version: "0.153.4" }),
    said(0, "user", "# AGENTS.md instructions for /home/dev/app\n\n<INSTRUCTIONS>\nUse pnpm.\n</INSTRUCTIONS>"),
    l(at(1), "turn_context", { cwd: "/home/dev/app", model: "gpt-5.5" }),
    said(1, "user", "why does the build fail?"),
    item(1, "UserMessage", "why does the build fail?"),
    said(4, "assistant", "Looking at the lockfile."),
    item(4, "AgentMessage", "Looking at the lockfile.", "Text"),
    // Typed while the turn runs: recorded at the next step like any prompt.
    said(6, "user", "use npm ci"),
    item(6, "UserMessage", "use npm ci"),
    said(9, "assistant", "The lockfile is stale; npm ci fixed it."),
    item(9, "AgentMessage", "The lockfile is stale; npm ci fixed it.", "Text"),
    l(at(9), "event_msg", { type: "task_complete", turn_id: "t1" }),
  ];
  const expected: [string, string, string][] = [
    ["user", "why does the build fail?", "2026-09-12T10:00:01.000000000Z"],
    ["assistant", "Looking at the lockfile.", "2026-09-12T10:00:04.000000000Z"],
    ["user", "use npm ci", "2026-09-12T10:00:06.000000000Z"],
    ["assistant", "The lockfile is stale; npm ci fixed it.", "2026-09-12T10:00:09.000000000Z"],
  ];

  test("the items are the messages: the injected AGENTS.md instructions are not a user message, nor the title", async () => {
    const file = join(tempHome("codex-src-"), `rollout-2026-09-12T10-00-00-${ID}.jsonl`);
    writeFileSync(file, `${head.join("\n")}\n`);
    const { api } = openTemp();
    await importWith(api, "codex", [file]);
    expect(messagesOf(api, `codex-${ID}`)).toEqual(expected);
    expect(sessionInfo(api, `codex-${ID}`)?.title).toBe("why does the build fail?");
    api.close();
  });

  test("a build writing both the item and the older event keeps one message, also when a pass falls between them", async () => {
    const both = head.flatMap((line) => {
      const p = JSON.parse(line).payload;
      if (p.type !== "item_completed") return [line];
      const role = p.item.type === "UserMessage" ? "user_message" : "agent_message";
      return [line, l(JSON.parse(line).timestamp, "event_msg", { type: role, message: p.item.content[0].text })];
    });
    const file = join(tempHome("codex-src-"), `rollout-2026-09-12T10-00-00-${ID}.jsonl`);
    const { api } = openTemp();
    writeFileSync(file, "");
    for (const line of both) {
      appendFileSync(file, `${line}\n`);
      await importWith(api, "codex", [file]);
    }
    expect(messagesOf(api, `codex-${ID}`)).toEqual(expected);
    api.close();
    const whole = openTemp().api;
    await importWith(whole, "codex", [file]);
    expect(messagesOf(whole, `codex-${ID}`)).toEqual(expected);
    whole.close();
  });
});

describe("input typed while a Codex turn runs (steering)", () => {
  test("builds that recorded it only as a response item: kept once, in place, also across passes; prompts are not doubled", async () => {
    const ID = "0199b000-0000-7000-8000-00000000beef";
    const l = (timestamp: string, type: string, payload: unknown) => JSON.stringify({ timestamp, type, payload });
    const at = (s: number) => `2025-10-20T08:00:${String(s).padStart(2, "0")}.000Z`;
    const item = (s: number, role: "user" | "assistant", text: string) =>
      l(at(s), "response_item", {
        type: "message",
        role,
        content: [{ type: role === "user" ? "input_text" : "output_text", text }],
      });
    const lines = [
      l(at(0), "session_meta", { id: ID, cwd: "/home/dev/cli", originator: "codex_cli_rs", cli_version: "0.46.0" }),
      item(0, "user", "<environment_context>\n  <cwd>/home/dev/cli</cwd>\n</environment_context>"),
      item(1, "user", "rename the config flag"),
      l(at(1), "event_msg", { type: "user_message", message: "rename the config flag" }),
      l(at(3), "response_item", {
        type: "function_call",
        name: "shell",
        arguments: '{"command":["rg","flag"]}',
        call_id: "c1",
      }),
      l(at(4), "response_item", { type: "function_call_output", call_id: "c1", output: "src/cfg.rs" }),
      item(5, "user", "also update the docs"),
      l(at(6), "response_item", {
        type: "function_call",
        name: "shell",
        arguments: '{"command":["ls"]}',
        call_id: "c2",
      }),
      item(8, "assistant", "Renamed the flag and updated the docs."),
      l(at(8), "event_msg", { type: "agent_message", message: "Renamed the flag and updated the docs." }),
      item(9, "user", "thanks, commit it"),
      l(at(9), "event_msg", { type: "item_started", item: { type: "UserMessage", id: "u9", content: [] } }),
      l(at(9), "event_msg", { type: "user_message", message: "thanks, commit it" }),
    ];
    const expected: [string, string, string][] = [
      ["user", "rename the config flag", "2025-10-20T08:00:01.000000000Z"],
      ["user", "also update the docs", "2025-10-20T08:00:05.000000000Z"],
      ["assistant", "Renamed the flag and updated the docs.", "2025-10-20T08:00:08.000000000Z"],
      ["user", "thanks, commit it", "2025-10-20T08:00:09.000000000Z"],
    ];
    const file = join(tempHome("codex-src-"), `rollout-2025-10-20T08-00-00-${ID}.jsonl`);
    writeFileSync(file, `${lines.join("\n")}\n`);
    const { api } = openTemp();
    await importWith(api, "codex", [file]);
    expect(messagesOf(api, `codex-${ID}`)).toEqual(expected);
    api.close();

    writeFileSync(file, "");
    const inc = openTemp().api;
    for (const line of lines) {
      appendFileSync(file, `${line}\n`);
      await importWith(inc, "codex", [file]);
    }
    expect(messagesOf(inc, `codex-${ID}`)).toEqual(expected);
    expect((await importWith(inc, "codex", [file])).messages.added).toBe(0);
    inc.close();
  });
});

describe("Codex thread names and spawned sub-agents", () => {
  const PARENT = "019e1111-0000-7000-8000-0000000000aa";
  const CHILD = "019e1111-0000-7000-8000-0000000000bb";
  const l = (timestamp: string, type: string, payload: unknown) => JSON.stringify({ timestamp, type, payload });
  const at = (s: number) => `2026-10-06T12:00:${String(s).padStart(2, "0")}.000Z`;
  const meta = (id: string, source: unknown) =>
    l(at(0), "session_meta", { id, cwd: "/home/dev/svc", originator: "codex_cli_rs", cli_version: "0.146.0", source });
  const said = (s: number, type: "user_message" | "agent_message", message: string) =>
    l(at(s), "event_msg", { type, message, ...(type === "user_message" && { images: [], local_images: [] }) });
  const renamed = (s: number, name: string) =>
    l(at(s), "event_msg", { type: "thread_name_updated", thread_id: PARENT, thread_name: name });

  test("thread_name_updated names the session; a later rename wins, a pass with none keeps it", async () => {
    const dir = join(tempHome("codex-src-"), "sessions", "2026", "10", "06");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `rollout-2026-10-06T12-00-00-${PARENT}.jsonl`);
    writeFileSync(
      file,
      `${[
        meta(PARENT, "cli"),
        said(1, "user_message", "the health check times out behind the proxy"),
        renamed(2, "Health check timeout"),
        said(5, "agent_message", "The proxy drops idle connections after 5 s."),
      ].join("\n")}\n`,
    );
    const { api } = openTemp();
    await importWith(api, "codex", [dir]);
    expect(sessionInfo(api, `codex-${PARENT}`)).toMatchObject({
      title: "Health check timeout",
      project: "/home/dev/svc",
    });
    expect(messagesOf(api, `codex-${PARENT}`).map((m) => m[1])).toEqual([
      "the health check times out behind the proxy",
      "The proxy drops idle connections after 5 s.",
    ]);
    // Renamed later (/rename), read incrementally: the new name replaces the old.
    appendFileSync(file, `${renamed(8, "  Proxy   idle timeout ")}\n`);
    await importWith(api, "codex", [dir]);
    expect(sessionInfo(api, `codex-${PARENT}`)?.title).toBe("Proxy idle timeout");
    appendFileSync(file, `${said(9, "user_message", "raise it to 30 s")}\n`);
    await importWith(api, "codex", [dir]);
    expect(sessionInfo(api, `codex-${PARENT}`)?.title).toBe("Proxy idle timeout");
    api.close();
  });

  test("current builds keep the name in the home's session_index.jsonl: the latest entry for the thread wins", async () => {
    const home = join(tempHome("codex-src-"), ".codex");
    const dir = join(home, "sessions", "2026", "10", "06");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `rollout-2026-10-06T12-00-00-${PARENT}.jsonl`);
    writeFileSync(
      file,
      `${[
        meta(PARENT, "cli"),
        said(1, "user_message", "the health check times out behind the proxy"),
        renamed(2, "Health check timeout"),
        said(5, "agent_message", "The proxy drops idle connections after 5 s."),
      ].join("\n")}\n`,
    );
    const entry = (id: string, name: string, at: string) => JSON.stringify({ id, thread_name: name, updated_at: at });
    writeFileSync(
      join(home, "session_index.jsonl"),
      `${[
        entry(PARENT, "Health check timeout", "2026-10-06T12:00:02Z"),
        entry("019e1111-0000-7000-8000-0000000000cc", "Another thread", "2026-10-06T12:00:03Z"),
        "{not json",
        entry(PARENT, "Proxy idle timeout", "2026-10-06T12:00:08Z"),
      ].join("\n")}\n`,
    );
    const { api } = openTemp();
    await importWith(api, "codex", [join(home, "sessions")]);
    expect(sessionInfo(api, `codex-${PARENT}`)?.title).toBe("Proxy idle timeout");
    // Renamed again; read with the rollout's next lines.
    appendFileSync(
      join(home, "session_index.jsonl"),
      `${entry(PARENT, " Raise the proxy timeout ", "2026-10-06T12:01:00Z")}\n`,
    );
    appendFileSync(file, `${said(9, "user_message", "raise it to 30 s")}\n`);
    await importWith(api, "codex", [join(home, "sessions")]);
    expect(sessionInfo(api, `codex-${PARENT}`)?.title).toBe("Raise the proxy timeout");
    // Renamed after its last turn: only the index changes, and the next pass takes the name.
    appendFileSync(join(home, "session_index.jsonl"), `${entry(PARENT, "Proxy keep-alive", "2026-10-06T13:00:00Z")}\n`);
    const r = await importWith(api, "codex", [join(home, "sessions")]);
    expect(r.messages.added).toBe(0);
    expect(sessionInfo(api, `codex-${PARENT}`)?.title).toBe("Proxy keep-alive");
    // Another thread's entry leaves this rollout unread.
    appendFileSync(
      join(home, "session_index.jsonl"),
      `${entry("019e1111-0000-7000-8000-0000000000cc", "Another name", "2026-10-06T13:05:00Z")}\n`,
    );
    expect((await importWith(api, "codex", [join(home, "sessions")])).files).toMatchObject({ read: 0, unchanged: 1 });
    api.close();
  });

  test("a thread name holding a secret reaches no file of the home: the title is redacted, the read state keeps a hash", async () => {
    const home = join(tempHome("codex-src-"), ".codex");
    const dir = join(home, "sessions", "2026", "10", "06");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `rollout-2026-10-06T12-00-00-${PARENT}.jsonl`);
    writeFileSync(file, `${[meta(PARENT, "cli"), said(1, "user_message", "rotate the deploy token")].join("\n")}\n`);
    const secret = "ghp_R8x2Kq9LmN4pV7tW1yZ3bC6dF0hJ5sA8uE2g";
    const index = join(home, "session_index.jsonl");
    const entry = (name: string) =>
      `${JSON.stringify({ id: PARENT, thread_name: name, updated_at: "2026-10-06T12:00:02Z" })}\n`;
    writeFileSync(index, entry(`Rotate ${secret}`));
    const { api, home: memvoyHome } = openTemp();
    await importWith(api, "codex", [join(home, "sessions")]);
    expect(sessionInfo(api, `codex-${PARENT}`)?.title).toBe("Rotate [REDACTED:github-token]");
    expect(filesHolding(memvoyHome, secret)).toEqual([]);
    // A rename is still seen from the hash alone.
    appendFileSync(index, entry("Token rotation"));
    expect((await importWith(api, "codex", [join(home, "sessions")])).files).toMatchObject({ read: 1 });
    expect(sessionInfo(api, `codex-${PARENT}`)?.title).toBe("Token rotation");
    expect((await importWith(api, "codex", [join(home, "sessions")])).files).toMatchObject({ read: 0, unchanged: 1 });
    api.close();
  });

  test("a thread rollback drops the rolled-back turns, also when an earlier pass imported them; a re-run adds nothing", async () => {
    const dir = tempHome("codex-rollback-");
    const file = join(dir, `rollout-2026-10-06T12-00-00-${PARENT}.jsonl`);
    const before = [
      meta(PARENT, "cli"),
      said(1, "user_message", "make the cache size configurable"),
      said(5, "agent_message", "Added --cache-size, default 64 MiB."),
      said(10, "user_message", "now drop the old flag"),
      said(14, "agent_message", "Removed --cache-mb."),
    ];
    // Backtracking to edit the last prompt: one user turn rolled back, then the edited prompt.
    const after = [
      l(at(20), "event_msg", { type: "thread_rolled_back", num_turns: 1 }),
      said(21, "user_message", "keep the old flag as an alias"),
      said(25, "agent_message", "--cache-mb now maps onto --cache-size."),
    ];
    writeFileSync(file, `${before.join("\n")}\n`);
    const { api } = openTemp();
    expect((await importWith(api, "codex", [file])).messages.added).toBe(4);
    appendFileSync(file, `${after.join("\n")}\n`);
    const second = await importWith(api, "codex", [file]);
    expect(second.messages).toMatchObject({ added: 2, removed: 2 });
    const expected: [string, string, string][] = [
      ["user", "make the cache size configurable", at(1).replace(".000Z", ".000000000Z")],
      ["assistant", "Added --cache-size, default 64 MiB.", at(5).replace(".000Z", ".000000000Z")],
      ["user", "keep the old flag as an alias", at(21).replace(".000Z", ".000000000Z")],
      ["assistant", "--cache-mb now maps onto --cache-size.", at(25).replace(".000Z", ".000000000Z")],
    ];
    expect(messagesOf(api, `codex-${PARENT}`)).toEqual(expected);
    expect((await importWith(api, "codex", [file])).messages).toMatchObject({ added: 0, removed: 0 });
    // Read in one pass: the same messages, the same ids.
    const whole = openTemp();
    await importWith(whole.api, "codex", [file]);
    expect(messagesOf(whole.api, `codex-${PARENT}`)).toEqual(expected);
    expect(whole.api.history(`codex-${PARENT}`, { all: true }).map((m) => m.id)).toEqual(
      api.history(`codex-${PARENT}`, { all: true }).map((m) => m.id),
    );
    // Rolling back more turns than there are leaves what came before the first prompt only.
    appendFileSync(file, `${l(at(30), "event_msg", { type: "thread_rolled_back", num_turns: 5 })}\n`);
    expect((await importWith(api, "codex", [file])).messages).toMatchObject({ removed: 4 });
    expect(messagesOf(api, `codex-${PARENT}`)).toEqual([]);
    api.close();
    whole.api.close();
  });

  test("a forked thread holds its own turns and names its parent; the parent's lines copied into it stay the parent's", async () => {
    const FORKED = "019e1111-0000-7000-8000-0000000000ee";
    const dir = join(tempHome("codex-fork-"), "sessions", "2026", "10", "06");
    mkdirSync(dir, { recursive: true });
    const parentLines = [
      meta(PARENT, "cli"),
      said(1, "user_message", "why does the proxy drop websockets?"),
      said(5, "agent_message", "Its idle timeout is 5s."),
      renamed(6, "Proxy websockets"),
    ];
    writeFileSync(join(dir, `rollout-2026-10-06T12-00-00-${PARENT}.jsonl`), `${parentLines.join("\n")}\n`);
    // The fork's rollout: its own session_meta, then the parent's lines re-stamped to the fork's time, then its turn.
    const restamped = (line: string, i: number) =>
      JSON.stringify({ ...JSON.parse(line), timestamp: `2026-10-06T12:00:30.00${i}Z` });
    const forkFile = join(dir, `rollout-2026-10-06T12-00-30-${FORKED}.jsonl`);
    writeFileSync(
      forkFile,
      `${[
        l(at(30), "session_meta", { id: FORKED, forked_from_id: PARENT, cwd: "/home/dev/svc", source: "cli" }),
        ...parentLines.map(restamped),
        said(40, "user_message", "raise it to 60s then"),
        said(44, "agent_message", "idle_timeout is 60s now."),
      ].join("\n")}\n`,
    );
    const { api } = openTemp();
    const r = await importWith(api, "codex", [dir]);
    expect(r.messages.added).toBe(4);
    expect(messagesOf(api, `codex-${PARENT}`).map((m) => m[1])).toEqual([
      "why does the proxy drop websockets?",
      "Its idle timeout is 5s.",
    ]);
    expect(messagesOf(api, `codex-${FORKED}`)).toEqual([
      ["user", "raise it to 60s then", "2026-10-06T12:00:40.000000000Z"],
      ["assistant", "idle_timeout is 60s now.", "2026-10-06T12:00:44.000000000Z"],
    ]);
    expect(sessionInfo(api, `codex-${FORKED}`)).toMatchObject({
      parent: `codex-${PARENT}`,
      title: "raise it to 60s then",
    });
    // Without the parent's rollout on disk the copies are the only record of those turns: they are kept.
    const alone = tempHome("codex-fork-alone-");
    writeFileSync(join(alone, basename(forkFile)), readFileSync(forkFile));
    const other = openTemp();
    await importWith(other.api, "codex", [alone]);
    expect(messagesOf(other.api, `codex-${FORKED}`).map((m) => m[1])).toEqual([
      "why does the proxy drop websockets?",
      "Its idle timeout is 5s.",
      "raise it to 60s then",
      "idle_timeout is 60s now.",
    ]);
    api.close();
    other.api.close();
  });

  test("a fork read again after its parent's rollout was archived still leaves the parent's copies to the parent", async () => {
    const FORKED = "019e1111-0000-7000-8000-0000000000ed";
    const codexHome = tempHome("codex-fork-moved-");
    const dir = join(codexHome, "sessions", "2026", "10", "06");
    const archived = join(codexHome, "archived_sessions");
    mkdirSync(dir, { recursive: true });
    mkdirSync(archived, { recursive: true });
    const parentLines = [meta(PARENT, "cli"), said(1, "user_message", "why does the proxy drop websockets?")];
    const parentName = `rollout-2026-10-06T12-00-00-${PARENT}.jsonl`;
    writeFileSync(join(dir, parentName), `${parentLines.join("\n")}\n`);
    const restamped = (line: string, i: number) =>
      JSON.stringify({ ...JSON.parse(line), timestamp: `2026-10-06T12:00:30.00${i}Z` });
    const forkName = `rollout-2026-10-06T12-00-30-${FORKED}.jsonl`;
    writeFileSync(
      join(dir, forkName),
      `${[
        l(at(30), "session_meta", { id: FORKED, forked_from_id: PARENT, cwd: "/home/dev/svc", source: "cli" }),
        ...parentLines.map(restamped),
        said(40, "user_message", "raise it to 60s then"),
      ].join("\n")}\n`,
    );
    // One process (the daemon) imports, then both threads are archived (moved) and imported again.
    const { api } = openTemp();
    await importWith(api, "codex", [join(codexHome, "sessions")]);
    renameSync(join(dir, parentName), join(archived, parentName));
    renameSync(join(dir, forkName), join(archived, forkName));
    await importWith(api, "codex", [join(codexHome, "sessions"), archived]);
    expect(messagesOf(api, `codex-${FORKED}`).map((m) => m[1])).toEqual(["raise it to 60s then"]);
    expect(messagesOf(api, `codex-${PARENT}`).map((m) => m[1])).toEqual(["why does the proxy drop websockets?"]);
    api.close();
  });

  test("a fork of a parent whose .zst is cut short still leaves the copies of the parent's complete lines to it", async () => {
    const FORKED = "019e1111-0000-7000-8000-0000000000ef";
    const dir = join(tempHome("codex-fork-cut-"), "sessions", "2026", "10", "06");
    mkdirSync(dir, { recursive: true });
    const parentLines = [
      meta(PARENT, "cli"),
      said(1, "user_message", "why does the proxy drop websockets?"),
      said(5, "agent_message", "Its idle timeout is 5s."),
    ];
    // Two frames, the second cut: the parent's first two lines are whole, its answer is lost.
    const z = (text: string) => Bun.zstdCompressSync(Buffer.from(text));
    const cut = z(`${parentLines[2]}\n`);
    writeFileSync(
      join(dir, `rollout-2026-10-06T12-00-00-${PARENT}.jsonl.zst`),
      Buffer.concat([z(`${parentLines.slice(0, 2).join("\n")}\n`), cut.subarray(0, cut.length - 4)]),
    );
    const restamped = (line: string) => JSON.stringify({ ...JSON.parse(line), timestamp: "2026-10-06T12:00:30.001Z" });
    writeFileSync(
      join(dir, `rollout-2026-10-06T12-00-30-${FORKED}.jsonl`),
      `${[
        l(at(30), "session_meta", { id: FORKED, forked_from_id: PARENT, cwd: "/home/dev/svc", source: "cli" }),
        ...parentLines.map(restamped),
        said(40, "user_message", "raise it to 60s then"),
      ].join("\n")}\n`,
    );
    const { api } = openTemp();
    const r = await importWith(api, "codex", [dir]);
    expect(r.files.failed).toBe(1);
    expect(messagesOf(api, `codex-${PARENT}`).map((m) => m[1])).toEqual(["why does the proxy drop websockets?"]);
    // The answer the cut parent lost is kept, in the fork; the prompt it holds is not doubled.
    expect(messagesOf(api, `codex-${FORKED}`).map((m) => m[1])).toEqual([
      "Its idle timeout is 5s.",
      "raise it to 60s then",
    ]);
    api.close();
  });

  test("the threads Codex runs for itself (compaction, approval review, memory consolidation) are not sessions", async () => {
    const dir = join(tempHome("codex-src-"), "sessions", "2026", "10", "06");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, `rollout-2026-10-06T12-00-00-${PARENT}.jsonl`),
      `${[meta(PARENT, "cli"), said(1, "user_message", "the health check times out behind the proxy")].join("\n")}\n`,
    );
    const own = [
      {
        id: "019e1111-0000-7000-8000-0000000000c1",
        source: { subagent: { other: "guardian" } },
        thread_source: "guardian_review",
        asked: ">>> APPROVAL REQUEST START\ncurl -X POST https://example.invalid\n>>> APPROVAL REQUEST END",
        answer: '{"risk_level":"low","outcome":"allow"}',
      },
      {
        id: "019e1111-0000-7000-8000-0000000000c2",
        source: { subagent: "compact" },
        asked: "Summarize the conversation so far.",
        answer: "The person is debugging a proxy timeout.",
      },
      {
        id: "019e1111-0000-7000-8000-0000000000c3",
        source: { subagent: "memory_consolidation" },
        thread_source: "memory_consolidation",
        asked: "Consolidate these memories.",
        answer: "Consolidated.",
      },
    ];
    const files = own.map((t, i) => {
      const file = join(dir, `rollout-2026-10-06T12-00-0${i + 2}-${t.id}.jsonl`);
      writeFileSync(
        file,
        `${[
          l(at(2), "session_meta", {
            id: t.id,
            parent_thread_id: PARENT,
            cwd: "/home/dev/svc",
            source: t.source,
            ...(t.thread_source && { thread_source: t.thread_source }),
          }),
          said(3, "user_message", t.asked),
        ].join("\n")}\n`,
      );
      return { file, answer: t.answer };
    });
    // A review the person asked for is a conversation: kept.
    const REVIEW = "019e1111-0000-7000-8000-0000000000c4";
    writeFileSync(
      join(dir, `rollout-2026-10-06T12-00-09-${REVIEW}.jsonl`),
      `${[meta(REVIEW, { subagent: "review" }), said(9, "agent_message", "No blocking issues in the diff.")].join("\n")}\n`,
    );
    const { api } = openTemp();
    const r = await importWith(api, "codex", [dir]);
    expect(r.failed).toEqual([]);
    expect(
      api
        .sessions()
        .map((s) => s.id)
        .sort(),
    ).toEqual([`codex-${PARENT}`, `codex-${REVIEW}`]);
    // A later pass resuming past their session_meta still knows them.
    for (const f of files) appendFileSync(f.file, `${said(20, "agent_message", f.answer)}\n`);
    expect((await importWith(api, "codex", [dir])).messages.added).toBe(0);
    expect(api.sessions().length).toBe(2);
    api.close();
  });

  test("a spawned thread's rollout names its parent (its first session_meta; the parent's replayed one does not count)", async () => {
    const dir = join(tempHome("codex-src-"), "sessions", "2026", "10", "06");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, `rollout-2026-10-06T12-00-00-${PARENT}.jsonl`),
      `${[meta(PARENT, "cli"), said(1, "user_message", "the health check times out behind the proxy")].join("\n")}\n`,
    );
    const childFile = join(dir, `rollout-2026-10-06T12-00-03-${CHILD}.jsonl`);
    writeFileSync(
      childFile,
      `${[
        meta(CHILD, { subagent: { thread_spawn: { parent_thread_id: PARENT, depth: 1, agent_role: "explorer" } } }),
        meta(PARENT, "cli"),
        said(3, "user_message", "Read the proxy config and report the idle timeout."),
        said(4, "agent_message", "idle_timeout is 5s in proxy.yaml."),
      ].join("\n")}\n`,
    );
    // Current builds also name the parent in the session_meta itself.
    const GRANDCHILD = "019e1111-0000-7000-8000-0000000000dd";
    writeFileSync(
      join(dir, `rollout-2026-10-06T12-00-04-${GRANDCHILD}.jsonl`),
      `${[
        l(at(0), "session_meta", { id: GRANDCHILD, parent_thread_id: CHILD, cwd: "/home/dev/svc", source: "exec" }),
        said(4, "user_message", "List proxy.yaml's keys."),
      ].join("\n")}\n`,
    );
    const { api } = openTemp();
    await importWith(api, "codex", [dir]);
    expect(sessionInfo(api, `codex-${GRANDCHILD}`)?.parent).toBe(`codex-${CHILD}`);
    expect(sessionInfo(api, `codex-${PARENT}`)!.parent).toBeUndefined();
    expect(sessionInfo(api, `codex-${CHILD}`)).toMatchObject({
      parent: `codex-${PARENT}`,
      title: "Read the proxy config and report the idle timeout.",
    });
    // A later pass reads from the offset, past the session_meta: the parent is kept.
    appendFileSync(childFile, `${said(10, "agent_message", "Done.")}\n`);
    await importWith(api, "codex", [dir]);
    expect(sessionInfo(api, `codex-${CHILD}`)?.parent).toBe(`codex-${PARENT}`);
    api.close();
  });
});
