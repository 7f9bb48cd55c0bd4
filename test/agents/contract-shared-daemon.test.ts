// The MemoryApi contract suite over HTTP against a daemon in shared mode (PostgreSQL archive, vectors on S3):
// the daemon serves the shared memory, and writes nothing into the home's own stores.
import { afterAll, beforeAll } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectMemory } from "../../src/lib.ts";
import { cleanup, startDaemon, tempHome, waitFor, waitRunning } from "../fixture/daemon-process.ts";
import { describePostgres, startPostgres, type PgServer } from "../fixture/postgres-server.ts";
import { startS3Server, type S3Server } from "../fixture/s3-server.ts";
import { contractCases } from "./contract.case.ts";

const describe = describePostgres();
let pg: PgServer;
let s3: S3Server;

describe("a daemon in shared mode", () => {
  beforeAll(async () => {
    [pg, s3] = await Promise.all([startPostgres(), startS3Server()]);
  }, 180_000);
  afterAll(async () => {
    cleanup();
    await Promise.all([pg?.stop(), s3?.stop()]);
  }, 60_000);

  contractCases("HTTP against a daemon on a shared archive", async () => {
    const home = tempHome();
    writeFileSync(join(home, "config.toml"), s3.vectorsToml("daemon"));
    const url = await pg.createDatabase("daemon_contract");
    const d = startDaemon(home, { ...s3.env, MEMVOY_ARCHIVE_URL: url, MEMVOY_HTTP_PORT: "0" });
    await waitRunning(d, 60_000);
    await waitFor(() => existsSync(join(home, "http.json")), 30_000, "http.json");
    const f = JSON.parse(readFileSync(join(home, "http.json"), "utf8")) as { url: string; token: string };
    const api = connectMemory({ url: f.url, token: f.token });
    return {
      api,
      close: async () => {
        await api.close();
        d.proc.kill("SIGTERM");
        await d.exited;
        for (const local of [".store/history.db", ".store/lance"])
          if (existsSync(join(home, local))) throw new Error(`${local} was written in shared mode`);
      },
    };
  });
});
