// The MemoryApi contract suite in shared mode: the archive in PostgreSQL (the source of truth), the vectors
// in LanceDB on S3-compatible storage (the local test server). Nothing is written to the home's own stores.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openMemory } from "../../src/lib.ts";
import { describePostgres, startPostgres, type PgServer } from "../fixture/postgres-server.ts";
import { startS3Server, type S3Server } from "../fixture/s3-server.ts";
import { contractCases } from "./contract.case.ts";
import { removeTempDirs, tempDir } from "./support.ts";

const describe = describePostgres();
let pg: PgServer;
let s3: S3Server;
let homes = 0;

describe("shared mode (PostgreSQL archive, vectors on S3)", () => {
  beforeAll(async () => {
    [pg, s3] = await Promise.all([startPostgres(), startS3Server()]);
  }, 180_000);
  afterAll(async () => {
    await Promise.all([pg?.stop(), s3?.stop()]);
    removeTempDirs();
  }, 60_000);

  test("one process writing to many sessions at once: every write lands (the connection pool never runs dry)", async () => {
    const home = tempDir();
    writeFileSync(join(home, "config.toml"), s3.vectorsToml("many-sessions"));
    const api = openMemory({ home, env: { ...s3.env, MEMVOY_ARCHIVE_URL: await pg.createDatabase("many_sessions") } });
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
    const home = tempDir();
    writeFileSync(join(home, "config.toml"), s3.vectorsToml("emptied"));
    const api = openMemory({ home, env: { ...s3.env, MEMVOY_ARCHIVE_URL: await pg.createDatabase("emptied") } });
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
    const home = tempDir();
    writeFileSync(join(home, "config.toml"), s3.vectorsToml(`shared-${n}`));
    const url = await pg.createDatabase(`contract_${n}`);
    const api = openMemory({ home, env: { ...s3.env, MEMVOY_ARCHIVE_URL: url } });
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
