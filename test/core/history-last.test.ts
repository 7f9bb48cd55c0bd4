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
