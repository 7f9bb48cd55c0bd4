// import jsonl of an export whose session ids were edited: the messages another session holds are not imported,
// and the report says so (each line named, with that session) instead of counting a session it never created.
import { afterAll, expect, test } from "bun:test";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

test("messages whose ids another session holds are skipped by line, and their session is not counted", async () => {
  const home = tempHome();
  for (const content of ["hello", "hi"])
    expect((await cli(["add", "orig", "--role", "user", "--content", content], { home })).code).toBe(0);
  const exported = (await cli(["export", "orig"], { home })).stdout;
  const edited = exported.replaceAll('"orig"', '"copy"');
  const ids = exported
    .trimEnd()
    .split("\n")
    .slice(1)
    .map((l) => JSON.parse(l).id as string);

  const r = await cli(["import", "jsonl", "-"], { home, stdin: edited });
  expect(r.code).toBe(0);
  expect(r.stdout).toBe("jsonl: 1 file (0 unchanged), 0 sessions, added 0 messages, 2 records skipped\n");
  expect(r.stderr).toContain(`skipped (stdin):2: message ${ids[0]} is already in session orig`);
  expect(r.stderr).toContain(`skipped (stdin):3: message ${ids[1]} is already in session orig`);

  const json = JSON.parse((await cli(["import", "jsonl", "-", "--json"], { home, stdin: edited })).stdout).sources[0];
  expect(json.sessions).toBe(0);
  expect(json.messages).toMatchObject({ added: 0, existing: 0 });
  expect(json.skippedCount).toBe(2);
  const sessions = JSON.parse((await cli(["sessions", "--json"], { home })).stdout);
  expect(JSON.stringify(sessions)).not.toContain('"copy"');

  // The same export again is what it always was: one session, its messages already present.
  const again = await cli(["import", "jsonl", "-"], { home, stdin: exported });
  expect(again.stdout).toBe("jsonl: 1 file (0 unchanged), 1 session, added 0 messages (2 already present)\n");
  expect(again.stderr).toBe("");
}, 60_000);
