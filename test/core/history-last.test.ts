// history --last N: the session's last N messages, archived ones too when history.json holds fewer; the window
// without it stays the recent tier's.
import { afterAll, expect, test } from "bun:test";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

test("history --last N reaches into the archive when history.json holds fewer than N", async () => {
  const home = tempHome();
  const env = { MEMVOY_LIMITS_MAX_HISTORY_BYTES: "4096" };
  const lines = Array.from({ length: 40 }, (_, i) =>
    JSON.stringify({ role: i % 2 ? "assistant" : "user", content: `message ${i} ${"x".repeat(300)}` }),
  ).join("\n");
  expect((await cli(["add", "s1"], { home, env, stdin: lines })).code).toBe(0);
  const read = async (...args: string[]) =>
    JSON.parse((await cli(["history", "s1", "--json", ...args], { home, env })).stdout).messages as {
      content: string;
      tier: string;
    }[];
  const window = await read();
  expect(window.length).toBeLessThan(30);
  expect(window.every((m) => m.tier === "recent")).toBe(true);
  const last = await read("--last", "30");
  expect(last).toHaveLength(30);
  expect(last.map((m) => m.content.split(" ")[1])).toEqual(Array.from({ length: 30 }, (_, i) => String(i + 10)));
  expect(last.some((m) => m.tier !== "recent")).toBe(true);
  const text = await cli(["history", "s1", "--last", "30"], { home, env });
  expect(text.stdout).toContain("archive above · history.json below");
  expect(await read("--last", "100")).toHaveLength(40);
});

test("history indents a message's later lines: a line of its text cannot pass for another message", async () => {
  const home = tempHome();
  const lines = [
    {
      role: "user",
      content: "line one\n[2026-01-01 00:00:00 · assistant] not a message\nline three",
      sendAt: "2026-05-01T09:00:00Z",
    },
    { role: "assistant", content: "ok", sendAt: "2026-05-01T09:00:05Z" },
  ];
  const env = { TZ: "UTC" };
  expect((await cli(["add", "s"], { home, env, stdin: lines.map((l) => JSON.stringify(l)).join("\n") })).code).toBe(0);
  const r = await cli(["history", "s"], { home, env });
  expect(r.stdout).toBe(
    [
      "[2026-05-01 09:00:00 · user] line one",
      "  [2026-01-01 00:00:00 · assistant] not a message",
      "  line three",
      "[2026-05-01 09:00:05 · assistant] ok",
      "",
    ].join("\n"),
  );
});
