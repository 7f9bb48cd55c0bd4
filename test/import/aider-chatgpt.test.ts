import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openTemp, removeTempHomes, tempHome } from "../fixture/home.ts";
import { aiderHistory } from "../fixture/import/aider.ts";
import {
  conversation,
  conversation2,
  GPT_ID,
  GPT_ID2,
  GPT_VOICE_ID,
  voiceConversation,
  zip,
} from "../fixture/import/chatgpt.ts";
import { shortHash } from "../../src/shared/import-id.ts";
import { nsToRfc3339, parseTime } from "../../src/shared/time.ts";
import { importWith, messagesOf, sessionInfo } from "./support.ts";

afterAll(removeTempHomes);

describe("import aider", () => {
  test("one session per header: #### lines are the user, > lines tool output, slash commands left out", async () => {
    const repo = tempHome("aider-repo-");
    const file = join(repo, ".aider.chat.history.md");
    writeFileSync(file, aiderHistory());
    const { api } = openTemp();
    const r = await importWith(api, "aider", [repo]);
    expect(r).toMatchObject({ sessions: 2, messages: { added: 6 } });
    const first = `aider-${shortHash(file)}-20260210-091500`;
    const msgs = messagesOf(api, first);
    expect(msgs.map((m) => m[0])).toEqual(["user", "assistant", "user", "assistant"]);
    expect(msgs[0]![1]).toBe("add a --verbose flag to the cli\nand document it");
    expect(msgs[1]![1]).toStartWith("I'll add the flag in `cli.py`");
    expect(msgs[1]![1]).toContain(">>>>>>> REPLACE\n```");
    expect(msgs[1]![1]).not.toContain("Applied edit");
    expect(msgs.slice(2).map((m) => m[1])).toEqual(["thanks", "You're welcome."]);
    // The header is local time; messages follow one millisecond apart.
    expect(msgs.map((m) => m[2])).toEqual(
      [0n, 1n, 4n, 5n].map((i) => nsToRfc3339(parseTime("2026-02-10 09:15:00")! + i * 1_000_000n)),
    );
    expect(sessionInfo(api, first)).toMatchObject({
      source: "aider",
      project: repo,
      title: "add a --verbose flag to the cli",
    });
    const second = `aider-${shortHash(file)}-20260211-164005`;
    const start = parseTime("2026-02-11 16:40:05")!;
    expect(messagesOf(api, second)).toEqual([
      ["user", "why does the test fail?", nsToRfc3339(start)],
      ["assistant", "The fixture path is relative; run it from the repo root.", nsToRfc3339(start + 1_000_000n)],
    ]);
    expect(sessionInfo(api, second)).toMatchObject({ source: "aider", title: "why does the test fail?" });
    expect((await importWith(api, "aider", [file])).messages.added).toBe(0);
    api.close();
  });

  test("a #### heading in the assistant's markdown (no trailing two spaces) is not the person's input", async () => {
    const repo = tempHome("aider-repo-");
    const file = join(repo, ".aider.chat.history.md");
    writeFileSync(
      file,
      [
        "",
        "# aider chat started at 2026-02-12 08:00:00",
        "",
        "> Aider v0.86.0",
        "",
        "#### how do I release?  ",
        "",
        "Two steps.",
        "",
        "#### Step 1: tag",
        "",
        "Run `git tag v1.2.0`.",
        "",
        "#### Step 2: push",
        "",
        "Run `git push --tags`.",
        "",
        "#### thanks  ",
        "",
        "Glad to help.",
        "",
      ].join("\n"),
    );
    const { api } = openTemp();
    await importWith(api, "aider", [repo]);
    const msgs = messagesOf(api, `aider-${shortHash(file)}-20260212-080000`);
    expect(msgs.map((m) => m.slice(0, 2))).toEqual([
      ["user", "how do I release?"],
      [
        "assistant",
        "Two steps.\n\n#### Step 1: tag\n\nRun `git tag v1.2.0`.\n\n#### Step 2: push\n\nRun `git push --tags`.",
      ],
      ["user", "thanks"],
      ["assistant", "Glad to help."],
    ]);
    api.close();
  });

  test("the same history read again in another time zone adds nothing; a session started there reads in its zone", async () => {
    const repo = tempHome("aider-tz-");
    const file = join(repo, ".aider.chat.history.md");
    writeFileSync(file, aiderHistory());
    const zone = process.env.TZ;
    const { api } = openTemp();
    try {
      process.env.TZ = "Europe/Paris";
      expect((await importWith(api, "aider", [file])).messages.added).toBe(6);
      const before = api.sessions().map((s) => [s.id, messagesOf(api, s.id)]);
      // The laptop moves to Tokyo, where aider appends one more session.
      process.env.TZ = "Asia/Tokyo";
      appendFileSync(file, "\n# aider chat started at 2026-02-12 08:00:00\n\n#### in Tokyo now\n\nKonnichiwa.\n");
      const r = await importWith(api, "aider", [file]);
      expect(r.messages).toMatchObject({ added: 2, existing: 6 });
      for (const [id, msgs] of before)
        expect(messagesOf(api, id as string)).toEqual(msgs as [string, string, string][]);
      expect(messagesOf(api, `aider-${shortHash(file)}-20260212-080000`)).toEqual([
        ["user", "in Tokyo now", "2026-02-11T23:00:00.000000000Z"],
        ["assistant", "Konnichiwa.", "2026-02-11T23:00:00.001000000Z"],
      ]);
      // A --since pass in yet another zone finds the same ids too.
      process.env.TZ = "America/New_York";
      utimesSync(file, new Date(), new Date());
      expect((await importWith(api, "aider", [file], { since: 0n })).messages).toMatchObject({ added: 0, existing: 8 });
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
      api.close();
    }
  });

  test("two runs started within the same second keep both runs' messages, in one session", async () => {
    const repo = tempHome("aider-same-second-");
    const file = join(repo, ".aider.chat.history.md");
    const run = (prompt: string, reply: string) =>
      `\n# aider chat started at 2026-05-01 10:00:00\n\n#### ${prompt}  \n\n${reply}\n`;
    writeFileSync(file, run("fix the typo in README", "Fixed the typo."));
    const { api } = openTemp();
    expect((await importWith(api, "aider", [file])).messages.added).toBe(2);
    appendFileSync(file, run("add a license file", "Added LICENSE."));
    expect((await importWith(api, "aider", [file])).messages).toMatchObject({ added: 2, existing: 2 });
    const id = `aider-${shortHash(file)}-20260501-100000`;
    const at = parseTime("2026-05-01 10:00:00")!;
    expect(messagesOf(api, id)).toEqual([
      ["user", "fix the typo in README", nsToRfc3339(at)],
      ["assistant", "Fixed the typo.", nsToRfc3339(at + 1_000_000n)],
      ["user", "add a license file", nsToRfc3339(at + 2_000_000n)],
      ["assistant", "Added LICENSE.", nsToRfc3339(at + 3_000_000n)],
    ]);
    expect(sessionInfo(api, id)?.title).toBe("fix the typo in README");
    expect((await importWith(api, "aider", [file])).messages.added).toBe(0);
    api.close();
  });

  test("a markdown file that is not an aider history fails with its name", async () => {
    const dir = tempHome("aider-bad-");
    writeFileSync(join(dir, ".aider.chat.history.md"), "# Notes\n\nsome text\n");
    const { api } = openTemp();
    const r = await importWith(api, "aider", [join(dir, ".aider.chat.history.md")]);
    expect(r.failed[0]!.reason).toContain(".aider.chat.history.md: not an aider chat history");
    api.close();
  });
});

describe("import chatgpt", () => {
  const expected: [string, string, string][] = [
    ["user", "How long should the bulk ferment be at 24 °C?", "2026-01-05T08:00:00.000000000Z"],
    ["assistant", "About 4 to 5 hours, until it has grown by half.", "2026-01-05T08:00:20.250000000Z"],
    ["user", "and overnight in the fridge?", "2026-01-05T08:05:00.000000000Z"],
    ["assistant", "Yes: shape, then 12 to 16 hours at 4 °C.", "2026-01-05T08:05:10.000000000Z"],
  ];

  test("conversations.json: the active branch only, hidden and tool messages left out, titles", async () => {
    const dir = tempHome("gpt-");
    writeFileSync(join(dir, "conversations.json"), JSON.stringify([conversation(), conversation2(), { nonsense: 1 }]));
    const { api } = openTemp();
    const r = await importWith(api, "chatgpt", [join(dir, "conversations.json")]);
    expect(r).toMatchObject({ sessions: 2, messages: { added: 6 }, skippedCount: 1 });
    expect(messagesOf(api, `gpt-${GPT_ID}`)).toEqual(expected);
    expect(sessionInfo(api, `gpt-${GPT_ID}`)).toMatchObject({ source: "chatgpt", title: "Sourdough schedule" });
    expect(messagesOf(api, `gpt-${GPT_ID2}`)).toEqual([
      ["user", "name three prime numbers", "2026-01-06T11:46:40.000000000Z"],
      ["assistant", "2, 3 and 5.", "2026-01-06T11:46:42.000000000Z"],
    ]);
    expect(sessionInfo(api, `gpt-${GPT_ID2}`)!.title).toBe("name three prime numbers");
    api.close();
  });

  test("another tool's conversations.json (a Claude.ai export) is one failure naming the file, not a skip per record", async () => {
    const dir = tempHome("gpt-");
    const claude = (uuid: string, name: string, at: string) => ({
      uuid,
      name,
      created_at: at,
      updated_at: at,
      account: { uuid: "0d1e2f3a-4b5c-4d6e-8f7a-8b9c0d1e2f3a" },
      chat_messages: [
        {
          uuid: `${uuid}-m1`,
          text: "How do I revive a starter?",
          content: [{ type: "text", text: "How do I revive a starter?", citations: [] }],
          sender: "human",
          created_at: at,
          updated_at: at,
          attachments: [],
          files: [],
        },
      ],
    });
    writeFileSync(
      join(dir, "conversations.json"),
      JSON.stringify([
        claude("4f2c9a1e-1111-4222-8333-944445555666", "Starter", "2025-03-01T10:00:00.000000Z"),
        claude("5f2c9a1e-1111-4222-8333-944445555666", "Crumb", "2025-03-02T10:00:00.000000Z"),
      ]),
    );
    writeFileSync(join(dir, "conversations-000.json"), "[]");
    const { api } = openTemp();
    const r = await importWith(api, "chatgpt", [dir]);
    expect(r).toMatchObject({ files: { found: 2, read: 1, failed: 1 }, sessions: 0, skippedCount: 0 });
    expect(r.failed[0]!.reason).toBe(
      `${join(dir, "conversations.json")}: not a ChatGPT export (no conversation has a mapping of messages)`,
    );
    // A ChatGPT export whose only conversation is an empty shell (no mapping) is still one: a skipped record.
    const shell = join(dir, "shell", "conversations.json");
    mkdirSync(join(dir, "shell"));
    writeFileSync(
      shell,
      JSON.stringify([
        { id: GPT_ID, conversation_id: GPT_ID, title: "New chat", create_time: 1_767_600_000.5, current_node: null },
      ]),
    );
    expect(await importWith(api, "chatgpt", [shell])).toMatchObject({ files: { failed: 0 }, skippedCount: 1 });
    api.close();
  });

  test("without a usable current_node (absent, or not in the mapping) the newest leaf's branch is taken, children lists or not", async () => {
    const dir = tempHome("gpt-");
    const t = 1_767_700_000;
    const msg = (id: string, role: string, at: number, text: string) => ({
      id,
      author: { role, name: null, metadata: {} },
      create_time: at,
      content: { content_type: "text", parts: [text] },
      recipient: "all",
      metadata: {},
    });
    // A slim export: nodes carry their parent only, no children lists; the reply was regenerated.
    const mapping = {
      root: { id: "root", message: null, parent: null },
      u1: { id: "u1", message: msg("u1", "user", t, "name a prime"), parent: "root" },
      a_old: { id: "a_old", message: msg("a_old", "assistant", t + 2, "9"), parent: "u1" },
      a_new: { id: "a_new", message: msg("a_new", "assistant", t + 5, "7"), parent: "u1" },
    };
    const conv = (id: string, current: unknown) => ({
      id,
      conversation_id: id,
      title: "Primes",
      create_time: t,
      mapping,
      current_node: current,
    });
    writeFileSync(
      join(dir, "conversations.json"),
      JSON.stringify([
        conv("6800aaaa-0000-8000-8000-000000000001", null),
        conv("6800aaaa-0000-8000-8000-000000000002", "gone"),
      ]),
    );
    const { api } = openTemp();
    await importWith(api, "chatgpt", [join(dir, "conversations.json")]);
    for (const id of ["6800aaaa-0000-8000-8000-000000000001", "6800aaaa-0000-8000-8000-000000000002"])
      expect(messagesOf(api, `gpt-${id}`).map((m) => m.slice(0, 2))).toEqual([
        ["user", "name a prime"],
        ["assistant", "7"],
      ]);
    api.close();
  });

  test("a later export whose active branch changed (a prompt edited since) leaves the old branch out, as a first import does", async () => {
    const dir = tempHome("gpt-");
    const t = 1_767_800_000;
    const node = (id: string, parent: string | null, role?: string, at = t, text = "") => ({
      id,
      parent,
      message: role
        ? {
            id,
            author: { role },
            create_time: at,
            content: { content_type: "text", parts: [text] },
            recipient: "all",
            metadata: {},
          }
        : null,
    });
    const mapping: Record<string, unknown> = {
      root: node("root", null),
      u1: node("u1", "root", "user", t, "how do I undo a git rebase?"),
      a1: node("a1", "u1", "assistant", t + 5, "git reflog, then reset --hard."),
      u2: node("u2", "a1", "user", t + 60, "and if I pushed?"),
      a2: node("a2", "u2", "assistant", t + 65, "Force-push with lease."),
    };
    const id = "6900bbbb-0000-8000-8000-000000000001";
    const write = (current: string) =>
      writeFileSync(
        join(dir, "conversations.json"),
        JSON.stringify([{ id, title: "Undo rebase", create_time: t, current_node: current, mapping }]),
      );
    write("a2");
    const { api } = openTemp();
    await importWith(api, "chatgpt", [join(dir, "conversations.json")]);
    expect(messagesOf(api, `gpt-${id}`)).toHaveLength(4);
    // The second prompt edited in ChatGPT: a new branch from a1 is the active one now, the old one stays in the export.
    mapping.u2b = node("u2b", "a1", "user", t + 120, "and if I already pushed to main?");
    mapping.a2b = node("a2b", "u2b", "assistant", t + 125, "Revert instead.");
    write("a2b");
    const r = await importWith(api, "chatgpt", [join(dir, "conversations.json")]);
    expect(r.messages).toMatchObject({ added: 2, removed: 2 });
    const branch = [
      "how do I undo a git rebase?",
      "git reflog, then reset --hard.",
      "and if I already pushed to main?",
      "Revert instead.",
    ];
    expect(messagesOf(api, `gpt-${id}`).map((m) => m[1])).toEqual(branch);
    const fresh = openTemp().api;
    await importWith(fresh, "chatgpt", [join(dir, "conversations.json")]);
    expect(messagesOf(fresh, `gpt-${id}`)).toEqual(messagesOf(api, `gpt-${id}`));
    expect((await importWith(api, "chatgpt", [join(dir, "conversations.json")])).messages.removed).toBe(0);
    fresh.close();
    api.close();
  });

  test("a voice conversation: the audio transcriptions are the text", async () => {
    const dir = tempHome("gpt-");
    writeFileSync(join(dir, "conversations.json"), JSON.stringify([voiceConversation()]));
    const { api } = openTemp();
    const r = await importWith(api, "chatgpt", [join(dir, "conversations.json")]);
    expect(r.messages.added).toBe(2);
    expect(messagesOf(api, `gpt-${GPT_VOICE_ID}`)).toEqual([
      ["user", "When is the last train?", "2026-01-07T15:33:20.000000000Z"],
      ["assistant", "At 23:40.", "2026-01-07T15:33:23.000000000Z"],
    ]);
    api.close();
  });

  test("an export zip with sharded conversations-NNN.json, stored or deflated; re-import adds nothing", async () => {
    const dir = tempHome("gpt-");
    const file = join(dir, "chatgpt-export.zip");
    writeFileSync(
      file,
      zip({
        "conversations-000.json": JSON.stringify([conversation()]),
        "conversations-001.json": JSON.stringify([conversation2()]),
        "user.json": "{}",
      }),
    );
    mkdirSync(join(dir, "stored"));
    writeFileSync(
      join(dir, "stored", "export.zip"),
      zip({ "conversations.json": JSON.stringify([conversation()]) }, false),
    );
    const { api } = openTemp();
    const r = await importWith(api, "chatgpt", [file]);
    expect(r).toMatchObject({ sessions: 2, messages: { added: 6 } });
    expect(messagesOf(api, `gpt-${GPT_ID}`)).toEqual(expected);
    const stored = await importWith(api, "chatgpt", [join(dir, "stored")]);
    expect(stored.messages).toMatchObject({ added: 0, existing: 4 });
    api.close();
  });

  test("a zip64 export (as written past 4 GiB or 65,535 entries) is read", async () => {
    const file = join(tempHome("gpt-"), "big-export.zip");
    writeFileSync(
      file,
      zip({ "images/a.png": "x", "conversations.json": JSON.stringify([conversation(), conversation2()]) }, true, true),
    );
    const { api } = openTemp();
    const r = await importWith(api, "chatgpt", [file]);
    expect(r).toMatchObject({ failed: [], sessions: 2, messages: { added: 6 } });
    expect(messagesOf(api, `gpt-${GPT_ID}`)).toEqual(expected);
    api.close();
  });

  test("a zip bomb is refused with the named limit; a zip without conversations is not an export", async () => {
    const dir = tempHome("gpt-");
    const bomb = Buffer.from(zip({ "conversations.json": "[]" }));
    // Declare 2 GiB uncompressed in the central directory entry.
    const cd = bomb.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    bomb.writeUInt32LE(0x80000000, cd + 24);
    writeFileSync(join(dir, "bomb.zip"), bomb);
    writeFileSync(join(dir, "other.zip"), zip({ "photo.txt": "x" }));
    const { api } = openTemp();
    const r = await importWith(api, "chatgpt", [dir]);
    expect(r.files.failed).toBe(2);
    expect(r.failed.map((f) => f.reason).join("\n")).toContain("1024 MiB limit for one zip entry");
    expect(r.failed.map((f) => f.reason).join("\n")).toContain("other.zip: not a ChatGPT export");
    api.close();
  });
});
