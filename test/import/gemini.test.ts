import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openTemp, removeTempHomes, tempHome } from "../fixture/home.ts";
import { sessionB } from "../fixture/import/claude-code.ts";
import { rollout } from "../fixture/import/codex.ts";
import { chat, GEM_ID, GEM_LEGACY_ID, GEM_SUB_ID, writeGeminiHome } from "../fixture/import/gemini.ts";
import { importWith, memvoyExportLines, messagesOf, sessionInfo } from "./support.ts";

afterAll(removeTempHomes);

describe("import gemini", () => {
  test("JSONL chats replay upserts, $rewindTo and $set exactly; legacy JSON chats; sub-agent chats name their parent", async () => {
    const { home } = writeGeminiHome(tempHome("gem-src-"));
    const { api } = openTemp();
    const r = await importWith(api, "gemini", [], { env: { GEMINI_CLI_HOME: home } });
    expect(r.files).toMatchObject({ found: 3, read: 3, failed: 0 });
    expect(r.skipped.map((s) => s.line)).toEqual([8, 14]);
    expect(messagesOf(api, `gem-${GEM_ID}`)).toEqual([
      ["user", "list the open ports", "2026-08-01T07:00:01.000000000Z"],
      ["assistant", "Ports 22 and 8080 are open.", "2026-08-01T07:00:03.000000000Z"],
      ["user", "which process holds 8080?", "2026-08-01T07:02:00.000000000Z"],
      ["assistant", "node (pid 4242), the dev server.", "2026-08-01T07:02:03.000000000Z"],
    ]);
    expect(sessionInfo(api, `gem-${GEM_ID}`)).toMatchObject({ source: "gemini", title: "Open ports on the dev box" });
    expect(messagesOf(api, `gem-${GEM_LEGACY_ID}`)).toEqual([
      ["user", "explain the Makefile", "2025-12-01T10:00:01.000000000Z"],
      ["assistant", "It builds, tests and packages.", "2025-12-01T10:00:05.000000000Z"],
    ]);
    expect(sessionInfo(api, `gem-${GEM_LEGACY_ID}`)!.title).toBe("explain the Makefile");
    expect(messagesOf(api, `gem-${GEM_SUB_ID}`)).toEqual([
      ["user", "scan the ports", "2026-08-01T07:00:10.000000000Z"],
      ["assistant", "22, 8080", "2026-08-01T07:00:12.000000000Z"],
    ]);
    expect(sessionInfo(api, `gem-${GEM_SUB_ID}`)).toMatchObject({
      parent: `gem-${GEM_ID}`,
      project: "/home/dev/box",
      title: "scan the ports",
    });
    expect((await importWith(api, "gemini", [], { env: { GEMINI_CLI_HOME: home } })).messages.added).toBe(0);
    api.close();
  });

  test("a chat under a named project folder takes its project from .project_root, as the CLI records it", async () => {
    const project = join(tempHome("gem-src-"), ".gemini", "tmp", "box");
    mkdirSync(join(project, "chats"), { recursive: true });
    writeFileSync(join(project, ".project_root"), "/home/dev/box\n");
    writeFileSync(
      join(project, "chats", `session-2026-08-01T07-00-${GEM_ID.slice(0, 8)}.jsonl`),
      `${chat().join("\n")}\n`,
    );
    const { api } = openTemp();
    await importWith(api, "gemini", [project]);
    expect(sessionInfo(api, `gem-${GEM_ID}`)).toMatchObject({ source: "gemini", project: "/home/dev/box" });
    api.close();
  });

  test("/chat save checkpoints are imported, titled by their tag; turns a chat of the project holds are not doubled", async () => {
    const { home } = writeGeminiHome(tempHome("gem-src-"));
    const project = join(home, ".gemini", "tmp", "9d1c0a7e");
    const user = (text: string) => ({ role: "user", parts: [{ text }] });
    const model = (...parts: unknown[]) => ({ role: "model", parts });
    // Saved after a resumed conversation whose chat file is gone: the first turns are the chat's, the rest only here.
    const history = [
      // Current builds merge consecutive user turns: the session context and the first prompt are one turn's parts.
      {
        role: "user",
        parts: [
          {
            text: "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n</session_context>",
          },
          { text: "list the open ports" },
        ],
      },
      model(
        { text: "use ss", thought: true },
        { functionCall: { name: "run_shell_command", args: { command: "ss" } } },
      ),
      { role: "user", parts: [{ functionResponse: { name: "run_shell_command", response: { output: "LISTEN 22" } } }] },
      model({ text: "Ports 22 and 8080 are open." }),
      user("which process holds 8080?"),
      model({ text: "node (pid 4242), the dev server." }),
      {
        role: "user",
        parts: [
          { text: "Here is the user's editor context as a JSON object. This is for your information only.\n{}" },
          { text: "what about 22?" },
        ],
      },
      model({ text: "sshd." }),
      user("stop it\n--- Content from referenced files ---\nContent from @pid.txt:\n4242\n--- End of content ---"),
      model({ text: "Stopped " }, { text: "the dev server." }),
    ];
    const file = join(project, "checkpoint-ports%20cleanup.json");
    writeFileSync(file, JSON.stringify({ history, authType: "oauth-personal" }, null, 2));
    // An older build's checkpoint: the history alone, with the context turn and its answer.
    const legacy = [
      user("This is the Gemini CLI. We are setting up the context for our chat.\nToday's date is Monday."),
      model({ text: "Got it. Thanks for the context!" }),
      user("what is in the Makefile?"),
      model({ text: "Three targets." }),
    ];
    writeFileSync(join(project, "checkpoint-make.json"), JSON.stringify(legacy, null, 2));
    // The first builds' untagged save.
    writeFileSync(join(project, "checkpoint.json"), JSON.stringify([...legacy.slice(0, 2), user("lint it")]));
    const { api } = openTemp();
    const r = await importWith(api, "gemini", [], { env: { GEMINI_CLI_HOME: home } });
    expect(r.files).toMatchObject({ found: 6, read: 6, failed: 0 });
    // The space is not in the session-id rules: the id keeps a hash of the name, as every such tag's does.
    const id = "gem-checkpoint-9d1c0a7e-ports_cleanup-aacec35faf21a365";
    const texts = (session: string) => messagesOf(api, session).map(([role, text]) => [role, text]);
    expect(texts(id)).toEqual([
      ["user", "what about 22?"],
      ["assistant", "sshd."],
      ["user", "stop it"],
      ["assistant", "Stopped the dev server."],
    ]);
    expect(sessionInfo(api, id)).toMatchObject({ source: "gemini", title: "ports cleanup", project: "9d1c0a7e" });
    expect(texts("gem-checkpoint-9d1c0a7e-make")).toEqual([
      ["user", "what is in the Makefile?"],
      ["assistant", "Three targets."],
    ]);
    expect(texts("gem-checkpoint-9d1c0a7e")).toEqual([["user", "lint it"]]);
    expect(sessionInfo(api, "gem-checkpoint-9d1c0a7e")).toMatchObject({ title: "lint it" });
    // The chat kept as it was; nothing new on a second pass.
    expect(messagesOf(api, `gem-${GEM_ID}`)).toHaveLength(4);
    expect((await importWith(api, "gemini", [], { env: { GEMINI_CLI_HOME: home } })).messages.added).toBe(0);
    // Saved again later under the same tag, after the chat was deleted (the CLI's retention): one new turn, no copy.
    rmSync(join(project, "chats"), { recursive: true });
    writeFileSync(file, JSON.stringify({ history: [...history, user("and restart it")] }, null, 2));
    const again = await importWith(api, "gemini", [], { env: { GEMINI_CLI_HOME: home } });
    expect(again.messages).toMatchObject({ added: 1 });
    expect(texts(id)).toEqual([
      ["user", "what about 22?"],
      ["assistant", "sshd."],
      ["user", "stop it"],
      ["assistant", "Stopped the dev server."],
      ["user", "and restart it"],
    ]);
    api.close();
  });

  test("another tool's JSONL fails with its name; a chat holding only its metadata line is not refused", async () => {
    const dir = tempHome("gem-other-");
    const write = (name: string, lines: string[]) => {
      writeFileSync(join(dir, name), lines.join("\n") + "\n");
      return join(dir, name);
    };
    const transcript = write("transcript.jsonl", sessionB());
    const rolloutFile = write("rollout.jsonl", rollout());
    const exported = write("export.jsonl", memvoyExportLines());
    const fresh = write("session-2026-08-01T07-00-3f2e1d0c.jsonl", chat().slice(0, 1));
    const { api } = openTemp();
    const r = await importWith(api, "gemini", [transcript, rolloutFile, exported, fresh]);
    expect(r.files).toMatchObject({ found: 4, read: 1, failed: 3 });
    expect(r.failed.map((f) => f.reason)).toEqual([
      `${transcript}: not a Gemini CLI chat (no line is a chat record)`,
      `${rolloutFile}: not a Gemini CLI chat (no line is a chat record)`,
      `${exported}: not a Gemini CLI chat (no metadata line names the session)`,
    ]);
    expect(api.sessions()).toEqual([]);
    api.close();
  });

  test("a compression (the context rewritten by $set messages) removes nothing and adds no summary turn", async () => {
    const { home, chatFile } = writeGeminiHome(tempHome("gem-src-"));
    const { api } = openTemp();
    await importWith(api, "gemini", [], { env: { GEMINI_CLI_HOME: home } });
    const before = messagesOf(api, `gem-${GEM_ID}`);
    expect(before).toHaveLength(4);
    // What the CLI appends after /compress: the history it now sends, a summary turn standing for the older ones.
    const context = [
      {
        id: "c1",
        timestamp: "2026-08-01T07:05:00.000Z",
        type: "user",
        content: [{ text: "<state_snapshot>ports 22, 8080</state_snapshot>" }],
      },
      {
        id: "c2",
        timestamp: "2026-08-01T07:05:00.000Z",
        type: "gemini",
        content: [{ text: "Got it. Thanks for the additional context!" }],
      },
      { id: "m7", timestamp: "2026-08-01T07:02:03.000Z", type: "gemini", content: "node (pid 4242), the dev server." },
    ];
    appendFileSync(
      chatFile,
      `${JSON.stringify({ $set: { messages: context, lastUpdated: "2026-08-01T07:05:00.000Z" } })}\n${JSON.stringify({ id: "m9", timestamp: "2026-08-01T07:06:00.000Z", type: "user", content: "and port 22?" })}\n`,
    );
    const r = await importWith(api, "gemini", [], { env: { GEMINI_CLI_HOME: home } });
    expect(r.messages).toMatchObject({ added: 1, removed: 0 });
    expect(messagesOf(api, `gem-${GEM_ID}`)).toEqual([
      ...before,
      ["user", "and port 22?", "2026-08-01T07:06:00.000000000Z"],
    ]);
    api.close();
  });

  test("a prompt with an @-reference keeps what was typed, not the file pulled in", async () => {
    const dir = join(tempHome("gem-src-"), "chats");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `session-2026-08-01T07-00-${GEM_ID.slice(0, 8)}.jsonl`);
    const pulled = [
      { text: "explain @src/app.ts" },
      { text: "\n--- Content from referenced files ---" },
      { text: "\nContent from @/home/dev/box/src/app.ts:\n" },
      { text: "export const token = 42;" },
      { text: "\n--- End of content ---" },
    ];
    writeFileSync(
      file,
      `${[
        chat()[0],
        JSON.stringify({ id: "u1", timestamp: "2026-08-01T07:00:01.000Z", type: "user", content: pulled }),
        JSON.stringify({
          id: "u2",
          timestamp: "2026-08-01T07:01:00.000Z",
          type: "user",
          content: [{ text: "and @src/b.ts?" }, ...pulled.slice(1)],
          displayContent: [{ text: "and @src/b.ts?" }],
        }),
      ].join("\n")}\n`,
    );
    const { api } = openTemp();
    await importWith(api, "gemini", [file]);
    expect(messagesOf(api, `gem-${GEM_ID}`).map((m) => m[1])).toEqual(["explain @src/app.ts", "and @src/b.ts?"]);
    expect(sessionInfo(api, `gem-${GEM_ID}`)?.title).toBe("explain @src/app.ts");
    api.close();
  });

  test("what a hook adds to a prompt (<hook_context>) is not the person's words", async () => {
    const dir = join(tempHome("gem-src-"), "chats");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `session-2026-08-01T07-00-${GEM_ID.slice(0, 8)}.jsonl`);
    // gemini -p with a SessionStart hook: the hook's context goes before the prompt, in the displayed text too.
    const started = "<hook_context>Branch: main. 3 open issues.</hook_context>\n\nsummarize the open issues";
    writeFileSync(
      file,
      `${[
        chat()[0],
        JSON.stringify({ id: "u1", timestamp: "2026-08-01T07:00:01.000Z", type: "user", content: [{ text: started }] }),
        JSON.stringify({
          id: "g1",
          timestamp: "2026-08-01T07:00:05.000Z",
          type: "gemini",
          content: "Three issues are open.",
          thoughts: [],
          tokens: null,
          model: "gemini-2.5-pro",
        }),
        // A BeforeAgent hook appends its context as a part of its own; this turn recorded no displayed text.
        JSON.stringify({
          id: "u2",
          timestamp: "2026-08-01T07:01:00.000Z",
          type: "user",
          content: [{ text: "close the oldest one" }, { text: "<hook_context>Policy: never close P0.</hook_context>" }],
        }),
      ].join("\n")}\n`,
    );
    const { api } = openTemp();
    await importWith(api, "gemini", [file]);
    expect(messagesOf(api, `gem-${GEM_ID}`).map((m) => m[1])).toEqual([
      "summarize the open issues",
      "Three issues are open.",
      "close the oldest one",
    ]);
    expect(sessionInfo(api, `gem-${GEM_ID}`)?.title).toBe("summarize the open issues");
    api.close();
  });

  test("turns the CLI adds itself (IDE context, a ! shell command, leaving plan mode, added folders) are not the person's", async () => {
    const dir = join(tempHome("gem-src-"), "chats");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `session-2026-08-01T07-00-${GEM_ID.slice(0, 8)}.jsonl`);
    let n = 0;
    const user = (text: string) =>
      JSON.stringify({
        id: `u${++n}`,
        timestamp: `2026-08-01T07:00:${String(n).padStart(2, "0")}.000Z`,
        type: "user",
        content: [{ text }],
      });
    const ide = JSON.stringify(
      { activeFile: { path: "/home/dev/box/src/app.ts", cursor: { line: 3, character: 1 } }, otherOpenFiles: [] },
      null,
      2,
    );
    writeFileSync(
      file,
      `${[
        chat()[0],
        user(
          `Here is the user's editor context as a JSON object. This is for your information only.\n\`\`\`json\n${ide}\n\`\`\``,
        ),
        user("why does app.ts export a token?"),
        user(
          "Here is a summary of changes in the user's editor context, in JSON format. This is for your information only.\n```json\n{}\n```",
        ),
        user(
          "I ran the following shell command:\n```sh\nls src\n```\n\nThis produced the following result:\n```\napp.ts\n```",
        ),
        user("User has manually exited Plan Mode. Switching to Auto-Edit mode."),
        user("Plan approved. Switching to Default mode."),
        user("- **Workspace Directories:**\n  - /home/dev/box\n  - /home/dev/lib\n- **Directory Structure:**\n\nlib/"),
        user("remove it"),
      ].join("\n")}\n`,
    );
    const { api } = openTemp();
    await importWith(api, "gemini", [file]);
    expect(messagesOf(api, `gem-${GEM_ID}`).map((m) => m[1])).toEqual(["why does app.ts export a token?", "remove it"]);
    expect(sessionInfo(api, `gem-${GEM_ID}`)?.title).toBe("why does app.ts export a token?");
    api.close();
  });

  test("words typed during a turn with model steering on are the message, not the CLI's instruction around them", async () => {
    const dir = join(tempHome("gem-src-"), "chats");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `session-2026-08-01T07-00-${GEM_ID.slice(0, 8)}.jsonl`);
    const instruction =
      "Internal instruction: Re-evaluate the active plan using this user steering update. Classify it as ADD_TASK, MODIFY_TASK, CANCEL_TASK, or EXTRA_CONTEXT. Apply minimal-diff changes only to affected tasks and keep unaffected tasks active. Do not cancel/skip tasks unless the user explicitly cancels them. Acknowledge the steering briefly and state the course correction.";
    const user = (id: string, s: number, content: unknown) =>
      JSON.stringify({ id, timestamp: `2026-08-01T07:00:0${s}.000Z`, type: "user", content });
    writeFileSync(
      file,
      `${[
        chat()[0],
        user("u1", 1, [{ text: "rename the port flag" }]),
        // Mid-turn: the hint rides with the tool's response.
        user("u2", 2, [
          { text: `User steering update:\n<user_input>\nskip the tests folder\n</user_input>\n${instruction}` },
          { functionResponse: { id: "c1", name: "grep", response: { output: "src/cfg.ts" } } },
        ]),
        user("u3", 3, [{ text: `User steering update: "and the docs"\n${instruction}` }]),
        user("u4", 4, [
          { text: `User hints:\n<user_input>\n- keep the old name as an alias\n</user_input>\n\n${instruction}` },
        ]),
      ].join("\n")}\n`,
    );
    const { api } = openTemp();
    await importWith(api, "gemini", [file]);
    expect(messagesOf(api, `gem-${GEM_ID}`).map((m) => m[1])).toEqual([
      "rename the port flag",
      "skip the tests folder",
      "and the docs",
      "- keep the old name as an alias",
    ]);
    api.close();
  });

  test("checkpoints whose tags differ only in characters outside the session-id rules are separate sessions", async () => {
    const home = tempHome("gem-src-");
    const project = join(home, ".gemini", "tmp", "9d1c0a7e");
    mkdirSync(project, { recursive: true });
    const save = (tag: string, prompt: string, answer: string) =>
      writeFileSync(
        join(project, `checkpoint-${encodeURIComponent(tag)}.json`),
        JSON.stringify({
          history: [
            { role: "user", parts: [{ text: prompt }] },
            { role: "model", parts: [{ text: answer }] },
          ],
        }),
      );
    save("修正", "how do I fix the parser?", "Use a state machine.");
    save("設計", "design the cache", "An LRU cache.");
    const { api } = openTemp();
    const r = await importWith(api, "gemini", [], { env: { GEMINI_CLI_HOME: home } });
    expect(r).toMatchObject({ sessions: 2, messages: { added: 4 } });
    const fix = "gem-checkpoint-9d1c0a7e-__-d10d8ddcf6fbea52";
    const design = "gem-checkpoint-9d1c0a7e-__-e2d02e7675748146";
    expect(sessionInfo(api, fix)).toMatchObject({ title: "修正", messages: 2 });
    expect(sessionInfo(api, design)).toMatchObject({ title: "設計", messages: 2 });
    expect(messagesOf(api, fix).map((m) => m[1])).toEqual(["how do I fix the parser?", "Use a state machine."]);
    api.close();
  });

  test("a checkpoint imported before its id could keep a hash stays in its session when saved again", async () => {
    const home = tempHome("gem-src-");
    const project = join(home, ".gemini", "tmp", "9d1c0a7e");
    mkdirSync(project, { recursive: true });
    const file = join(project, `checkpoint-${encodeURIComponent("修正")}.json`);
    const turns = [
      { role: "user", parts: [{ text: "how do I fix the parser?" }] },
      { role: "model", parts: [{ text: "Use a state machine." }] },
    ];
    writeFileSync(file, JSON.stringify({ history: turns }));
    const { api } = openTemp();
    // The read state an earlier memvoy kept, which named no session (its id had no hash): the file changed since.
    const state = JSON.stringify({ base: "1780000000000000000" });
    api.imports.saveFileState("gemini", file, { size: 0, mtimeNs: 0n, offset: 0, head: "0:", state });
    const legacy = "gem-checkpoint-9d1c0a7e-__";
    expect((await importWith(api, "gemini", [], { env: { GEMINI_CLI_HOME: home } })).sessions).toBe(1);
    expect(sessionInfo(api, legacy)?.messages).toBe(2);
    writeFileSync(file, JSON.stringify({ history: [...turns, { role: "user", parts: [{ text: "and the tests?" }] }] }));
    const r = await importWith(api, "gemini", [], { env: { GEMINI_CLI_HOME: home } });
    expect(r).toMatchObject({ sessions: 1, messages: { added: 1, existing: 2 } });
    expect(sessionInfo(api, legacy)?.messages).toBe(3);
    api.close();
  });

  test("a rewind of messages imported in an earlier pass removes them", async () => {
    const { home, chatFile } = writeGeminiHome(tempHome("gem-src-"));
    const { api } = openTemp();
    await importWith(api, "gemini", [], { env: { GEMINI_CLI_HOME: home } });
    appendFileSync(
      chatFile,
      JSON.stringify({ $rewindTo: "m6" }) +
        "\n" +
        JSON.stringify({ id: "m9", timestamp: "2026-08-01T07:03:00.000Z", type: "user", content: "never mind" }) +
        "\n",
    );
    const r = await importWith(api, "gemini", [], { env: { GEMINI_CLI_HOME: home } });
    expect(r.messages).toMatchObject({ added: 1, removed: 2 });
    expect(messagesOf(api, `gem-${GEM_ID}`).map((m) => m[1])).toEqual([
      "list the open ports",
      "Ports 22 and 8080 are open.",
      "never mind",
    ]);
    // The removal is kept: the next pass brings nothing back.
    expect((await importWith(api, "gemini", [chatFile])).messages.added).toBe(0);
    api.close();
  });
});
