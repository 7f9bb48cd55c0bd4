// A home deleted or replaced while a long-lived process has it open (a library user, memvoy mcp): its reads and
// writes are refused in one line, never sent to the unlinked archive where a write would be lost, and nothing of
// the old home leaks into a new one made at its path.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { openMemory } from "../../src/lib.ts";
import { cli, removeTempHomes, repoRoot, tempHome } from "../fixture/home.ts";
import { LineClient } from "../agents/mcp-client.ts";

afterAll(removeTempHomes);

const GONE = /the home .* was deleted or moved away while this process had it open/;

test("library: rm -rf of the home refuses the next add and read, and recreates nothing", async () => {
  const home = join(tempHome(), "h");
  const m = openMemory({ home, env: {} });
  await m.add("s1", { role: "user", content: "first" });
  rmSync(home, { recursive: true, force: true });
  await expect(m.add("s1", { role: "user", content: "second" })).rejects.toThrow(GONE);
  await expect(m.sessions()).rejects.toThrow(GONE);
  await expect(m.recordError({ tool: "git", error: "fatal: x", fix: "y", outcome: "resolved" })).rejects.toThrow(GONE);
  await m.close();
  expect(existsSync(home)).toBe(false);
});

test("library: only the archive deleted (rm -rf HOME/.store) is named as such", async () => {
  const home = join(tempHome(), "h");
  const m = openMemory({ home, env: {} });
  await m.add("s1", { role: "user", content: "first" });
  rmSync(join(home, ".store"), { recursive: true, force: true });
  await expect(m.add("s1", { role: "user", content: "second" })).rejects.toThrow(
    `the archive of the home ${home} (.store/history.db) was deleted while this process had it open`,
  );
  await m.close();
  expect(existsSync(join(home, ".store"))).toBe(false);
});

test("library: a new home at the same path is neither written with the old one's messages nor read as it", async () => {
  const home = join(tempHome(), "h");
  const m = openMemory({ home, env: {} });
  await m.add("s1", { role: "user", content: "from the old home" });
  renameSync(home, `${home}.old`);
  expect((await cli(["add", "other", "--role", "user", "--content", "fresh"], { home })).code).toBe(0);
  await expect(m.add("s1", { role: "user", content: "second" })).rejects.toThrow(
    /the home .* was replaced while this process had it open/,
  );
  await expect(m.search({ query: "old home" })).rejects.toThrow(/was replaced/);
  // A message of the new home is not looked for in the old archive ("no message ...").
  const fresh = JSON.parse((await cli(["history", "other", "--json"], { home })).stdout).messages[0].id;
  await expect(m.rmMessage(fresh)).rejects.toThrow(/was replaced/);
  await m.close();
  expect(existsSync(join(home, "sessions", "s1"))).toBe(false);
  const h = await cli(["sessions", "--json"], { home });
  expect(JSON.parse(h.stdout).map((s: { id: string }) => s.id)).toEqual(["other"]);
  rmSync(`${home}.old`, { recursive: true, force: true });
});

test("memvoy mcp: add_messages after the home was deleted is an isError, not a write into the removed archive", async () => {
  const home = join(tempHome(), "h");
  const proc = Bun.spawn(["bun", join(repoRoot, "src/index.ts"), "mcp", "--home", home], {
    env: { PATH: process.env.PATH!, HOME: tempHome() },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const c = new LineClient(proc);
  await c.initialize();
  const add = (content: string) =>
    c.request("tools/call", {
      name: "add_messages",
      arguments: { session: "s1", messages: [{ role: "user", content }] },
    });
  expect((await add("one")).result.isError).toBeFalsy();
  rmSync(home, { recursive: true, force: true });
  mkdirSync(home);
  const r = await add("two");
  expect(r.result.isError).toBe(true);
  expect(r.result.content[0].text).toMatch(/the archive of the home .* was deleted while this process had it open/);
  c.close();
  expect(await proc.exited).toBe(0);
  expect(existsSync(join(home, "sessions"))).toBe(false);
});

test("memvoy mcp: a home replaced by a new one at its path is opened again, and the call made there", async () => {
  const home = join(tempHome(), "h");
  const proc = Bun.spawn(["bun", join(repoRoot, "src/index.ts"), "mcp", "--home", home], {
    env: { PATH: process.env.PATH!, HOME: tempHome() },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const c = new LineClient(proc);
  await c.initialize();
  const add = (session: string, content: string) =>
    c.request("tools/call", {
      name: "add_messages",
      arguments: { session, messages: [{ role: "user", content }] },
    });
  expect((await add("s1", "in the old home")).result.isError).toBeFalsy();
  renameSync(home, `${home}.old`);
  expect((await cli(["add", "other", "--role", "user", "--content", "fresh"], { home })).code).toBe(0);
  const r = await add("s2", "in the new home");
  expect(r.result.isError).toBeFalsy();
  const listed = await c.request("tools/call", { name: "chat_history", arguments: { mode: "sessions" } });
  const ids = listed.result.structuredContent.sessions.map((s: { id: string }) => s.id).sort();
  expect(ids).toEqual(["other", "s2"]);
  c.close();
  expect(await proc.exited).toBe(0);
  const old = await cli(["sessions", "--json"], { home: `${home}.old` });
  expect(JSON.parse(old.stdout).map((s: { id: string }) => s.id)).toEqual(["s1"]);
});
