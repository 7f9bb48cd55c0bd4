// An imported session's title is stored as its messages are: secrets redacted, and gone with the message it was
// taken from (rm-message, reset), never brought back by a re-import.
import { afterAll, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
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
