// sessions --source matches a source whatever its case, and a --source that matches nothing names the sources
// this home holds, so a misspelled name is not taken for a home with no such sessions.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

let home: string;
beforeAll(async () => {
  home = tempHome();
  const lines = [
    { type: "session", id: "cc-1", source: "claude-code", title: "deploy" },
    {
      type: "message",
      id: "01M94NDVRNQW88ZXG2N1EBM90A",
      session: "cc-1",
      role: "user",
      content: "hello",
      sendAt: "2026-01-01T00:00:00.000000000Z",
    },
    { type: "session", id: "cx-1", source: "codex" },
    {
      type: "message",
      id: "01M94NDVRNQW88ZXG2N1EBM90B",
      session: "cx-1",
      role: "user",
      content: "hi",
      sendAt: "2026-01-01T00:00:01.000000000Z",
    },
  ];
  const stdin = `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;
  expect((await cli(["import", "jsonl", "-"], { home, stdin })).code).toBe(0);
}, 60_000);

test("--source Claude-Code finds the claude-code sessions", async () => {
  const r = await cli(["sessions", "--source", "Claude-Code", "--json"], { home });
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout).map((s: { id: string }) => s.id)).toEqual(["cc-1"]);
}, 60_000);

test("a --source that matches nothing names the home's sources", async () => {
  const r = await cli(["sessions", "--source", "claud"], { home });
  expect(r.code).toBe(0);
  expect(r.stdout).toBe("no sessions match (sources here: claude-code, codex)\n");
  const empty = tempHome();
  expect((await cli(["add", "mine", "--role", "user", "--content", "x"], { home: empty })).code).toBe(0);
  const none = await cli(["sessions", "--source", "codex"], { home: empty });
  expect(none.stdout).toBe("no sessions match (no session here was imported)\n");
}, 60_000);
