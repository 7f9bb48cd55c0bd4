import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stampAgrees } from "../fixture/history-stamp.ts";
import { openTemp, removeTempHomes, tempHome } from "../fixture/home.ts";
import { filesHolding } from "../fixture/files-holding.ts";
import {
  CC_SESSION_A,
  CC_SESSION_B,
  CC_SESSION_C,
  CC_SESSION_D,
  sessionA,
  sessionB,
  sessionInlineD,
  writeClaudeProjects,
} from "../fixture/import/claude-code.ts";
import { rollout } from "../fixture/import/codex.ts";
import { chat } from "../fixture/import/gemini.ts";
import { importWith, memvoyExportLines, messagesOf, sessionInfo } from "./support.ts";

afterAll(removeTempHomes);

const A = `cc-${CC_SESSION_A}`;
const B = `cc-${CC_SESSION_B}`;
const C = `cc-${CC_SESSION_C}`;

describe("import claude-code", () => {
  test("imports project and sub-agent transcripts exactly: text only, chain order, streaming records merged, titles", async () => {
    const projects = writeClaudeProjects(tempHome("cc-src-"));
    const { api } = openTemp();
    const r = await importWith(api, "claude-code", [projects]);
    expect(r.files).toEqual({ found: 5, read: 5, unchanged: 0, failed: 0 });
    expect(r.sessions).toBe(5);
    expect(r.messages.added).toBe(16);
    // The malformed line is skipped and named by file:line.
    expect(r.skippedCount).toBe(1);
    expect(r.skipped[0]).toMatchObject({ line: 9, reason: "not valid JSON" });
    expect(r.skipped[0]!.file).toEndWith(`${CC_SESSION_A}.jsonl`);

    // isMeta, the /clear wrapper, thinking, the tool_use and the tool_result are not messages; the reminder is cut;
    // the three streamed records of msg_01 are one message with the repeated text once; a-8 follows a-7 by the chain.
    expect(messagesOf(api, A)).toEqual([
      ["user", "The checkout test fails one run in ten. Can you find out why?", "2026-03-01T09:00:05.000000000Z"],
      ["assistant", "Let me look at the test first.", "2026-03-01T09:00:08.000000000Z"],
      [
        "assistant",
        "The test shares one cart id between runs. Shall I give each run its own?",
        "2026-03-01T09:00:30.000000000Z",
      ],
      ["user", "Yes, please fix it.", "2026-03-01T09:01:00.000000000Z"],
      ["assistant", "Done: each run now creates its own cart.", "2026-03-01T09:01:20.000000000Z"],
    ]);
    expect(sessionInfo(api, A)).toMatchObject({
      source: "claude-code",
      title: "Fix the flaky checkout test",
      project: "/home/dev/shop",
    });
    expect(sessionInfo(api, A)!.parent).toBeUndefined();

    // 2.0.x: the tool_result user record and the interruption marker are not messages.
    expect(messagesOf(api, B)).toEqual([
      ["user", "Add rate limiting to the login endpoint", "2026-04-02T10:00:00.000000000Z"],
      ["assistant", "I will delegate the survey of the middleware to a sub-agent.", "2026-04-02T10:00:04.000000000Z"],
      ["assistant", "Rate limiting now sits after auth: 5 attempts a minute.", "2026-04-02T10:00:50.000000000Z"],
    ]);
    expect(sessionInfo(api, B)).toMatchObject({ title: "Login rate limit", project: "/home/dev/api" });
    const subB = `${B}-agent-a1b2c3d4`;
    expect(messagesOf(api, subB)).toEqual([
      ["user", "List the middleware", "2026-04-02T10:00:05.000000000Z"],
      ["assistant", "auth, cors, logging", "2026-04-02T10:00:30.000000000Z"],
    ]);
    expect(sessionInfo(api, subB)).toMatchObject({ parent: B, title: "List the middleware" });

    // 2.1.x: queue-operation, progress, api_error, compact boundary and the compact summary are left out.
    expect(messagesOf(api, C)).toEqual([
      ["user", "why is the deploy slow?", "2026-05-03T08:00:01.000000000Z"],
      ["assistant", "The image build has no layer cache.", "2026-05-03T08:00:09.000000000Z"],
      ["user", "Enable it, token [REDACTED:anthropic-key]", "2026-05-03T08:11:00.000000000Z"],
      ["assistant", "Layer caching is on; the deploy takes 2 minutes now.", "2026-05-03T08:11:30.000000000Z"],
    ]);
    expect(r.redacted).toBe(1);
    expect(sessionInfo(api, C)).toMatchObject({ title: "why is the deploy slow?", project: "/home/dev/infra" });
    expect(messagesOf(api, `${C}-agent-9f8e7d6c`)).toEqual([
      ["user", "Time each deploy step", "2026-05-03T08:00:04.000000000Z"],
      ["assistant", "docker build: 7 minutes", "2026-05-03T08:00:08.000000000Z"],
    ]);
    expect(sessionInfo(api, `${C}-agent-9f8e7d6c`)).toMatchObject({
      parent: C,
      messages: 2,
      title: "Time each deploy step",
      project: "/home/dev/infra",
    });
    api.close();
  });

  test("a sub-agent held inline (isSidechain, before 2.0.28) is its own session naming its parent, also across passes", async () => {
    const dir = join(tempHome("cc-src-"), "-home-dev-docs");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${CC_SESSION_D}.jsonl`);
    const lines = sessionInlineD();
    writeFileSync(file, `${lines.slice(0, 3).join("\n")}\n`);
    const { api } = openTemp();
    await importWith(api, "claude-code", [dir]);
    appendFileSync(file, `${lines.slice(3).join("\n")}\n`);
    const r = await importWith(api, "claude-code", [dir]);
    expect(r.messages.added).toBe(2);
    const D = `cc-${CC_SESSION_D}`;
    const agent = `${D}-sidechain-d-s1`;
    expect(messagesOf(api, D)).toEqual([
      ["user", "Find every broken link in the docs.", "2026-04-02T10:00:00.000000000Z"],
      ["assistant", "I'll send an agent through the docs.", "2026-04-02T10:00:03.000000000Z"],
      ["assistant", "Two links are broken: a.md -> b.md, and c.md.", "2026-04-02T10:00:12.000000000Z"],
    ]);
    expect(messagesOf(api, agent)).toEqual([
      ["user", "List the broken links under docs/.", "2026-04-02T10:00:04.000000000Z"],
      ["assistant", "Two: docs/a.md links to b.md, which is gone; and c.md.", "2026-04-02T10:00:09.000000000Z"],
    ]);
    expect(sessionInfo(api, agent)).toMatchObject({
      source: "claude-code",
      parent: D,
      project: "/home/dev/docs",
      title: "List the broken links under docs/.",
    });
    expect(sessionInfo(api, D)?.title).toBe("Find every broken link in the docs.");
    expect((await importWith(api, "claude-code", [dir])).messages.added).toBe(0);
    api.close();
  });

  test("the auto-compaction and prompt-suggestion agents' transcripts (Claude Code's own, not the person's) are not imported", async () => {
    const projects = join(tempHome("cc-src-"), "projects");
    const dir = join(projects, "-home-dev-docs");
    mkdirSync(join(dir, CC_SESSION_D, "subagents"), { recursive: true });
    const lines = sessionInlineD();
    writeFileSync(join(dir, `${CC_SESSION_D}.jsonl`), `${lines.slice(0, 2).join("\n")}\n`);
    const retold = lines
      .slice(0, 2)
      .map((l) => JSON.stringify({ ...JSON.parse(l), isSidechain: true, agentId: "acompact-1f2e" }));
    writeFileSync(join(dir, CC_SESSION_D, "subagents", "agent-acompact-1f2e.jsonl"), `${retold.join("\n")}\n`);
    // Asked to guess the person's next prompt: its "user" text is Claude Code's instruction, its reply a guess.
    const guess = (type: string, uuid: string, parent: string | null, content: unknown, at: string) =>
      JSON.stringify({
        parentUuid: parent,
        isSidechain: true,
        userType: "external",
        cwd: "/home/dev/docs",
        sessionId: CC_SESSION_D,
        version: "2.1.39",
        agentId: "aprompt_suggestion-4b9a8c",
        type,
        uuid,
        timestamp: at,
        message:
          type === "user"
            ? { role: "user", content }
            : { id: "msg_sugg", type: "message", role: "assistant", content: [{ type: "text", text: content }] },
        ...(type === "assistant" && { requestId: "req_sugg" }),
      });
    writeFileSync(
      join(dir, CC_SESSION_D, "subagents", "agent-aprompt_suggestion-4b9a8c.jsonl"),
      `${[
        guess(
          "user",
          "s1",
          null,
          "[SUGGESTION MODE: Suggest what the user might naturally type next into Claude Code.]\n\nFIRST: Look at the user's recent messages and original request.",
          "2026-04-02T10:00:09.000Z",
        ),
        guess("assistant", "s2", "s1", "fix the remaining links", "2026-04-02T10:00:10.000Z"),
      ].join("\n")}\n`,
    );
    const { api } = openTemp();
    const r = await importWith(api, "claude-code", [projects]);
    expect(r).toMatchObject({ files: { found: 1 }, sessions: 1, messages: { added: 2 } });
    expect(api.sessions().map((s) => s.id)).toEqual([`cc-${CC_SESSION_D}`]);
    api.close();
  });

  test("a dynamic workflow's journal beside its agents' transcripts is no failure; its agents are sub-agent sessions", async () => {
    const projects = join(tempHome("cc-src-"), "projects");
    const dir = join(projects, "-home-dev-docs");
    const run = join(dir, CC_SESSION_D, "subagents", "workflows", "wf_84c9119d-127");
    mkdirSync(run, { recursive: true });
    writeFileSync(join(dir, `${CC_SESSION_D}.jsonl`), `${sessionInlineD().slice(0, 2).join("\n")}\n`);
    writeFileSync(
      join(run, "journal.jsonl"),
      `${[
        { type: "started", agentId: "a7748a49cbfabf1b6", label: "review", phase: "check" },
        { type: "result", agentId: "a7748a49cbfabf1b6", result: { status: "completed" } },
      ]
        .map((l) => JSON.stringify(l))
        .join("\n")}\n`,
    );
    const record = (type: string, uuid: string, parent: string | null, text: string, at: string) =>
      JSON.stringify({
        parentUuid: parent,
        isSidechain: true,
        agentId: "a7748a49cbfabf1b6",
        cwd: "/home/dev/docs",
        sessionId: CC_SESSION_D,
        version: "2.1.150",
        type,
        uuid,
        timestamp: at,
        message:
          type === "user"
            ? { role: "user", content: text }
            : { id: "msg_wf", type: "message", role: "assistant", content: [{ type: "text", text }] },
        ...(type === "assistant" && { requestId: "req_wf" }),
      });
    writeFileSync(
      join(run, "agent-a7748a49cbfabf1b6.jsonl"),
      `${[
        record("user", "w1", null, "Review the links on the docs index", "2026-04-02T10:00:09.000Z"),
        record("assistant", "w2", "w1", "Two links are broken.", "2026-04-02T10:00:10.000Z"),
      ].join("\n")}\n`,
    );
    const { api } = openTemp();
    const r = await importWith(api, "claude-code", [projects]);
    expect(r.failed).toEqual([]);
    expect(r).toMatchObject({ files: { found: 2, failed: 0 }, sessions: 2, messages: { added: 4 } });
    const agent = `cc-${CC_SESSION_D}-agent-a7748a49cbfabf1b6`;
    expect(messagesOf(api, agent).map(([role, text]) => [role, text])).toEqual([
      ["user", "Review the links on the docs index"],
      ["assistant", "Two links are broken."],
    ]);
    expect(sessionInfo(api, agent)!.parent).toBe(`cc-${CC_SESSION_D}`);
    api.close();
  });

  test("Claude Code's synthetic stand-ins for a reply (model <synthetic>) are not assistant messages", async () => {
    const dir = join(tempHome("cc-src-"), "-home-dev-docs");
    mkdirSync(dir, { recursive: true });
    const base = { sessionId: CC_SESSION_D, cwd: "/home/dev/docs", version: "2.1.118", userType: "external" };
    const usage = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const synthetic = (uuid: string, parent: string, text: string, at: string, extra: object = {}) =>
      JSON.stringify({
        ...base,
        type: "assistant",
        uuid,
        parentUuid: parent,
        timestamp: at,
        message: {
          id: `${uuid}-synthetic`,
          model: "<synthetic>",
          role: "assistant",
          type: "message",
          stop_reason: "stop_sequence",
          stop_sequence: "",
          usage,
          content: [{ type: "text", text }],
        },
        isApiErrorMessage: false,
        ...extra,
      });
    const line = (type: string, uuid: string, parent: string | null, message: object, at: string) =>
      JSON.stringify({ ...base, type, uuid, parentUuid: parent, timestamp: at, message });
    writeFileSync(
      join(dir, `${CC_SESSION_D}.jsonl`),
      `${[
        line("user", "u1", null, { role: "user", content: "list the broken links" }, "2026-09-01T10:00:00.000Z"),
        line(
          "user",
          "u2",
          "u1",
          { role: "user", content: [{ type: "text", text: "[Request interrupted by user]" }] },
          "2026-09-01T10:00:02.000Z",
        ),
        synthetic("a1", "u2", "No response requested.", "2026-09-01T10:00:02.100Z"),
        line("user", "u3", "a1", { role: "user", content: "only under docs/" }, "2026-09-01T10:00:10.000Z"),
        synthetic("a2", "u3", "You've hit your session limit · resets 2pm", "2026-09-01T10:00:11.000Z", {
          error: "rate_limit",
          isApiErrorMessage: true,
        }),
        line(
          "assistant",
          "a3",
          "a2",
          {
            id: "msg_real",
            model: "claude-opus-4-6",
            role: "assistant",
            type: "message",
            content: [{ type: "text", text: "Two links under docs/ are broken." }],
          },
          "2026-09-01T14:00:00.000Z",
        ),
      ].join("\n")}\n`,
    );
    const { api } = openTemp();
    await importWith(api, "claude-code", [dir]);
    expect(messagesOf(api, `cc-${CC_SESSION_D}`).map((m) => m.slice(0, 2))).toEqual([
      ["user", "list the broken links"],
      ["user", "only under docs/"],
      ["assistant", "Two links under docs/ are broken."],
    ]);
    api.close();
  });

  test("a skill's instructions loaded into the conversation are not the person's words, with or without isMeta", async () => {
    const dir = join(tempHome("cc-src-"), "-home-dev-site");
    mkdirSync(dir, { recursive: true });
    const base = { sessionId: CC_SESSION_D, cwd: "/home/dev/site", version: "2.1.90", userType: "external" };
    const line = (
      type: string,
      uuid: string,
      parent: string | null,
      content: unknown,
      at: string,
      extra: object = {},
    ) =>
      JSON.stringify({
        ...base,
        type,
        uuid,
        parentUuid: parent,
        timestamp: at,
        message:
          type === "user"
            ? { role: "user", content }
            : { id: `msg_${uuid}`, model: "claude-opus-4-6", role: "assistant", type: "message", content },
        ...(type === "assistant" && { requestId: `req_${uuid}` }),
        ...extra,
      });
    const skill = (name: string) => ({ type: "tool_use", id: `toolu_${name}`, name: "Skill", input: { skill: name } });
    const launched = (name: string) => ({
      type: "tool_result",
      tool_use_id: `toolu_${name}`,
      content: `Launching skill: ${name}`,
    });
    const body = (name: string) =>
      `Base directory for this skill: /home/dev/site/.claude/skills/${name}\n\n# ${name}\n\nRun the audit.`;
    writeFileSync(
      join(dir, `${CC_SESSION_D}.jsonl`),
      `${[
        line("user", "u1", null, "audit the landing page", "2026-09-02T10:00:00.000Z"),
        line("assistant", "a1", "u1", [skill("lighthouse")], "2026-09-02T10:00:02.000Z"),
        line("user", "u2", "a1", [launched("lighthouse")], "2026-09-02T10:00:02.100Z", {
          toolUseResult: { success: true, commandName: "lighthouse" },
        }),
        // Written as a record of its own, without isMeta.
        line("user", "u3", "u2", [{ type: "text", text: body("lighthouse") }], "2026-09-02T10:00:02.100Z", {
          sourceToolUseID: "toolu_lighthouse",
        }),
        line("assistant", "a2", "u3", [skill("a11y")], "2026-09-02T10:00:05.000Z"),
        // Written beside the tool's result.
        line("user", "u4", "a2", [launched("a11y"), { type: "text", text: body("a11y") }], "2026-09-02T10:00:05.100Z"),
        line(
          "assistant",
          "a3",
          "u4",
          [{ type: "text", text: "Score 92; two images lack alt text." }],
          "2026-09-02T10:00:40.000Z",
        ),
      ].join("\n")}\n`,
    );
    const { api } = openTemp();
    await importWith(api, "claude-code", [dir]);
    expect(messagesOf(api, `cc-${CC_SESSION_D}`).map((m) => m.slice(0, 2))).toEqual([
      ["user", "audit the landing page"],
      ["assistant", "Score 92; two images lack alt text."],
    ]);
    api.close();
  });

  test("a side question's agent (/btw) keeps the question and its answer, not the copy of the conversation it starts from", async () => {
    const projects = join(tempHome("cc-src-"), "projects");
    const dir = join(projects, "-home-dev-docs");
    const agents = join(dir, CC_SESSION_D, "subagents");
    mkdirSync(agents, { recursive: true });
    const base = { sessionId: CC_SESSION_D, cwd: "/home/dev/docs", version: "2.1.90", userType: "external" };
    const line = (
      type: string,
      uuid: string,
      parent: string | null,
      content: unknown,
      at: string,
      extra: object = {},
    ) =>
      JSON.stringify({
        ...base,
        type,
        uuid,
        parentUuid: parent,
        timestamp: at,
        message:
          type === "user"
            ? { role: "user", content }
            : { id: `msg_${uuid}`, model: "claude-opus-4-6", role: "assistant", type: "message", content },
        ...(type === "assistant" && { requestId: `req_${uuid}` }),
        ...extra,
      });
    const main = [
      line("user", "u1", null, "find every broken link in the docs", "2026-09-03T10:00:00.000Z"),
      line("assistant", "a1", "u1", [{ type: "text", text: "Checking the 40 pages now." }], "2026-09-03T10:00:05.000Z"),
    ];
    writeFileSync(join(dir, `${CC_SESSION_D}.jsonl`), `${main.join("\n")}\n`);
    // The agent's transcript: the conversation so far (the main records, marked as its own), then the question.
    const side = (l: string) =>
      JSON.stringify({ ...JSON.parse(l), isSidechain: true, agentId: "aside_question-94d26433f3755c77" });
    const file = join(agents, "agent-aside_question-94d26433f3755c77.jsonl");
    writeFileSync(file, `${main.map(side).join("\n")}\n`);
    const { api } = openTemp();
    await importWith(api, "claude-code", [projects]);
    expect(api.sessions().map((s) => s.id)).toEqual([`cc-${CC_SESSION_D}`]);
    const question =
      "<system-reminder>This is a side question from the user. You must answer this question directly in a single response.\n\nCRITICAL CONSTRAINTS:\n- You have NO tools available\n</system-reminder>\n\nwhich link checker do we use?";
    appendFileSync(
      file,
      `${[
        line("user", "q1", "a1", question, "2026-09-03T10:00:20.000Z"),
        line(
          "assistant",
          "q2",
          "q1",
          [{ type: "text", text: "lychee, run from the Makefile." }],
          "2026-09-03T10:00:22.000Z",
        ),
      ]
        .map(side)
        .join("\n")}\n`,
    );
    await importWith(api, "claude-code", [projects]);
    const sub = `cc-${CC_SESSION_D}-agent-aside_question-94d26433f3755c77`;
    expect(messagesOf(api, sub)).toEqual([
      ["user", "which link checker do we use?", "2026-09-03T10:00:20.000000000Z"],
      ["assistant", "lychee, run from the Makefile.", "2026-09-03T10:00:22.000000000Z"],
    ]);
    expect(sessionInfo(api, sub)).toMatchObject({
      parent: `cc-${CC_SESSION_D}`,
      title: "which link checker do we use?",
    });
    // Read whole in one pass, the same.
    const whole = openTemp().api;
    await importWith(whole, "claude-code", [projects]);
    expect(messagesOf(whole, sub)).toEqual(messagesOf(api, sub));
    whole.close();
    api.close();
  });

  test("text with an unpaired surrogate or a NUL character is kept, those characters as U+FFFD, not refused", async () => {
    const dir = join(tempHome("cc-src-"), "-home-dev-docs");
    mkdirSync(dir, { recursive: true });
    const base = { sessionId: CC_SESSION_D, cwd: "/home/dev/docs", version: "2.1.90" };
    // JSON.stringify of text cut inside an emoji, or of bytes that were not UTF-8, writes the lone half escaped.
    const lines = [
      `{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2026-09-04T10:00:00.000Z","message":{"role":"user","content":"the log shows caf\\udce9 and \\ud83d"},${JSON.stringify(base).slice(1)}`,
      `{"type":"assistant","uuid":"a1","parentUuid":"u1","requestId":"r1","timestamp":"2026-09-04T10:00:03.000Z","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"That byte is Latin-1: \\u0000 and \\udce9 are not UTF-8."}]},${JSON.stringify(base).slice(1)}`,
    ];
    writeFileSync(join(dir, `${CC_SESSION_D}.jsonl`), `${lines.join("\n")}\n`);
    const { api } = openTemp();
    const r = await importWith(api, "claude-code", [dir]);
    expect(r).toMatchObject({ messages: { added: 2 }, skippedCount: 0 });
    expect(messagesOf(api, `cc-${CC_SESSION_D}`).map((m) => m[1])).toEqual([
      "the log shows caf\uFFFD and \uFFFD",
      "That byte is Latin-1: \uFFFD and \uFFFD are not UTF-8.",
    ]);
    expect(sessionInfo(api, `cc-${CC_SESSION_D}`)?.title).toBe("the log shows caf\uFFFD and \uFFFD");
    expect((await importWith(api, "claude-code", [dir], {})).messages.added).toBe(0);
    api.close();
  });

  test("without a path, transcripts in ~/.config/claude/projects are read too; CLAUDE_CONFIG_DIR alone when set", async () => {
    const home = tempHome("cc-home-");
    writeClaudeProjects(join(home, ".claude"));
    const xdg = join(home, ".config", "claude", "projects", "-home-dev-docs");
    mkdirSync(xdg, { recursive: true });
    writeFileSync(join(xdg, `${CC_SESSION_D}.jsonl`), `${sessionInlineD().slice(0, 2).join("\n")}\n`);
    const { api } = openTemp();
    const r = await importWith(api, "claude-code", [], { env: { HOME: home } });
    expect(r.paths).toEqual([join(home, ".claude", "projects"), join(home, ".config", "claude", "projects")]);
    expect(api.sessions().map((s) => s.id)).toContain(`cc-${CC_SESSION_D}`);
    expect(api.sessions().map((s) => s.id)).toContain(A);
    const only = openTemp().api;
    const moved = await importWith(only, "claude-code", [], {
      env: { HOME: home, CLAUDE_CONFIG_DIR: join(home, ".config", "claude") },
    });
    expect(moved.paths).toEqual([join(home, ".config", "claude", "projects")]);
    expect(only.sessions().map((s) => s.id)).toEqual([`cc-${CC_SESSION_D}`]);
    only.close();
    api.close();
  });

  test("a summary of another session written into this one's file (Claude Code 1.0) does not title it", async () => {
    const dir = join(tempHome("cc-src-"), "-home-dev-shop");
    mkdirSync(dir, { recursive: true });
    const NEXT = "6e7f8091-5555-4c6d-8e9f-4a5b6c7d8e9f";
    const line = (sid: string, type: string, uuid: string, parent: string | null, content: unknown, at: string) =>
      JSON.stringify({
        parentUuid: parent,
        isSidechain: false,
        userType: "external",
        cwd: "/home/dev/shop",
        sessionId: sid,
        version: "1.0.24",
        type,
        message:
          type === "user"
            ? { role: "user", content }
            : { id: `msg_${uuid}`, type: "message", role: "assistant", model: "claude-sonnet-4-20250514", content },
        ...(type === "assistant" && { requestId: `req_${uuid}` }),
        uuid,
        timestamp: at,
      });
    // The earlier session: its own summary names it (its leaf is here).
    writeFileSync(
      join(dir, `${CC_SESSION_A}.jsonl`),
      `${[
        JSON.stringify({ type: "summary", summary: "Checkout test flakiness", leafUuid: "p-2" }),
        line(CC_SESSION_A, "user", "p-1", null, "why does checkout fail?", "2025-06-20T09:00:00.000Z"),
        line(
          CC_SESSION_A,
          "assistant",
          "p-2",
          "p-1",
          [{ type: "text", text: "A shared cart id." }],
          "2025-06-20T09:00:05.000Z",
        ),
      ].join("\n")}\n`,
    );
    // The next session, started later: Claude Code 1.0 wrote the earlier conversation's summary at its top.
    writeFileSync(
      join(dir, `${NEXT}.jsonl`),
      `${[
        JSON.stringify({ type: "summary", summary: "Checkout test flakiness", leafUuid: "p-2" }),
        line(NEXT, "user", "n-1", null, "add a dark mode toggle", "2025-06-21T14:00:00.000Z"),
        line(
          NEXT,
          "assistant",
          "n-2",
          "n-1",
          [{ type: "text", text: "Added to the header." }],
          "2025-06-21T14:00:09.000Z",
        ),
      ].join("\n")}\n`,
    );
    const { api } = openTemp();
    await importWith(api, "claude-code", [dir]);
    expect(sessionInfo(api, `cc-${CC_SESSION_A}`)?.title).toBe("Checkout test flakiness");
    expect(sessionInfo(api, `cc-${NEXT}`)?.title).toBe("add a dark mode toggle");
    api.close();
  });

  test("a transcript deleted while the pass runs (Claude Code's cleanup of old sessions) is no failure", async () => {
    const dir = join(tempHome("cc-src-"), "-home-dev-shop");
    mkdirSync(dir, { recursive: true });
    const ids = ["11111111-0000-4000-8000-000000000001", "11111111-0000-4000-8000-000000000002"];
    for (const [i, id] of ids.entries())
      writeFileSync(
        join(dir, `${id}.jsonl`),
        `${JSON.stringify({
          parentUuid: null,
          isSidechain: false,
          userType: "external",
          cwd: "/home/dev/shop",
          sessionId: id,
          version: "2.0.14",
          type: "user",
          message: { role: "user", content: `question ${i}` },
          uuid: `q-${i}`,
          timestamp: "2025-06-20T09:00:00.000Z",
        })}\n`,
      );
    const { api } = openTemp();
    // The first file is read; then the second is deleted before its turn.
    const r = await importWith(api, "claude-code", [dir], {
      onProgress: (p) => {
        if (p.filesDone === 1) rmSync(join(dir, `${ids[1]}.jsonl`), { force: true });
      },
    });
    expect(r.failed).toEqual([]);
    expect(r.files).toMatchObject({ found: 2, read: 1, unchanged: 1, failed: 0 });
    expect(r.messages.added).toBe(1);
    api.close();
  });

  test("a summary appended after a pass that read its leaf titles the session (live capture)", async () => {
    const dir = join(tempHome("cc-src-"), "-home-dev-shop");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${CC_SESSION_A}.jsonl`);
    const record = (type: string, uuid: string, parent: string | null, content: unknown, at: string) =>
      JSON.stringify({
        parentUuid: parent,
        isSidechain: false,
        userType: "external",
        cwd: "/home/dev/shop",
        sessionId: CC_SESSION_A,
        version: "1.0.24",
        type,
        message:
          type === "user"
            ? { role: "user", content }
            : { id: `msg_${uuid}`, type: "message", role: "assistant", model: "claude-sonnet-4-20250514", content },
        ...(type === "assistant" && { requestId: `req_${uuid}` }),
        uuid,
        timestamp: at,
      });
    writeFileSync(
      file,
      `${record("user", "p-1", null, "why does checkout fail?", "2025-06-20T09:00:00.000Z")}\n${record("assistant", "p-2", "p-1", [{ type: "text", text: "A shared cart id." }], "2025-06-20T09:00:05.000Z")}\n`,
    );
    const { api } = openTemp();
    await importWith(api, "claude-code", [dir]);
    expect(sessionInfo(api, `cc-${CC_SESSION_A}`)?.title).toBe("why does checkout fail?");
    appendFileSync(
      file,
      `${JSON.stringify({ type: "summary", summary: "Checkout test flakiness", leafUuid: "p-2" })}\n`,
    );
    await importWith(api, "claude-code", [dir]);
    expect(sessionInfo(api, `cc-${CC_SESSION_A}`)?.title).toBe("Checkout test flakiness");
    // Another session's summary appended later still names no record of this file.
    appendFileSync(file, `${JSON.stringify({ type: "summary", summary: "Dark mode toggle", leafUuid: "n-2" })}\n`);
    await importWith(api, "claude-code", [dir]);
    expect(sessionInfo(api, `cc-${CC_SESSION_A}`)?.title).toBe("Checkout test flakiness");
    api.close();
  });

  test("a summary read in a pass before its leaf was written titles the session when a later pass reads the leaf; its text is not kept", async () => {
    const dir = join(tempHome("cc-src-"), "-home-dev-shop");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${CC_SESSION_A}.jsonl`);
    const record = (type: string, uuid: string, parent: string | null, content: unknown, at: string) =>
      JSON.stringify({
        parentUuid: parent,
        isSidechain: false,
        userType: "external",
        cwd: "/home/dev/shop",
        sessionId: CC_SESSION_A,
        version: "1.0.24",
        type,
        message:
          type === "user"
            ? { role: "user", content }
            : { id: `msg_${uuid}`, type: "message", role: "assistant", model: "claude-sonnet-4-20250514", content },
        ...(type === "assistant" && { requestId: `req_${uuid}` }),
        uuid,
        timestamp: at,
      });
    // Other sessions' summaries at the top (Claude Code 1.0), then this one's, whose leaf p-2 is not written yet.
    const secret = "ghp_R8x2Kq9LmN4pV7tW1yZ3bC6dF0hJ5sA8uE2g";
    writeFileSync(
      file,
      `${[
        JSON.stringify({ type: "summary", summary: `Dark mode toggle, token ${secret}`, leafUuid: "n-2" }),
        JSON.stringify({ type: "summary", summary: "Checkout test flakiness", leafUuid: "p-2" }),
        record("user", "p-1", null, "why does checkout fail?", "2025-06-20T09:00:00.000Z"),
      ].join("\n")}\n`,
    );
    const { api, home } = openTemp();
    await importWith(api, "claude-code", [dir]);
    expect(sessionInfo(api, `cc-${CC_SESSION_A}`)?.title).toBe("why does checkout fail?");
    // The waiting summaries are kept by their place in the file, not their text, which may hold a secret.
    expect(filesHolding(home, secret)).toEqual([]);
    appendFileSync(
      file,
      `${record("assistant", "p-2", "p-1", [{ type: "text", text: "A shared cart id." }], "2025-06-20T09:00:05.000Z")}\n`,
    );
    const fds = openFds();
    await importWith(api, "claude-code", [dir]);
    expect(openFds()).toBe(fds);
    expect(sessionInfo(api, `cc-${CC_SESSION_A}`)?.title).toBe("Checkout test flakiness");
    // A later turn keeps it; the other session's summary never names this one.
    appendFileSync(file, `${record("user", "p-3", "p-2", "and the fix?", "2025-06-20T09:01:00.000Z")}\n`);
    await importWith(api, "claude-code", [dir]);
    expect(sessionInfo(api, `cc-${CC_SESSION_A}`)?.title).toBe("Checkout test flakiness");
    expect(filesHolding(home, secret)).toEqual([]);
    api.close();
  });

  test('a warm-up agent (prompt "Warmup", started with every 2.0 session) is not imported, then or later', async () => {
    const projects = join(tempHome("cc-src-"), "projects");
    const dir = join(projects, "-home-dev-docs");
    const agents = join(dir, CC_SESSION_D, "subagents");
    mkdirSync(agents, { recursive: true });
    const lines = sessionInlineD();
    writeFileSync(join(dir, `${CC_SESSION_D}.jsonl`), `${lines.slice(0, 2).join("\n")}\n`);
    const record = (type: string, uuid: string, content: unknown, at: string) =>
      JSON.stringify({
        type,
        uuid,
        sessionId: CC_SESSION_D,
        isSidechain: true,
        agentId: "a9f1",
        timestamp: at,
        message: type === "user" ? { role: "user", content } : { id: `msg_${uuid}`, role: "assistant", content },
        ...(type === "assistant" && { requestId: `req_${uuid}` }),
      });
    const warm = join(agents, "agent-a9f1.jsonl");
    writeFileSync(warm, `${record("user", "w1", "Warmup", "2026-04-02T10:00:00.500Z")}\n`);
    const { api } = openTemp();
    await importWith(api, "claude-code", [projects]);
    appendFileSync(
      warm,
      `${record("assistant", "w2", [{ type: "text", text: "Ready to explore the codebase." }], "2026-04-02T10:00:01.000Z")}\n`,
    );
    const r = await importWith(api, "claude-code", [projects]);
    expect(r.messages.added).toBe(0);
    expect(api.sessions().map((s) => s.id)).toEqual([`cc-${CC_SESSION_D}`]);
    api.close();
  });

  test("what the IDE extension adds to a prompt (the open file, the selection) is not the person's words", async () => {
    const dir = join(tempHome("cc-src-"), "-home-dev-docs");
    mkdirSync(dir, { recursive: true });
    const opened =
      "<ide_opened_file>The user opened the file /home/dev/docs/a.md in the IDE. This may or may not be related to the current task.</ide_opened_file>";
    const selected =
      "<ide_selection>The user selected the lines 3 to 4 from /home/dev/docs/a.md:\n[b](b.md)\n</ide_selection>";
    const prompt = (uuid: string, parent: string | null, content: unknown, at: string) =>
      JSON.stringify({
        type: "user",
        uuid,
        parentUuid: parent,
        sessionId: CC_SESSION_D,
        cwd: "/home/dev/docs",
        timestamp: at,
        message: { role: "user", content },
      });
    writeFileSync(
      join(dir, `${CC_SESSION_D}.jsonl`),
      `${[
        prompt("i1", null, [{ type: "text", text: opened }], "2026-04-02T10:00:00.000Z"),
        prompt(
          "i2",
          "i1",
          [
            { type: "text", text: opened },
            { type: "text", text: "why is this link broken?" },
          ],
          "2026-04-02T10:00:01.000Z",
        ),
        prompt("i3", "i2", `${selected}\nand this one?`, "2026-04-02T10:00:30.000Z"),
      ].join("\n")}\n`,
    );
    const { api } = openTemp();
    await importWith(api, "claude-code", [dir]);
    const D = `cc-${CC_SESSION_D}`;
    expect(messagesOf(api, D).map((m) => m[1])).toEqual(["why is this link broken?", "and this one?"]);
    expect(sessionInfo(api, D)?.title).toBe("why is this link broken?");
    api.close();
  });

  test("the title: the first prompt, then the AI title, then the person's rename, whatever pass each arrives in", async () => {
    const dir = join(tempHome("cc-src-"), "-home-dev-docs");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${CC_SESSION_D}.jsonl`);
    const D = `cc-${CC_SESSION_D}`;
    const lines = sessionInlineD();
    const titleLine = (type: string, key: string, value: string) =>
      `${JSON.stringify({ type, [key]: value, sessionId: CC_SESSION_D })}\n`;
    writeFileSync(file, `${lines[0]}\n`);
    const { api } = openTemp();
    const pass = async () => {
      await importWith(api, "claude-code", [dir]);
      return sessionInfo(api, D)?.title;
    };
    expect(await pass()).toBe("Find every broken link in the docs.");
    appendFileSync(file, titleLine("ai-title", "aiTitle", "Broken docs links"));
    expect(await pass()).toBe("Broken docs links");
    appendFileSync(file, titleLine("custom-title", "customTitle", "docs: link audit"));
    expect(await pass()).toBe("docs: link audit");
    appendFileSync(file, `${lines[1]}\n${titleLine("ai-title", "aiTitle", "Auditing links")}`);
    expect(await pass()).toBe("docs: link audit");
    api.close();
  });

  test("re-import adds nothing; an appended turn is read incrementally; a partial last line waits", async () => {
    const projects = writeClaudeProjects(tempHome("cc-src-"));
    const { api } = openTemp();
    await importWith(api, "claude-code", [projects]);
    const again = await importWith(api, "claude-code", [projects]);
    expect(again.messages.added).toBe(0);
    expect(again.files.unchanged).toBe(5);

    const file = join(projects, "-home-dev-api", `${CC_SESSION_B}.jsonl`);
    const turn = (uuid: string, parent: string, role: "user" | "assistant", text: string, at: string) =>
      JSON.stringify({
        type: role,
        uuid,
        parentUuid: parent,
        sessionId: CC_SESSION_B,
        cwd: "/home/dev/api",
        version: "2.0.14",
        timestamp: at,
        ...(role === "assistant" ? { requestId: `req_${uuid}` } : {}),
        message:
          role === "assistant"
            ? { id: `msg_${uuid}`, role, content: [{ type: "text", text }] }
            : { role, content: text },
      });
    appendFileSync(file, turn("b-5", "b-4", "user", "and for the signup endpoint?", "2026-04-02T10:05:00.000Z") + "\n");
    const half = turn("b-6", "b-5", "assistant", "Signup is limited too.", "2026-04-02T10:05:10.000Z");
    appendFileSync(file, half.slice(0, 40));
    const inc = await importWith(api, "claude-code", [projects]);
    expect(inc.messages).toMatchObject({ added: 1, existing: 0 });
    expect(inc.files.read).toBe(1);
    appendFileSync(file, half.slice(40) + "\n");
    const rest = await importWith(api, "claude-code", [projects]);
    expect(rest.messages.added).toBe(1);
    expect(
      messagesOf(api, B)
        .map((m) => m[1])
        .slice(-2),
    ).toEqual(["and for the signup endpoint?", "Signup is limited too."]);
    api.close();
  });

  test("a truncated or replaced transcript is re-read safely: no duplicate, nothing lost", async () => {
    const projects = writeClaudeProjects(tempHome("cc-src-"));
    const { api } = openTemp();
    await importWith(api, "claude-code", [projects]);
    const file = join(projects, "-home-dev-api", `${CC_SESSION_B}.jsonl`);
    // Replaced by a shorter file holding the first two records plus a new turn.
    const lines = sessionB();
    const extra = JSON.stringify({
      type: "user",
      uuid: "b-9",
      parentUuid: "b-2",
      sessionId: CC_SESSION_B,
      timestamp: "2026-04-02T11:00:00.000Z",
      message: { role: "user", content: "one more thing" },
    });
    writeFileSync(file, [lines[1], extra].join("\n") + "\n");
    const r = await importWith(api, "claude-code", [projects]);
    expect(r.messages).toMatchObject({ added: 1, existing: 1 });
    expect(messagesOf(api, B).map((m) => m[1])).toEqual([
      "Add rate limiting to the login endpoint",
      "I will delegate the survey of the middleware to a sub-agent.",
      "Rate limiting now sits after auth: 5 attempts a minute.",
      "one more thing",
    ]);
    api.close();
  });

  test("--dry-run writes nothing; --keep-secrets keeps the token; a file in another format fails alone", async () => {
    const src = tempHome("cc-src-");
    const projects = writeClaudeProjects(src);
    const { api } = openTemp();
    writeFileSync(join(projects, "-home-dev-shop", "notes.jsonl"), "hello\nworld\n");
    const dry = await importWith(api, "claude-code", [projects], { dryRun: true });
    expect(dry.messages.added).toBe(16);
    expect(api.sessions()).toEqual([]);
    const r = await importWith(api, "claude-code", [projects], { keepSecrets: true });
    expect(r.files.failed).toBe(1);
    expect(r.failed[0]!.reason).toContain("notes.jsonl: not a Claude Code transcript");
    expect(r.messages.added).toBe(16);
    expect(messagesOf(api, C)[2]![1]).toContain("sk-ant-api03-");
    expect(readFileSync(join(projects, "-home-dev-shop", "notes.jsonl"), "utf8")).toBe("hello\nworld\n");
    api.close();
  });

  test("a UTF-8 byte order mark before the first record keeps that record", async () => {
    const dir = tempHome("cc-bom-");
    const lines = sessionB();
    writeFileSync(join(dir, `${CC_SESSION_B}.jsonl`), `\uFEFF${lines.slice(1).join("\n")}\n`);
    const { api } = openTemp();
    const r = await importWith(api, "claude-code", [dir]);
    expect(r.skippedCount).toBe(0);
    const plain = openTemp();
    writeFileSync(join(dir, `${CC_SESSION_B}.jsonl`), `${lines.slice(1).join("\n")}\n`);
    await importWith(plain.api, "claude-code", [dir]);
    expect(messagesOf(api, B)).toEqual(messagesOf(plain.api, B));
    expect(messagesOf(api, B)[0]![0]).toBe("user");
    api.close();
    plain.api.close();
  });

  test("another tool's JSONL fails with its name; a transcript holding no message yet is not refused", async () => {
    const dir = tempHome("cc-other-");
    const write = (name: string, lines: string[]) => {
      writeFileSync(join(dir, name), lines.join("\n") + "\n");
      return join(dir, name);
    };
    const others = [
      write("rollout.jsonl", rollout()),
      write("chat.jsonl", chat()),
      write("export.jsonl", memvoyExportLines({ source: "claude-code" })),
    ];
    // A summary line only, a meta record only (both of 1.0.x), a file-history snapshot only (2.0.x).
    write(`${CC_SESSION_A}.jsonl`, sessionA().slice(0, 1));
    write(`${CC_SESSION_C}.jsonl`, sessionA().slice(1, 2));
    write(`${CC_SESSION_B}.jsonl`, sessionB().slice(0, 1));
    const { api } = openTemp();
    const r = await importWith(api, "claude-code", [dir]);
    expect(r.files).toMatchObject({ found: 6, read: 3, failed: 3 });
    expect(r.failed.map((f) => f.reason).sort()).toEqual(
      others.sort().map((f) => `${f}: not a Claude Code transcript (no line is a Claude Code record)`),
    );
    expect(api.sessions()).toEqual([]);
    api.close();
  });
});

describe("import --since", () => {
  test("only messages at or after the time; the file state is not moved, so a full run later finds the rest", async () => {
    const projects = writeClaudeProjects(tempHome("cc-src-"));
    const { api } = openTemp();
    const since = await importWith(api, "claude-code", [projects], {
      since: BigInt(Date.parse("2026-05-01T00:00:00Z")) * 1_000_000n,
    });
    expect(since.messages.added).toBe(6);
    expect(
      api
        .sessions()
        .map((s) => s.id)
        .sort(),
    ).toEqual([C, `${C}-agent-9f8e7d6c`]);
    const full = await importWith(api, "claude-code", [projects]);
    expect(full.messages).toMatchObject({ added: 10, existing: 6 });
    api.close();
  });
});

describe("import and rm-message", () => {
  test("a message removed by rm-message stays removed when the transcript is imported again", async () => {
    const projects = writeClaudeProjects(tempHome("cc-src-"));
    const { api } = openTemp();
    await importWith(api, "claude-code", [projects]);
    const victim = api.history(C, { all: true }).find((m) => m.content.includes("REDACTED"))!;
    await api.rmMessage(victim.id);
    // The transcript changes (a new turn), so it is read again, from the start (it was replaced).
    const file = join(projects, "-home-dev-infra", `${CC_SESSION_C}.jsonl`);
    writeFileSync(file, readFileSync(file, "utf8").split("\n").reverse().join("\n"));
    const r = await importWith(api, "claude-code", [projects]);
    expect(r.messages).toMatchObject({ added: 0, tombstoned: 1 });
    expect(messagesOf(api, C).map((m) => m[1])).not.toContain("Enable it, token [REDACTED:anthropic-key]");
    api.close();
  });
});

/** One reply streamed as records that share message.id and requestId, each holding one content block. */
function streamedReply(session: string, blocks: { uuid: string; parent: string; at: string; block: object }[]) {
  return blocks
    .map((b) =>
      JSON.stringify({
        type: "assistant",
        uuid: b.uuid,
        parentUuid: b.parent,
        sessionId: session,
        cwd: "/home/dev/stream",
        version: "2.1.3",
        requestId: "req_stream_1",
        timestamp: b.at,
        message: { id: "msg_stream_1", role: "assistant", model: "claude-sonnet-4-5", content: [b.block] },
      }),
    )
    .map((l) => `${l}\n`)
    .join("");
}

const STREAM_SESSION = "0b0c0d0e-4444-4f00-8a00-00000000beef";
const prompt = JSON.stringify({
  type: "user",
  uuid: "s-1",
  parentUuid: null,
  sessionId: STREAM_SESSION,
  cwd: "/home/dev/stream",
  version: "2.1.3",
  timestamp: "2026-06-01T10:00:00.000Z",
  message: { role: "user", content: "Explain the retry loop" },
});
const part1 = streamedReply(STREAM_SESSION, [
  { uuid: "s-2", parent: "s-1", at: "2026-06-01T10:00:02.000Z", block: { type: "thinking", thinking: "hmm" } },
  { uuid: "s-3", parent: "s-2", at: "2026-06-01T10:00:03.000Z", block: { type: "text", text: "It backs off." } },
]);
const part2 = streamedReply(STREAM_SESSION, [
  { uuid: "s-4", parent: "s-3", at: "2026-06-01T10:00:05.000Z", block: { type: "tool_use", id: "t1", name: "Read" } },
  { uuid: "s-5", parent: "s-4", at: "2026-06-01T10:00:06.000Z", block: { type: "text", text: "It backs off." } },
  {
    uuid: "s-6",
    parent: "s-5",
    at: "2026-06-01T10:00:07.000Z",
    block: { type: "text", text: "Then it gives up after a quokka count of five." },
  },
]);
const SID = `cc-${STREAM_SESSION}`;
const wholeReply = "It backs off.\n\nThen it gives up after a quokka count of five.";

describe("a reply streamed across two import passes", () => {
  test("the later blocks are appended to the message imported first: one message, its first record's time, searchable", async () => {
    const dir = join(tempHome("cc-stream-"), "projects", "-home-dev-stream");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${STREAM_SESSION}.jsonl`);
    writeFileSync(file, `${prompt}\n${part1}`);
    const { home, api } = openTemp();
    expect((await importWith(api, "claude-code", [file])).messages).toMatchObject({ added: 2, extended: 0 });
    const first = api.history(SID, { all: true });
    appendFileSync(file, part2);
    const r = await importWith(api, "claude-code", [file]);
    expect(r.messages).toMatchObject({ added: 0, extended: 1 });
    expect(stampAgrees(home, SID)).toBe(true); // history.json rewritten with the grown text: reads take it as it is
    expect(messagesOf(api, SID)).toEqual([
      ["user", "Explain the retry loop", "2026-06-01T10:00:00.000000000Z"],
      ["assistant", wholeReply, "2026-06-01T10:00:03.000000000Z"],
    ]);
    expect(api.history(SID, { all: true }).map((m) => m.id)).toEqual(first.map((m) => m.id));
    const hits = (await api.search({ query: "quokka", match: "keyword" })).hits;
    expect(hits.map((h) => h.message.id)).toEqual([first[1]!.id]);
    // The archive holds the grown text too, not only history.json.
    expect(api.imports.exportLines([...api.imports.exportSessions()][0]!).join("\n")).toContain("quokka");
    // Nothing more: a further pass and a re-import from the start add and extend nothing.
    expect((await importWith(api, "claude-code", [file])).messages).toMatchObject({ added: 0, extended: 0 });
    api.close();

    const again = openTemp().api;
    expect((await importWith(again, "claude-code", [file])).messages).toMatchObject({ added: 2, extended: 0 });
    expect(again.history(SID, { all: true }).map((m) => [m.id, m.content])).toEqual([
      [first[0]!.id, "Explain the retry loop"],
      [first[1]!.id, wholeReply],
    ]);
    again.close();
  });

  test("a file replaced by its longer version (read again from the start) extends the stored reply, once", async () => {
    const dir = join(tempHome("cc-stream-"), "projects", "-home-dev-stream");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${STREAM_SESSION}.jsonl`);
    writeFileSync(file, `${prompt}\n${part1}`);
    const { api } = openTemp();
    await importWith(api, "claude-code", [file]);
    // A rewritten file (another first line) is read whole: the reply is known, its text has grown.
    writeFileSync(
      file,
      `${JSON.stringify({ type: "summary", summary: "Retry loop", leafUuid: "s-6" })}\n${prompt}\n${part1}${part2}`,
    );
    expect((await importWith(api, "claude-code", [file])).messages).toMatchObject({ added: 0, extended: 1 });
    expect(messagesOf(api, SID).map((m) => m[1])).toEqual(["Explain the retry loop", wholeReply]);
    expect((await importWith(api, "claude-code", [file])).messages).toMatchObject({ added: 0, extended: 0 });
    api.close();
  });
});

const QUEUE_SESSION = "0e0f1011-5555-4a00-8b00-00000000cafe";
const QID = `cc-${QUEUE_SESSION}`;

/** Records of one Claude Code transcript (version `version`), chained in the order given. */
function queueTranscript(version: string) {
  let parent: string | null = null;
  const chained = (type: string, uuid: string, at: string, rest: Record<string, unknown>) => {
    const r = {
      type,
      uuid,
      parentUuid: parent,
      sessionId: QUEUE_SESSION,
      cwd: "/home/dev/pdf",
      version,
      timestamp: at,
      ...rest,
    };
    parent = uuid;
    return JSON.stringify(r);
  };
  const at = (s: number) => `2026-06-02T09:00:${String(s).padStart(2, "0")}.000Z`;
  return {
    at,
    prompt: (uuid: string, s: number, content: unknown, extra: Record<string, unknown> = {}) =>
      chained("user", uuid, at(s), { message: { role: "user", content }, ...extra }),
    reply: (uuid: string, s: number, blocks: unknown[]) =>
      chained("assistant", uuid, at(s), {
        requestId: `req_${uuid}`,
        message: { id: `msg_${uuid}`, role: "assistant", content: blocks },
      }),
    toolResult: (uuid: string, s: number, blocks: unknown[]) =>
      chained("user", uuid, at(s), { message: { role: "user", content: blocks } }),
    absorbed: (uuid: string, s: number, prompt: unknown, extra: Record<string, unknown> = {}) =>
      chained("attachment", uuid, at(s), {
        attachment: { type: "queued_command", prompt, commandMode: "prompt", ...extra },
      }),
    queue: (operation: string, s: number, content?: string, reason?: string) =>
      JSON.stringify({
        type: "queue-operation",
        operation,
        timestamp: at(s),
        sessionId: QUEUE_SESSION,
        ...(content !== undefined && { content }),
        ...(reason !== undefined && { reason }),
      }),
  };
}

/** How many files this process has open (Linux; -1 elsewhere, where the checks compare -1 with -1). */
function openFds(): number {
  return existsSync("/proc/self/fd") ? readdirSync("/proc/self/fd").length : -1;
}

function writeQueueTranscript(lines: string[]): string {
  const dir = join(tempHome("cc-queue-"), "projects", "-home-dev-pdf");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${QUEUE_SESSION}.jsonl`);
  writeFileSync(file, lines.map((l) => `${l}\n`).join(""));
  return file;
}

describe("prompts typed while Claude is busy", () => {
  test("2.1.97 on: a prompt absorbed mid-turn (attachment) and one held to the turn's end (user record), each once", async () => {
    const t = queueTranscript("2.1.250");
    const notification = "<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n</task-notification>";
    const lines = [
      t.queue("enqueue", 0, "Render the PDF pages"),
      t.queue("dequeue", 0),
      t.prompt("q-1", 1, "Render the PDF pages", { promptSource: "typed" }),
      t.reply("q-2", 3, [{ type: "tool_use", id: "toolu_q1", name: "Bash", input: { command: "npm test" } }]),
      t.queue("enqueue", 4, "use PDF.js's own renderer"),
      t.absorbed("q-3", 6, "use PDF.js's own renderer", { origin: { kind: "human" } }),
      t.queue("remove", 6, "use PDF.js's own renderer", "absorbed_mid_turn"),
      t.toolResult("q-4", 6, [{ type: "tool_result", tool_use_id: "toolu_q1", content: "ok" }]),
      t.queue(
        "enqueue",
        6,
        '{"task_id":"a1b2","tool_use_id":"toolu_q9","description":"survey","task_type":"local_agent"}',
      ),
      t.queue(
        "remove",
        6,
        '{"task_id":"a1b2","tool_use_id":"toolu_q9","description":"survey","task_type":"local_agent"}',
      ),
      t.queue("enqueue", 7, notification),
      t.absorbed("q-5", 8, notification, { commandMode: "task-notification" }),
      t.queue("remove", 8, notification, "absorbed_mid_turn"),
      t.reply("q-6", 10, [{ type: "text", text: "Switched to the PDF.js renderer." }]),
      t.queue("enqueue", 11, "then make it mobile friendly"),
      t.queue("enqueue", 12, "draft: add a dark mode"),
      t.queue("popAll", 13, "draft: add a dark mode"),
      t.queue("dequeue", 20),
      t.prompt("q-7", 20, "then make it mobile friendly", { promptSource: "queued" }),
      t.reply("q-8", 25, [{ type: "text", text: "The layout now wraps on small screens." }]),
    ];
    const file = writeQueueTranscript(lines);
    const expected: [string, string, string][] = [
      ["user", "Render the PDF pages", "2026-06-02T09:00:01.000000000Z"],
      ["user", "use PDF.js's own renderer", "2026-06-02T09:00:06.000000000Z"],
      ["assistant", "Switched to the PDF.js renderer.", "2026-06-02T09:00:10.000000000Z"],
      ["user", "then make it mobile friendly", "2026-06-02T09:00:20.000000000Z"],
      ["assistant", "The layout now wraps on small screens.", "2026-06-02T09:00:25.000000000Z"],
    ];
    const { api } = openTemp();
    expect((await importWith(api, "claude-code", [file])).messages.added).toBe(5);
    expect(messagesOf(api, QID)).toEqual(expected);
    api.close();

    // Read one line a pass: the same messages, each once.
    const dir = join(tempHome("cc-queue-"), "projects", "-home-dev-pdf");
    mkdirSync(dir, { recursive: true });
    const grown = join(dir, `${QUEUE_SESSION}.jsonl`);
    writeFileSync(grown, "");
    const inc = openTemp().api;
    for (const l of lines) {
      appendFileSync(grown, `${l}\n`);
      await importWith(inc, "claude-code", [grown]);
    }
    expect(messagesOf(inc, QID)).toEqual(expected);
    expect((await importWith(inc, "claude-code", [grown])).messages.added).toBe(0);
    inc.close();
  });

  test("before 2.1.97: a prompt absorbed mid-turn lives only in its queue lines; kept once, also when its remove comes a pass later", async () => {
    const t = queueTranscript("2.1.88");
    const head = [
      t.queue("enqueue", 0, "Render the PDF pages"),
      t.queue("dequeue", 0),
      t.prompt("q-1", 1, "Render the PDF pages"),
      t.reply("q-2", 3, [{ type: "tool_use", id: "toolu_q1", name: "Bash", input: { command: "npm test" } }]),
      t.queue("enqueue", 4, "When you implement this use playwright and red/green TDD, plan that too"),
    ];
    const tail = [
      t.queue("remove", 6),
      t.toolResult("q-3", 6, [{ type: "tool_result", tool_use_id: "toolu_q1", content: "ok" }]),
      t.reply("q-4", 9, [{ type: "text", text: "I will plan the Playwright tests first." }]),
    ];
    const expected: [string, string, string][] = [
      ["user", "Render the PDF pages", "2026-06-02T09:00:01.000000000Z"],
      [
        "user",
        "When you implement this use playwright and red/green TDD, plan that too",
        "2026-06-02T09:00:06.000000000Z",
      ],
      ["assistant", "I will plan the Playwright tests first.", "2026-06-02T09:00:09.000000000Z"],
    ];
    const file = writeQueueTranscript(head);
    const { api } = openTemp();
    expect((await importWith(api, "claude-code", [file])).messages.added).toBe(1);
    appendFileSync(file, tail.map((l) => `${l}\n`).join(""));
    // The enqueue line is read again for the prompt's words, and the file closed again (a daemon runs for weeks).
    const fds = openFds();
    expect((await importWith(api, "claude-code", [file])).messages.added).toBe(2);
    expect(openFds()).toBe(fds);
    expect(messagesOf(api, QID)).toEqual(expected);
    expect((await importWith(api, "claude-code", [file])).messages.added).toBe(0);
    api.close();

    const whole = openTemp().api;
    await importWith(whole, "claude-code", [file]);
    expect(messagesOf(whole, QID)).toEqual(expected);
    whole.close();
  });

  test("a remove that names the text but comes a pass before its attachment (2.1.97 to 2.1.241) is one message", async () => {
    const t = queueTranscript("2.1.200");
    const head = [
      t.prompt("q-1", 1, "Render the PDF pages"),
      t.reply("q-2", 3, [{ type: "tool_use", id: "toolu_q1", name: "Bash", input: { command: "npm test" } }]),
      t.queue("enqueue", 4, "let's use PDF.js's own renderer"),
      t.queue("remove", 6, "let's use PDF.js's own renderer"),
    ];
    const file = writeQueueTranscript(head);
    const { api } = openTemp();
    await importWith(api, "claude-code", [file]);
    appendFileSync(file, `${t.absorbed("q-3", 6, [{ type: "text", text: "let's use PDF.js's own renderer" }])}\n`);
    expect((await importWith(api, "claude-code", [file])).messages.added).toBe(0);
    expect(messagesOf(api, QID).map((m) => m[1])).toEqual(["Render the PDF pages", "let's use PDF.js's own renderer"]);
    api.close();
  });

  test("words typed at a permission prompt are the person's: the reason for a refusal, the note with an approval", async () => {
    const t = queueTranscript("2.1.250");
    const refusal =
      "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\n";
    const note =
      "\n\nNote: The user's next message may contain a correction or preference. Pay close attention — if they explain what went wrong or how they'd prefer you to work, consider saving that to memory for future sessions.";
    const file = writeQueueTranscript([
      t.prompt("q-1", 1, "Clean up the build folder"),
      t.reply("q-2", 2, [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "rm -rf build" } }]),
      t.toolResult("q-3", 3, [
        {
          type: "tool_result",
          tool_use_id: "toolu_1",
          is_error: true,
          content: `${refusal}only delete build/tmp${note}`,
        },
      ]),
      t.reply("q-4", 4, [{ type: "tool_use", id: "toolu_2", name: "Bash", input: { command: "rm -rf build/tmp" } }]),
      t.toolResult("q-5", 5, [
        { type: "tool_result", tool_use_id: "toolu_2", content: "" },
        { type: "text", text: "and keep the .gitkeep file" },
      ]),
      t.reply("q-6", 6, [{ type: "tool_use", id: "toolu_3", name: "AskUserQuestion", input: {} }]),
      t.toolResult("q-7", 7, [
        {
          type: "tool_result",
          tool_use_id: "toolu_3",
          is_error: true,
          content: `${refusal}The user wants to clarify these questions.\n    This means they may have additional information, context or questions for you.`,
        },
      ]),
      t.reply("q-8", 8, [{ type: "tool_use", id: "toolu_4", name: "Bash", input: { command: "ls" } }]),
      t.toolResult("q-9", 9, [
        { type: "tool_result", tool_use_id: "toolu_4", is_error: true, content: "Exit code 1" },
        { type: "text", text: "[Request interrupted by user for tool use]" },
      ]),
    ]);
    const { api } = openTemp();
    await importWith(api, "claude-code", [file]);
    expect(messagesOf(api, QID)).toEqual([
      ["user", "Clean up the build folder", "2026-06-02T09:00:01.000000000Z"],
      ["user", "only delete build/tmp", "2026-06-02T09:00:03.000000000Z"],
      ["user", "and keep the .gitkeep file", "2026-06-02T09:00:05.000000000Z"],
    ]);
    api.close();
  });
});

describe("prompts that are not the person's", () => {
  test("a prompt from another session, a teammate, a channel or Claude Code itself (its origin says so) is not a user message", async () => {
    const t = queueTranscript("2.1.280");
    const file = writeQueueTranscript([
      t.prompt("o-1", 1, "Ship the release notes", { origin: { kind: "human" }, promptSource: "typed" }),
      t.prompt("o-2", 2, '<cross-session-message from="docs">\nThe changelog is ready.\n</cross-session-message>', {
        origin: { kind: "peer" },
        promptSource: "queued",
      }),
      t.prompt("o-3", 3, "A message arrived from slack while you were working:\ndeploy is frozen", {
        origin: { kind: "channel", server: "slack" },
      }),
      t.prompt("o-4", 4, "Goal set: ship the release notes", {
        origin: { kind: "auto-continuation" },
        promptSource: "system",
      }),
      t.prompt("o-5", 5, "Continue with the remaining items.", { promptSource: "system" }),
      t.prompt("o-6", 6, "and tag it v2.1", { promptSource: "sdk" }),
      // Builds before origin was written: the tag tells.
      t.prompt(
        "o-7",
        7,
        '<teammate-message teammate_id="qa" color="blue" summary="tests">\nAll green.\n</teammate-message>',
      ),
    ]);
    const { api } = openTemp();
    await importWith(api, "claude-code", [file]);
    expect(messagesOf(api, QID).map((m) => m[1])).toEqual(["Ship the release notes", "and tag it v2.1"]);
    api.close();
  });
});

test("a prompt pasted as JSON while Claude is busy is kept like any other", async () => {
  const t = queueTranscript("2.1.88");
  const json = '{"name": "pdf-viewer", "private": true}';
  const file = writeQueueTranscript([
    t.prompt("j-1", 1, "Set up the package"),
    t.reply("j-2", 2, [{ type: "tool_use", id: "toolu_j1", name: "Bash", input: { command: "npm init" } }]),
    t.queue("enqueue", 3, json),
    t.queue("remove", 4),
  ]);
  const { api } = openTemp();
  await importWith(api, "claude-code", [file]);
  expect(messagesOf(api, QID).map((m) => m[1])).toEqual(["Set up the package", json]);
  api.close();
});

test("an attachment written before a remove that names no text: that remove is the attachment's prompt, not the next one queued", async () => {
  const t = queueTranscript("2.1.97");
  const file = writeQueueTranscript([
    t.prompt("k-1", 1, "Render the PDF pages"),
    t.reply("k-2", 2, [{ type: "tool_use", id: "toolu_k1", name: "Bash", input: { command: "npm test" } }]),
    t.queue("enqueue", 3, "use PDF.js's own renderer"),
    t.queue("enqueue", 4, "then make it mobile friendly"),
    t.absorbed("k-3", 5, "use PDF.js's own renderer"),
    t.queue("remove", 5),
    t.toolResult("k-4", 5, [{ type: "tool_result", tool_use_id: "toolu_k1", content: "ok" }]),
    t.reply("k-5", 8, [{ type: "text", text: "Switched to the PDF.js renderer." }]),
    t.queue("dequeue", 9),
    t.prompt("k-6", 9, "then make it mobile friendly", { promptSource: "queued" }),
  ]);
  const { api } = openTemp();
  await importWith(api, "claude-code", [file]);
  expect(messagesOf(api, QID).map((m) => m[1])).toEqual([
    "Render the PDF pages",
    "use PDF.js's own renderer",
    "Switched to the PDF.js renderer.",
    "then make it mobile friendly",
  ]);
  api.close();
});
