import { afterAll, expect, test } from "bun:test";
import { openMemory, MemoryApi, InputError } from "memvoy";
import { removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

test('the library is importable as "memvoy" and exposes the same operations, typed', async () => {
  const api = openMemory({ home: tempHome(), env: {} });
  expect(api).toBeInstanceOf(MemoryApi);
  const { ids } = api.add("lib", [
    { role: "user", content: "library call", sendAt: "2026-01-01T00:00:00.000000001Z" },
    { role: "assistant", content: "works", sender: "bot" },
  ]);
  expect(ids).toHaveLength(2);
  expect(api.history("lib").map((m) => [m.role, m.content])).toEqual([["user", "library call"], ["assistant", "works"]]);
  expect(api.history("lib")[0]!.sendAt).toBe(1767225600000000001n);
  expect((await api.search({ query: "library" })).hits[0]!.message.id).toBe(ids[0]!);
  expect(() => api.add("../x", { role: "user", content: "x" })).toThrow(InputError);
  api.close();
});
