import { afterAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { openMemory, InputError, type MemoryApi } from "memvoy";
import { removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

test('the library is importable as "memvoy": an async MemoryApi whose results are plain JSON', async () => {
  const api: MemoryApi = openMemory({ home: tempHome(), env: {} });
  const { ids } = await api.add("lib", [
    { role: "user", content: "library call", sendAt: "2026-01-01T00:00:00.000000001Z" },
    { role: "assistant", content: "works", sender: "bot" },
  ]);
  expect(ids).toHaveLength(2);
  const history = await api.history("lib");
  expect(history.messages.map((m) => [m.role, m.content])).toEqual([
    ["user", "library call"],
    ["assistant", "works"],
  ]);
  expect(history.messages[0]!.sendAt).toBe("2026-01-01T00:00:00.000000001Z");
  const found = await api.search({ query: "library" });
  expect(found.hits[0]!.id).toBe(ids[0]!);
  // every result survives JSON.stringify unchanged (no bigint, no class instance)
  for (const value of [history, found, await api.sessions(), await api.context("lib", "next?")]) {
    expect(JSON.parse(JSON.stringify(value))).toEqual(value);
  }
  expect(await api.add("../x", { role: "user", content: "x" }).catch((e) => e)).toBeInstanceOf(InputError);
  await api.close();
});

test('openMemory({ home: "" }) is refused, as --home "" is, instead of opening the default home', () => {
  const fakeUser = tempHome();
  const env = { HOME: fakeUser };
  for (const home of ["", 5 as unknown as string]) expect(() => openMemory({ home, env })).toThrow(InputError);
  expect(() => openMemory({ home: "", env })).toThrow("openMemory: home is empty");
  expect(existsSync(join(fakeUser, ".config"))).toBe(false);
});

test("close() lets the calls already made finish, then closes; a call made after it is refused", async () => {
  const api = openMemory({ home: tempHome(), env: {} });
  await api.add("s", [{ role: "user", content: "before closing" }]);
  const started = [
    api.add("s", [{ role: "assistant", content: "written while closing" }]),
    api.search({ query: "closing", match: "semantic" }),
    api.search({ query: "closing", match: "hybrid" }),
    api.history("s", { all: true }),
  ];
  const closed = api.close();
  await expect(api.sessions()).rejects.toThrow("this memory was closed");
  const results = await Promise.allSettled(started);
  expect(results.map((r) => (r.status === "rejected" ? String(r.reason) : r.status))).toEqual([
    "fulfilled",
    "fulfilled",
    "fulfilled",
    "fulfilled",
  ]);
  await closed;
  await expect(api.history("s")).rejects.toThrow("this memory was closed");
});
