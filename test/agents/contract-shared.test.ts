// The MemoryApi contract suite in shared mode: the archive in PostgreSQL (the source of truth), the vectors
// in LanceDB on S3-compatible storage (the local test server). Nothing is written to the home's own stores.
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { openMemory } from "../../src/lib.ts";
import { describePostgres } from "../fixture/postgres-server.ts";
import { sharedBackend } from "../fixture/shared-backend.ts";
import { contractCases } from "./contract.case.ts";

const describe = describePostgres();
let homes = 0;

describe("shared mode (PostgreSQL archive, vectors on S3)", () => {
  const shared = sharedBackend();

  test("one process writing to many sessions at once: every write lands (the connection pool never runs dry)", async () => {
    const home = shared.home("many-sessions");
    const api = openMemory({ home, env: await shared.env("many_sessions") });
    try {
      const sessions = Array.from({ length: 16 }, (_, i) => `s${i}`);
      await Promise.all(
        sessions.flatMap((s) => [0, 1].map((k) => api.add(s, { role: "user", content: `${s} message ${k}` }))),
      );
      const listed = await api.sessions({ sort: "name" });
      expect(listed.map((s) => s.messages)).toEqual(sessions.map(() => 2));
    } finally {
      await api.close();
    }
  }, 120_000);

  test("semantic search on an archive whose every session was removed says nothing is indexed, as a new one does", async () => {
    const home = shared.home("emptied");
    const api = openMemory({ home, env: await shared.env("emptied") });
    try {
      const query = "the deploy failed with exit 137";
      expect((await api.search({ query, match: "semantic" })).emptyReason).toBe("nothing is indexed yet");
      await api.add("s", { role: "user", content: query });
      expect((await api.search({ query, match: "semantic" })).hits).toHaveLength(1);
      await api.rm("s");
      const after = await api.search({ query, match: "semantic" });
      expect(after.hits).toEqual([]);
      expect(after.emptyReason).toBe("nothing is indexed yet");
    } finally {
      await api.close();
    }
  }, 120_000);

  contractCases("shared archive on PostgreSQL, vectors on S3 (openMemory)", async () => {
    const n = ++homes;
    const home = shared.home(`shared-${n}`);
    const api = openMemory({ home, env: await shared.env(`contract_${n}`) });
    return {
      api,
      close: async () => {
        await api.close();
        for (const local of [".store/history.db", ".store/lance"])
          if (existsSync(join(home, local))) throw new Error(`${local} was written in shared mode`);
      },
    };
  });
});
