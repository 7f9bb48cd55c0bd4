// The embedding queue drain in a real daemon: done by its child process, batched, backing off while the
// embedder fails, then recovered; the daemon process itself never maps LanceDB.
import { afterAll, setDefaultTimeout, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { okBody, startFakeEmbeddings, refuseOrEmbed } from "../fixture/fake-embeddings.ts";
import {
  cleanup,
  cli,
  daemonState,
  logText,
  mappedFiles,
  startDaemon,
  tempHome,
  waitFor,
  waitRunning,
  workerPids,
} from "../fixture/daemon-process.ts";

// Real processes (bun start-up, LanceDB) and back-off waits: give each test room.
setDefaultTimeout(60_000);

afterAll(cleanup);

test("embedding drain: messages added by another process are embedded; a failing embedder is backed off, then recovered", async () => {
  const emb = startFakeEmbeddings([{ status: 500, body: '{"error":{"message":"fake embedder down"}}' }], {
    body: okBody(8),
  });
  try {
    const home = tempHome();
    // The fake embedder's vectors carry no meaning, so no relevance cutoff ([search] min_score = 0).
    writeFileSync(
      join(home, "config.toml"),
      `[embedder]\nprovider = "openai"\nbase_url = "${emb.url}/v1"\nmodel = "fake"\ndimensions = 8\nmax_retries = 0\n[daemon]\nembed_interval_ms = 100\n[search]\nmin_score = 0\n`,
    );
    const env = { OPENAI_API_KEY: "test-embed-key-123456" };
    const d = startDaemon(home, env);
    await waitRunning(d);
    for (const [role, content] of [
      ["user", "where do the deploy keys live"],
      ["assistant", "in the vault under ops/deploy"],
    ]) {
      expect((await cli(home, ["add", "s1", "--role", role!, "--content", content!], env)).code).toBe(0);
    }
    const failedAt = await waitFor(
      () => (logText(home).includes("job.fail job=embeddings") ? Date.now() : 0),
      15_000,
      "the embedder failure",
    );
    const s = await waitFor(
      () => {
        const st = daemonState(home);
        return st?.jobs?.embeddings?.lastResult === "ok" && /0 queued$/.test(st.jobs.embeddings.lastDetail ?? "")
          ? st
          : undefined;
      },
      30_000,
      "the queue to drain after the back-off",
    );
    expect(Date.now() - failedAt).toBeGreaterThan(1000);
    expect(s.jobs.embeddings.failures).toBe(1);
    // One failed request and the ones that embedded: no polling of the embedder meanwhile.
    expect(emb.seen.length).toBeLessThanOrEqual(3);
    const log = logText(home);
    expect(log).toContain("embed.recovered");
    expect(log).not.toContain("test-embed-key-123456");
    expect(log).not.toContain("deploy keys");
    const found = await cli(home, ["search", "vault deploy", "--match", "semantic", "--json"], env);
    expect(found.code, found.stderr).toBe(0);
    expect(JSON.parse(found.stdout).hits.length).toBeGreaterThan(0);
    // The child did the work; the daemon never loaded LanceDB.
    expect(workerPids(home, "embeddings").length).toBeGreaterThanOrEqual(1);
    expect(workerPids(home).every((pid) => pid !== d.proc.pid)).toBe(true);
    expect(mappedFiles(d.proc.pid!)).not.toMatch(/lancedb/i);
    d.proc.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  } finally {
    emb.stop();
  }
});

test("while the embedder is down, daemon status keeps the failure until the failed messages are tried again", async () => {
  const down = { status: 500, body: '{"error":{"message":"fake embedder down"}}' };
  const emb = startFakeEmbeddings([down, down, down, down], { body: okBody(8) });
  try {
    const home = tempHome();
    writeFileSync(
      join(home, "config.toml"),
      `[embedder]\nprovider = "openai"\nbase_url = "${emb.url}/v1"\nmodel = "fake"\ndimensions = 8\nmax_retries = 0\n[daemon]\nembed_interval_ms = 100\n`,
    );
    const env = { OPENAI_API_KEY: "test-embed-key-123456" };
    const d = startDaemon(home, env);
    await waitRunning(d);
    expect(
      (await cli(home, ["add", "s1", "--role", "user", "--content", "where do the deploy keys live"], env)).code,
    ).toBe(0);
    await waitFor(() => daemonState(home)?.jobs?.embeddings?.failures === 1, 15_000, "the first failure");
    // The queue defers the failed message 5 s: the daemon tries it again then, and not before.
    const seen = new Set<string>();
    await waitFor(
      () => {
        const j = daemonState(home)?.jobs?.embeddings;
        if (j) seen.add(`${j.lastResult}: ${j.lastDetail}`);
        return emb.seen.length >= 2;
      },
      20_000,
      "the second try",
    );
    expect([...seen][0]).toBe("error: 0 embedded, 1 failed, 1 queued; next try in 5 s");
    expect([...seen].filter((s) => !s.startsWith("error: "))).toEqual([]);
    expect(logText(home)).not.toContain("job.done job=embeddings");
    d.proc.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  } finally {
    emb.stop();
  }
});

test("daemon status shows the embeddings job as running while a drain lasts (a slow embedder), and not once it ended", async () => {
  const release = Promise.withResolvers<void>();
  let requests = 0;
  const slow = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      requests++;
      const json = (await request.json()) as { input: string[] };
      await release.promise;
      return Response.json(okBody(8)(json));
    },
  });
  try {
    const home = tempHome();
    writeFileSync(
      join(home, "config.toml"),
      `[embedder]\nprovider = "openai"\nbase_url = "http://127.0.0.1:${slow.port}/v1"\nmodel = "fake"\ndimensions = 8\nmax_retries = 0\n[daemon]\nembed_interval_ms = 100\n`,
    );
    const env = { OPENAI_API_KEY: "test-embed-key-123456" };
    const d = startDaemon(home, env);
    await waitRunning(d);
    expect((await cli(home, ["add", "s1", "--role", "user", "--content", "where do the keys live"], env)).code).toBe(0);
    await waitFor(() => requests > 0, 60_000, "the embedder asked");
    const job = async () => {
      const r = await cli(home, ["daemon", "status", "--json"], env);
      return JSON.parse(r.stdout).jobs.find((j: { name: string }) => j.name === "embeddings");
    };
    const running = await waitFor(
      async () => {
        const j = await job();
        return j.running === true ? j : undefined;
      },
      15_000,
      "embeddings shown as running",
    );
    expect(running.progress).toBe("embedding 1 queued message(s)");
    const text = await cli(home, ["daemon", "status"], env);
    expect(text.stdout).toMatch(/^embeddings .*running: embedding 1 queued message\(s\)$/m);
    release.resolve();
    await waitFor(
      async () => {
        const j = await job();
        return j.running === false && j.lastResult === "ok" && /^1 embedded/.test(j.lastDetail ?? "");
      },
      15_000,
      "embeddings shown as done",
    );
    d.proc.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  } finally {
    release.resolve();
    await slow.stop(true);
  }
});

test("a message the embedder refuses: the others are embedded, and daemon status names the refusal", async () => {
  const emb = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(r) {
      const req = (await r.json()) as { input: string[] };
      return refuseOrEmbed(req);
    },
  });
  try {
    const home = tempHome();
    writeFileSync(
      join(home, "config.toml"),
      `[embedder]\nprovider = "openai"\nbase_url = "http://127.0.0.1:${emb.port}/v1"\nmodel = "fake"\ndimensions = 8\nmax_retries = 0\n[daemon]\nembed_interval_ms = 100\n`,
    );
    const env = { OPENAI_API_KEY: "test-embed-key-123456" };
    const d = startDaemon(home, env);
    await waitRunning(d);
    for (const [role, content] of [
      ["user", "where do the deploy keys live"],
      ["assistant", "a POISON reply"],
    ]) {
      expect((await cli(home, ["add", "s1", "--role", role!, "--content", content!], env)).code).toBe(0);
    }
    const j = await waitFor(() => daemonState(home)?.jobs?.embeddings?.lastError ?? undefined, 15_000, "the refusal");
    expect(j.message).toBe(
      `the embedder refused 1 message (openai embeddings (http://127.0.0.1:${emb.port}/v1/embeddings) refused the request (400): input not accepted); it stays without a vector`,
    );
    const found = await cli(home, ["search", "deploy keys", "--match", "semantic", "--json"], env);
    expect(JSON.parse(found.stdout)).toMatchObject({ notIndexed: 1 });
    d.proc.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  } finally {
    emb.stop(true);
  }
});
