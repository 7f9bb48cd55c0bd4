// The MemoryApi contract suite over HTTP against a daemon on its own home: the calls that touch LanceDB (semantic
// search, error memory, the vector half of a deletion) run in its worker child, and the daemon maps none.
import { afterAll, expect } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { connectMemory, type MemoryApi } from "../../src/lib.ts";
import {
  cleanup,
  mappedFiles,
  startDaemon,
  tempHome,
  waitFor,
  waitRunning,
  workerPids,
} from "../fixture/daemon-process.ts";
import { contractCases } from "./contract.case.ts";

afterAll(cleanup);

contractCases("HTTP against a daemon on its own home", async () => {
  const home = tempHome();
  const d = startDaemon(home, { MEMVOY_HTTP_PORT: "0" });
  await waitRunning(d);
  await waitFor(() => existsSync(join(home, "http.json")), 15_000, "http.json");
  const f = JSON.parse(readFileSync(join(home, "http.json"), "utf8")) as { url: string; token: string };
  const http = connectMemory({ url: f.url, token: f.token });
  // The daemon embeds what is added in the background (its embeddings job): an add returns once that is done, as
  // in the process that adds, so that the cases' semantic searches see the messages.
  const add: MemoryApi["add"] = async (...args) => {
    const r = await http.add(...args);
    await waitFor(() => queued(home) === 0, 60_000, "the embedding queue drained");
    return r;
  };
  const api = new Proxy(http, {
    get: (t, k) => {
      if (k === "add") return add;
      const v: unknown = Reflect.get(t, k);
      return typeof v === "function" ? v.bind(t) : v;
    },
  });
  return {
    api,
    close: async () => {
      await http.close();
      const [child] = workerPids(home, "api");
      expect(child).toBeGreaterThan(0);
      expect(
        mappedFiles(d.proc.pid)
          .split("\n")
          .filter((l) => /lancedb/i.test(l)),
      ).toEqual([]);
      d.proc.kill("SIGTERM");
      expect(await d.exited).toBe(0);
    },
  };
});

function queued(home: string): number {
  const db = new Database(join(home, ".store", "history.db"), { readonly: true });
  try {
    return (db.query("SELECT count(*) AS n FROM embed_queue").get() as { n: number }).n;
  } finally {
    db.close();
  }
}
