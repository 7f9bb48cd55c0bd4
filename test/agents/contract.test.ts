// The one MemoryApi contract suite, run against the local implementation and the HTTP client.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, test } from "bun:test";
import { openMemory } from "../../src/lib.ts";
import { lazyMemoryApi } from "../../src/app/api/lazy-memory-api.ts";
import { contractCases } from "./contract.case.ts";
import { connectTo, removeTempDirs, serveHome, tempDir } from "./support.ts";

afterAll(removeTempDirs);

contractCases("local (openMemory)", async () => {
  const api = openMemory({ home: tempDir(), env: {} });
  return { api, close: () => api.close() };
});

contractCases("HTTP (connectMemory against the loopback API)", async () => {
  const served = serveHome();
  const api = connectTo(served);
  return {
    api,
    close: async () => {
      await api.close();
      await served.close();
    },
  };
});

test("an add after close leaves no trace in the home: no bare session folder", async () => {
  const home = tempDir();
  const api = openMemory({ home, env: {} });
  await api.add("kept", { role: "user", content: "before close" });
  await api.close();
  await expect(api.add("after-close", { role: "user", content: "x" })).rejects.toThrow("this memory was closed");
  expect(existsSync(join(home, "sessions", "kept"))).toBe(true);
  expect(existsSync(join(home, "sessions", "after-close"))).toBe(false);
});

test("a memory opened on its first call (shared mode, memvoy mcp) and closed before it: later calls are refused, none opens it", async () => {
  let opens = 0;
  const api = lazyMemoryApi(async () => {
    opens++;
    return openMemory({ home: tempDir(), env: {} });
  });
  await api.close();
  await expect(api.sessions()).rejects.toThrow("this memory was closed");
  expect(opens).toBe(0);
});
