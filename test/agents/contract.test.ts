// The one MemoryApi contract suite, run against the local implementation and the HTTP client.
import { afterAll } from "bun:test";
import { openMemory } from "../../src/lib.ts";
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
