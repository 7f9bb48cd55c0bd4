// The MemoryApi contract suite over HTTP against a daemon in shared mode (PostgreSQL archive, vectors on S3):
// the daemon serves the shared memory, and writes nothing into the home's own stores.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { connectMemory } from "../../src/lib.ts";
import { cleanup, startDaemon, waitFor, waitRunning } from "../fixture/daemon-process.ts";
import { describePostgres } from "../fixture/postgres-server.ts";
import { sharedBackend } from "../fixture/shared-backend.ts";
import { contractCases } from "./contract.case.ts";

const describe = describePostgres();

describe("a daemon in shared mode", () => {
  const shared = sharedBackend({ beforeStop: cleanup });

  contractCases("HTTP against a daemon on a shared archive", async () => {
    const home = shared.home("daemon");
    const d = startDaemon(home, { ...(await shared.env("daemon_contract")), MEMVOY_HTTP_PORT: "0" });
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
