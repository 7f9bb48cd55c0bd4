// The daemon's LanceDB work runs in its child process: the daemon never maps LanceDB, one lingering child
// takes a burst of writes, SIGTERM reaches the child, and a child whose daemon was killed exits on its own.
import { afterAll, setDefaultTimeout, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openMemory } from "../../src/app/open-memory.ts";
import {
  cleanup,
  logText,
  mappedFiles,
  processAlive,
  startDaemon,
  tempHome,
  waitFor,
  waitRunning,
  workerPids,
} from "../fixture/daemon-process.ts";

// Real processes (bun start-up, LanceDB): give each test room.
setDefaultTimeout(60_000);

afterAll(cleanup);

function addPairs(home: string, session: string, n: number, topic: string): void {
  const api = openMemory({ home, env: {}, drain: "off" });
  for (let i = 0; i < n; i++) {
    api.add(session, [
      { role: "user", content: `how do I rotate the ${topic} key number ${i}` },
      { role: "assistant", content: `open the vault and rotate the ${topic} secret ${i}` },
    ]);
  }
  api.close();
}

function backlog(home: string): { due: number; queued: number } {
  const api = openMemory({ home, env: {}, drain: "off" });
  try {
    return api.embeddingBacklog();
  } finally {
    api.close();
  }
}

/** An embeddings endpoint that accepts each request and never answers it. */
function startHangingEmbeddings() {
  let requests = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch() {
      requests++;
      return new Promise<Response>(() => {});
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests: () => requests, stop: () => server.stop(true) };
}

function hangingConfig(home: string, url: string): void {
  writeFileSync(
    join(home, "config.toml"),
    `[embedder]\nprovider = "openai"\nbase_url = "${url}/v1"\nmodel = "fake"\ndimensions = 8\nmax_retries = 0\n[daemon]\nembed_interval_ms = 100\n`,
  );
}

describe("the daemon's child", () => {
  test("drains the queue (builtin embedder) while the daemon never maps LanceDB; one child takes a burst", async () => {
    const home = tempHome();
    addPairs(home, "a", 20, "deploy");
    const d = startDaemon(home, {}, ["--verbose"]);
    await waitRunning(d);
    await waitFor(() => backlog(home).queued === 0, 20_000, "the queue to drain");
    const [child] = workerPids(home, "embeddings");
    expect(child).toBeDefined();
    // The child is lingering: it has LanceDB mapped, the daemon does not.
    expect(processAlive(child!)).toBe(true);
    expect(mappedFiles(child!)).toMatch(/lancedb/i);
    expect(mappedFiles(d.proc.pid)).not.toMatch(/lancedb/i);

    // More writes within the linger: the same child embeds them.
    addPairs(home, "b", 5, "billing");
    await waitFor(() => backlog(home).queued === 0, 20_000, "the second burst to drain");
    expect(workerPids(home, "embeddings")).toEqual([child!]);
    const api = openMemory({ home, env: {}, drain: "off" });
    const hits = await api.search({ query: "rotate the billing secret", match: "semantic", limit: 3 });
    api.close();
    expect(hits.hits.length).toBe(3);
    expect(mappedFiles(d.proc.pid)).not.toMatch(/lancedb/i);
    // The child's stderr never reaches the terminal.
    expect(d.stderr()).not.toMatch(/^(?!\d{4}-\d\d-\d\dT)\S/m);

    const t = performance.now();
    d.proc.kill("SIGTERM");
    expect(await d.exited).toBe(0);
    expect(performance.now() - t).toBeLessThan(5000);
    expect(processAlive(child!)).toBe(false);
    expect(logText(home)).toMatch(new RegExp(`worker\\.exit job=embeddings pid=${child} code=0`));
  });

  test("SIGTERM while the child waits on the embedder: the daemon exits 0 within 5 s and leaves no child", async () => {
    const emb = startHangingEmbeddings();
    try {
      const home = tempHome();
      hangingConfig(home, emb.url);
      addPairs(home, "s", 2, "deploy");
      const d = startDaemon(home, { OPENAI_API_KEY: "test-embed-key-123456" });
      await waitRunning(d);
      await waitFor(() => emb.requests() > 0, 15_000, "the child's embedding request");
      const [child] = workerPids(home, "embeddings");
      expect(processAlive(child!)).toBe(true);
      const t = performance.now();
      d.proc.kill("SIGTERM");
      expect(await d.exited).toBe(0);
      expect(performance.now() - t).toBeLessThan(5000);
      expect(processAlive(child!)).toBe(false);
      expect(logText(home)).not.toContain("test-embed-key-123456");
      // Nothing was embedded, nothing lost: the messages stay queued for the next start.
      expect(backlog(home).queued).toBe(4);
    } finally {
      emb.stop();
    }
  });

  test("kill -9 of the daemon: its child notices and exits on its own", async () => {
    const emb = startHangingEmbeddings();
    try {
      const home = tempHome();
      hangingConfig(home, emb.url);
      addPairs(home, "s", 2, "deploy");
      const d = startDaemon(home, { OPENAI_API_KEY: "test-embed-key-123456" });
      await waitRunning(d);
      await waitFor(() => emb.requests() > 0, 15_000, "the child's embedding request");
      const [child] = workerPids(home, "embeddings");
      expect(processAlive(child!)).toBe(true);
      d.proc.kill(9);
      await d.exited;
      await waitFor(() => !processAlive(child!), 10_000, "the orphaned child to exit");
    } finally {
      emb.stop();
    }
  });

  test("nightly maintenance: FTS in the daemon, vector compaction in a child that exits when done", async () => {
    const home = tempHome();
    writeFileSync(join(home, "config.toml"), `[daemon]\nmaintenance_cron = "* * * * * *"\n`);
    addPairs(home, "m", 10, "deploy");
    const d = startDaemon(home);
    await waitRunning(d);
    await waitFor(
      () => /job\.done job=maintenance .*vectors: 20 rows compacted/.test(logText(home)),
      30_000,
      "a maintenance run with vectors",
    );
    const [child] = workerPids(home, "maintenance");
    const exited = new RegExp(`worker\\.exit job=maintenance pid=${child} code=0`);
    await waitFor(() => exited.test(logText(home)), 10_000, "the maintenance child to exit");
    expect(processAlive(child!)).toBe(false);
    expect(mappedFiles(d.proc.pid)).not.toMatch(/lancedb/i);
    d.proc.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  });
});
