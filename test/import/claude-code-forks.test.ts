import { afterAll, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openTemp, removeTempHomes, tempHome } from "../fixture/home.ts";
import { importWith, messagesOf, sessionInfo } from "./support.ts";

afterAll(removeTempHomes);

const PARENT = "11111111-aaaa-4bbb-8ccc-000000000001";
const FORK = "11111111-aaaa-4bbb-8ccc-000000000002";
const RESUMED = "11111111-aaaa-4bbb-8ccc-000000000003";
const at = (s: number) => `2026-09-20T10:00:${String(s).padStart(2, "0")}.000Z`;

function record(session: string, version: string, uuid: string, parentUuid: string | null, s: number) {
  return {
    sessionId: session,
    version,
    cwd: "/home/dev/site",
    gitBranch: "main",
    userType: "external",
    isSidechain: false,
    uuid,
    parentUuid,
    timestamp: at(s),
  };
}
const prompt = (
  session: string,
  version: string,
  uuid: string,
  parentUuid: string | null,
  s: number,
  text: string,
) => ({
  ...record(session, version, uuid, parentUuid, s),
  type: "user",
  message: { role: "user", content: text },
});
const reply = (session: string, version: string, uuid: string, parentUuid: string, s: number, text: string) => ({
  ...record(session, version, uuid, parentUuid, s),
  type: "assistant",
  requestId: `req_${uuid}`,
  message: { id: `msg_${uuid}`, role: "assistant", model: "claude-sonnet-4-5", content: [{ type: "text", text }] },
});

function parentRecords(session: string, version: string) {
  return [
    prompt(session, version, "p-1", null, 1, "Add a dark mode toggle"),
    reply(session, version, "p-2", "p-1", 5, "Added the toggle in the header."),
    prompt(session, version, "p-3", "p-2", 10, "Persist the choice"),
    reply(session, version, "p-4", "p-3", 14, "It is kept in localStorage now."),
  ];
}

function write(dir: string, id: string, records: object[]): string {
  const file = join(dir, `${id}.jsonl`);
  writeFileSync(file, `${records.map((r) => JSON.stringify(r)).join("\n")}\n`);
  return file;
}

const P = `cc-${PARENT}`;
const F = `cc-${FORK}`;
const PARENT_MESSAGES: [string, string, string][] = [
  ["user", "Add a dark mode toggle", "2026-09-20T10:00:01.000000000Z"],
  ["assistant", "Added the toggle in the header.", "2026-09-20T10:00:05.000000000Z"],
  ["user", "Persist the choice", "2026-09-20T10:00:10.000000000Z"],
  ["assistant", "It is kept in localStorage now.", "2026-09-20T10:00:14.000000000Z"],
];

test("a forked session (--fork-session, /branch) holds its own turns and names its origin; the copied turns stay the origin's, once", async () => {
  const dir = join(tempHome("cc-fork-"), "projects", "-home-dev-site");
  mkdirSync(dir, { recursive: true });
  write(dir, PARENT, parentRecords(PARENT, "2.1.123"));
  // The fork's file starts with the conversation copied from the parent: its own sessionId, the parent's uuids and
  // times, each record naming the record it copies.
  const copies = parentRecords(FORK, "2.1.123").map((r) => ({
    ...r,
    forkedFrom: { sessionId: PARENT, messageUuid: r.uuid },
  }));
  const forkFile = write(dir, FORK, [
    ...copies,
    prompt(FORK, "2.1.123", "f-1", "p-4", 30, "Try a CSS-only version instead"),
    reply(FORK, "2.1.123", "f-2", "f-1", 34, "Done with prefers-color-scheme."),
  ]);
  const { api } = openTemp();
  const r = await importWith(api, "claude-code", [dir]);
  expect(r.messages).toMatchObject({ added: 6, existing: 4 });
  expect(messagesOf(api, P)).toEqual(PARENT_MESSAGES);
  expect(messagesOf(api, F)).toEqual([
    ["user", "Try a CSS-only version instead", "2026-09-20T10:00:30.000000000Z"],
    ["assistant", "Done with prefers-color-scheme.", "2026-09-20T10:00:34.000000000Z"],
  ]);
  expect(sessionInfo(api, F)).toMatchObject({ parent: P, title: "Try a CSS-only version instead" });
  expect(sessionInfo(api, P)?.parent).toBeUndefined();
  expect(sessionInfo(api, P)?.title).toBe("Add a dark mode toggle");
  const hits = (await api.search({ query: "toggle", match: "keyword" })).hits;
  expect(hits.map((h) => h.message.session)).toEqual([P, P]);
  // A later pass reads from the offset: the fork keeps its origin.
  appendFileSync(forkFile, `${JSON.stringify(prompt(FORK, "2.1.123", "f-3", "f-2", 40, "Ship it"))}\n`);
  expect((await importWith(api, "claude-code", [dir])).messages).toMatchObject({ added: 1 });
  expect(sessionInfo(api, F)?.parent).toBe(P);

  // The parent's transcript is gone (Claude Code's cleanup) before the first import: the copies keep its messages,
  // with the ids its own file gives them.
  const alone = openTemp();
  await importWith(alone.api, "claude-code", [forkFile]);
  expect(messagesOf(alone.api, P)).toEqual(PARENT_MESSAGES);
  expect(alone.api.history(P, { all: true }).map((m) => m.id)).toEqual(api.history(P, { all: true }).map((m) => m.id));
  expect(messagesOf(alone.api, F).map((m) => m[1])).toEqual([
    "Try a CSS-only version instead",
    "Done with prefers-color-scheme.",
    "Ship it",
  ]);
  api.close();
  alone.api.close();
});

test("a resumed session's file (1.0) starts with the earlier session's records: they stay that session's, once", async () => {
  const dir = join(tempHome("cc-resume-"), "projects", "-home-dev-site");
  mkdirSync(dir, { recursive: true });
  write(dir, PARENT, parentRecords(PARENT, "1.0.51"));
  write(dir, RESUMED, [
    { type: "summary", summary: "Dark mode toggle", leafUuid: "p-4" },
    ...parentRecords(PARENT, "1.0.51"),
    prompt(RESUMED, "1.0.51", "r-1", "p-4", 40, "Now add a high-contrast theme"),
    reply(RESUMED, "1.0.51", "r-2", "r-1", 44, "Added a third theme."),
  ]);
  const { api } = openTemp();
  const r = await importWith(api, "claude-code", [dir]);
  expect(r.messages).toMatchObject({ added: 6, existing: 4 });
  expect(messagesOf(api, P)).toEqual(PARENT_MESSAGES);
  expect(messagesOf(api, `cc-${RESUMED}`).map((m) => m[1])).toEqual([
    "Now add a high-contrast theme",
    "Added a third theme.",
  ]);
  expect(sessionInfo(api, `cc-${RESUMED}`)?.parent).toBe(P);
  expect((await importWith(api, "claude-code", [dir])).messages).toMatchObject({ added: 0 });
  api.close();
});

test("a rewind (/rewind, Esc Esc) drops the turns it took back, also when an earlier pass imported them", async () => {
  const dir = join(tempHome("cc-rewind-"), "projects", "-home-dev-site");
  mkdirSync(dir, { recursive: true });
  const v = "2.1.150";
  const file = write(dir, PARENT, [
    ...parentRecords(PARENT, v),
    // Two tool results answering one reply share their parent too: they are no prompts.
    {
      ...record(PARENT, v, "p-5", "p-4", 16),
      type: "assistant",
      requestId: "req_p5",
      message: {
        id: "msg_p5",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [
          { type: "text", text: "Checking both stylesheets." },
          { type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "a.css" } },
        ],
      },
    },
    {
      ...record(PARENT, v, "p-6", "p-5", 17),
      type: "user",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "a" }] },
    },
    {
      ...record(PARENT, v, "p-7", "p-5", 17),
      type: "user",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_2", content: "b" }] },
    },
    reply(PARENT, v, "p-8", "p-7", 19, "Both use the same variables."),
  ]);
  const { api } = openTemp();
  expect((await importWith(api, "claude-code", [file])).messages.added).toBe(6);
  // Rewound to before "Persist the choice", then another prompt: it hangs off the reply before the one taken back.
  appendFileSync(
    file,
    `${[
      prompt(PARENT, v, "p-9", "p-2", 40, "Follow the system theme instead"),
      reply(PARENT, v, "p-10", "p-9", 44, "It follows prefers-color-scheme now."),
    ]
      .map((r) => JSON.stringify(r))
      .join("\n")}\n`,
  );
  const second = await importWith(api, "claude-code", [file]);
  expect(second.messages).toMatchObject({ added: 2, removed: 4 });
  const expected: [string, string, string][] = [
    PARENT_MESSAGES[0]!,
    PARENT_MESSAGES[1]!,
    ["user", "Follow the system theme instead", "2026-09-20T10:00:40.000000000Z"],
    ["assistant", "It follows prefers-color-scheme now.", "2026-09-20T10:00:44.000000000Z"],
  ];
  expect(messagesOf(api, P)).toEqual(expected);
  expect((await importWith(api, "claude-code", [file])).messages).toMatchObject({ added: 0, removed: 0 });
  // Read in one pass: the same messages and ids.
  const whole = openTemp();
  expect((await importWith(whole.api, "claude-code", [file])).messages).toMatchObject({ added: 4, removed: 0 });
  expect(messagesOf(whole.api, P)).toEqual(expected);
  expect(whole.api.history(P, { all: true }).map((m) => m.id)).toEqual(api.history(P, { all: true }).map((m) => m.id));
  // A later turn on the kept branch is read from the offset as usual.
  appendFileSync(file, `${JSON.stringify(prompt(PARENT, v, "p-11", "p-10", 50, "thanks"))}\n`);
  expect((await importWith(api, "claude-code", [file])).messages).toMatchObject({ added: 1, removed: 0 });
  api.close();
  whole.api.close();
});
