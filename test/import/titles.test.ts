// An imported session's title is stored as its messages are: secrets redacted, and gone with the message it was
// taken from (rm-message, reset), never brought back by a re-import.
import { afterAll, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { openTemp, removeTempHomes, tempHome } from "../fixture/home.ts";
import { GITHUB_TOKEN, STRIPE_KEY, TITLED, UNTITLED, writeTitledProjects } from "../fixture/import/titled-projects.ts";
import { importWith, sessionInfo } from "./support.ts";

afterAll(removeTempHomes);

/** Every byte of every file of the home, as text. */
function homeBytes(home: string): string {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(dir, e.name)) : e.isFile() ? [readFileSync(join(dir, e.name), "latin1")] : [],
    );
  return walk(home).join("\n");
}

test("titles are redacted like the messages, unless secrets are kept", async () => {
  const projects = writeTitledProjects(tempHome("titles-src-"));
  const { api, home } = openTemp();
  const r = await importWith(api, "claude-code", [projects]);
  expect(r.messages.added).toBe(3);
  expect(sessionInfo(api, TITLED)?.title).toBe("Pushing with [REDACTED:stripe-key]");
  expect(sessionInfo(api, UNTITLED)?.title).toBe("use token [REDACTED:github-token] to push the release");
  api.close();
  const bytes = homeBytes(home);
  expect(bytes).not.toContain(STRIPE_KEY);
  expect(bytes).not.toContain(GITHUB_TOKEN);

  const kept = openTemp();
  await importWith(kept.api, "claude-code", [projects], { keepSecrets: true });
  expect(sessionInfo(kept.api, TITLED)?.title).toBe(`Pushing with ${STRIPE_KEY}`);
  kept.api.close();
});

test("rm-message of the message a title was taken from removes the title, and a re-import does not bring it back", async () => {
  const projects = writeTitledProjects(tempHome("titles-src-"));
  const { api, home } = openTemp();
  await importWith(api, "claude-code", [projects], { keepSecrets: true });
  const [first, second] = api.history(UNTITLED, { all: true });
  await api.rmMessage(first!.id);
  expect(sessionInfo(api, UNTITLED)?.title).toBeUndefined();
  // A title the tool gave is no message's text: it stays.
  await api.rmMessage(api.history(TITLED, { all: true })[0]!.id);
  expect(sessionInfo(api, TITLED)?.title).toBe(`Pushing with ${STRIPE_KEY}`);
  // The same records written again (another key order): the file is read from its start, the removed prompt with it.
  for (const f of readdirSync(projects)) {
    const lines = readFileSync(join(projects, f), "utf8").trimEnd().split("\n");
    const reordered = lines.map((l) => JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(l)).reverse())));
    writeFileSync(join(projects, f), `${reordered.join("\n")}\n`);
  }
  const again = await importWith(api, "claude-code", [projects], { keepSecrets: true });
  expect(again.messages).toMatchObject({ added: 0, tombstoned: 2 });
  expect(sessionInfo(api, UNTITLED)?.title).toBeUndefined();
  expect(api.history(UNTITLED, { all: true }).map((m) => m.id)).toEqual([second!.id]);
  api.close();
  expect(homeBytes(home)).not.toContain(GITHUB_TOKEN);
});

test("reset removes a title taken from one of the session's messages", async () => {
  const projects = writeTitledProjects(tempHome("titles-src-"));
  const { api, home } = openTemp();
  await importWith(api, "claude-code", [projects], { keepSecrets: true });
  api.reset(UNTITLED);
  expect(sessionInfo(api, UNTITLED)?.title).toBeUndefined();
  api.reset(TITLED);
  expect(sessionInfo(api, TITLED)?.title).toBe(`Pushing with ${STRIPE_KEY}`);
  api.close();
  expect(homeBytes(home)).not.toContain(GITHUB_TOKEN);
});

test("a later pass over a grown transcript or rollout keeps the title taken from its first user line", async () => {
  const dir = tempHome("titles-grow-");
  const cc = join(dir, "projects", "p", "3c1d2e3f-0000-4a5b-8c9d-000000000001.jsonl");
  const rollout = join(dir, "codex", "rollout-2026-06-10T12-00-00-0199a1b2-0000-7e5f-8a9b-000000000001.jsonl");
  mkdirSync(dirname(cc), { recursive: true });
  mkdirSync(dirname(rollout), { recursive: true });
  const ccLine = (uuid: string, parent: string | null, type: string, text: string, at: string) =>
    JSON.stringify({
      type,
      uuid,
      parentUuid: parent,
      sessionId: "3c1d2e3f-0000-4a5b-8c9d-000000000001",
      cwd: "/home/dev/p",
      timestamp: at,
      message:
        type === "user"
          ? { role: "user", content: text }
          : { id: `msg_${uuid}`, role: "assistant", content: [{ type: "text", text }] },
      ...(type === "assistant" && { requestId: `req_${uuid}` }),
    });
  const event = (at: string, kind: string, message: string) =>
    JSON.stringify({ timestamp: at, type: "event_msg", payload: { type: kind, message } });
  writeFileSync(
    cc,
    `${ccLine("u1", null, "user", "Fix the login bug", "2026-06-10T12:00:00.000Z")}\n${ccLine("a1", "u1", "assistant", "Looking.", "2026-06-10T12:00:05.000Z")}\n`,
  );
  writeFileSync(
    rollout,
    `${JSON.stringify({ timestamp: "2026-06-10T12:00:00.000Z", type: "session_meta", payload: { id: "0199a1b2-0000-7e5f-8a9b-000000000001", cwd: "/home/dev/p" } })}\n${event("2026-06-10T12:00:01.000Z", "user_message", "why does make hang?")}\n`,
  );
  const { api } = openTemp();
  await importWith(api, "claude-code", [join(dir, "projects")]);
  await importWith(api, "codex", [join(dir, "codex")]);
  appendFileSync(cc, `${ccLine("u2", "a1", "user", "Now write the tests", "2026-06-10T12:01:00.000Z")}\n`);
  appendFileSync(rollout, `${event("2026-06-10T12:01:00.000Z", "user_message", "free the port then")}\n`);
  const cr = await importWith(api, "claude-code", [join(dir, "projects")]);
  const xr = await importWith(api, "codex", [join(dir, "codex")]);
  expect([cr.messages.added, xr.messages.added]).toEqual([1, 1]);
  expect(sessionInfo(api, "cc-3c1d2e3f-0000-4a5b-8c9d-000000000001")?.title).toBe("Fix the login bug");
  expect(sessionInfo(api, "codex-0199a1b2-0000-7e5f-8a9b-000000000001")?.title).toBe("why does make hang?");
  api.close();
});
