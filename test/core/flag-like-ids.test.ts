// Session ids that look like flags (-x, --, -) are valid ids: given after --, every command takes them, and a
// command memvoy suggests for such a session works when copied.
import { afterAll, expect, test } from "bun:test";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

test("a session named -x is added, listed and read after --; the suggested summarize command takes it", async () => {
  const home = tempHome();
  expect((await cli(["add", "--role", "user", "--content", "dash x", "--", "-x"], { home })).code).toBe(0);
  expect((await cli(["add", "--role", "user", "--content", "dash", "-"], { home })).code).toBe(0);
  const history = await cli(["history", "--json", "--", "-x"], { home });
  expect(JSON.parse(history.stdout).messages.map((m: { content: string }) => m.content)).toEqual(["dash x"]);
  const sessions = JSON.parse((await cli(["sessions", "--json"], { home })).stdout);
  expect(sessions.map((s: { id: string }) => s.id).sort()).toEqual(["-", "-x"]);
  const summary = await cli(["summary", "--", "-x"], { home });
  expect(summary.stdout).toContain("(memvoy summarize -- -x)");
  // The suggested command parses (it fails only for want of an API key, not as an unknown option).
  const run = await cli(["summarize", "--", "-x"], { home });
  expect(run.stderr).not.toContain("unknown option");
});
