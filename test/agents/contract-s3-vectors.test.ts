// The MemoryApi contract suite on a home whose vectors live in LanceDB on S3-compatible storage (the local
// test server), the archive staying in the home: semantic and hybrid search, error memory, deletions.
import { afterAll, beforeAll } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openMemory } from "../../src/lib.ts";
import { startS3Server, type S3Server } from "../fixture/s3-server.ts";
import { contractCases } from "./contract.case.ts";
import { removeTempDirs, tempDir } from "./support.ts";

let s3: S3Server;
let homes = 0;
beforeAll(async () => {
  s3 = await startS3Server();
}, 120_000);
afterAll(async () => {
  await s3?.stop();
  removeTempDirs();
});

contractCases("local archive, vectors on S3 (openMemory)", async () => {
  const home = tempDir();
  writeFileSync(join(home, "config.toml"), s3.vectorsToml(`contract-${++homes}`));
  const api = openMemory({ home, env: s3.env });
  return {
    api,
    close: async () => {
      await api.close();
      if (existsSync(join(home, ".store", "lance")))
        throw new Error("vectors were written to the home, not the bucket");
    },
  };
});
