// The drain and search with an HTTP embedder (fake /v1/embeddings): 429 then success, garbage, unreachable.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tryLockFile } from "../../src/shared/file-lock.ts";
import { cli, openTemp, removeTempHomes, waitFor } from "../fixture/home.ts";
import { okBody, startFakeEmbeddings } from "../fixture/fake-embeddings.ts";
import { config, queueSize, recentIds, sqlite, vectorIds } from "../fixture/semantic-home.ts";

afterAll(removeTempHomes);
const stops: (() => void)[] = [];
afterEach(() => stops.splice(0).forEach((s) => s()));

const KEY = "sk-fake-key-for-tests";
function httpHome(url: string, extra: Record<string, unknown> = {}) {
  const cfg = config({
    embedder: {
      provider: "openai",
      base_url: `${url}/v1`,
      model: "fake-embed",
      dimensions: 8,
      max_retries: 2,
      ...extra,
    },
  });
  return openTemp({ drain: "off", config: cfg, env: { OPENAI_API_KEY: KEY } });
}
const ID = "openai:fake-embed:8";

describe("drain with an HTTP embedder", () => {
  test("a 429 (Retry-After) is retried and the messages are embedded", async () => {
    const f = startFakeEmbeddings([{ status: 429, headers: { "retry-after": "0" }, body: "{}" }], { body: okBody(8) });
    stops.push(f.stop);
    const { home, api } = httpHome(f.url);
    api.add("s", [
      { role: "user", content: "alpha" },
      { role: "assistant", content: "beta" },
    ]);
    const r = await api.drainEmbeddings();
    expect(r).toMatchObject({ embedded: 2, failed: 0, remaining: 0 });
    expect(f.seen).toHaveLength(2);
    expect(f.seen[1]!.json).toMatchObject({ model: "fake-embed", dimensions: 8, input: ["alpha", "beta"] });
    expect(await vectorIds(home, ID)).toEqual(recentIds(home));
    api.close();
  });

  test("a Retry-After of an hour fails the drain at once and keeps the messages queued for a later one", async () => {
    const f = startFakeEmbeddings([{ status: 429, headers: { "retry-after": "3600" }, body: "{}" }], {
      body: okBody(8),
    });
    stops.push(f.stop);
    const { home, api } = httpHome(f.url);
    api.add("s", [
      { role: "user", content: "alpha" },
      { role: "assistant", content: "beta" },
    ]);
    const started = performance.now();
    const r = await api.drainEmbeddings();
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(r).toMatchObject({ embedded: 0, failed: 2, remaining: 2 });
    expect(r.error).toContain("the server asked to wait 3,600 s before a retry");
    expect(f.seen).toHaveLength(1);
    expect(queueSize(home)).toBe(2);
    api.close();
  });

  test("a garbage response keeps the messages queued with a back-off and says so in search", async () => {
    const f = startFakeEmbeddings([], {
      body: JSON.stringify({
        data: [
          { index: 0, embedding: [1, 2, 3] },
          { index: 1, embedding: [1, 2, 3] },
        ],
      }),
    });
    stops.push(f.stop);
    const { home, api } = httpHome(f.url);
    api.add("s", [
      { role: "user", content: "gamma" },
      { role: "assistant", content: "delta" },
    ]);
    const r = await api.drainEmbeddings();
    expect(r.embedded).toBe(0);
    expect(r.failed).toBe(2);
    expect(r.remaining).toBe(2);
    expect(r.error).toContain("malformed response: a 3-dimensional vector where 8 was expected");
    const db = sqlite(home);
    const rows = db.query("SELECT attempts, last_error, next_try_at FROM embed_queue").all() as {
      attempts: bigint;
      last_error: string;
      next_try_at: bigint;
    }[];
    db.close();
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.attempts).toBe(1n);
      expect(row.last_error).toContain("malformed");
      expect(row.next_try_at).toBeGreaterThan(BigInt(Date.now()) * 1_000_000n);
    }
    // Backed off: a second drain right away sends nothing.
    const again = await api.drainEmbeddings();
    expect(again.embedded).toBe(0);
    expect(f.seen).toHaveLength(1);
    const s = await api.search({ query: "gamma", match: "semantic" });
    expect(s.notIndexed).toBe(2);
    // ...with the next step: no daemon runs for this home.
    expect(s.notes[0]).toBe(
      "2 messages are not indexed yet: run memvoy reindex --pending, or start the daemon (memvoy --daemon)",
    );
    // With a daemon holding the home's lock, it is the one embedding them: the note says the last try failed.
    const release = tryLockFile(join(home, "daemon.lock"))!;
    try {
      const d = await api.search({ query: "gamma", match: "semantic" });
      expect(d.notes[0]).toMatch(
        /^2 messages are not indexed yet: the daemon embeds them, but the last try failed \(openai embeddings \(\S+\) returned a malformed response: a 3-dimensional vector where 8 was expected \(set \[embedder\] dimensions to match the model\)\); see memvoy daemon status$/,
      );
    } finally {
      release();
    }
    // ...while hybrid still finds them by keyword.
    const h = await api.search({ query: "gamma", match: "hybrid" });
    expect(h.hits[0]!.message.content).toBe("gamma");
    expect(queueSize(home)).toBe(2);
    api.close();
  });

  test("a server that embeds only the first text of a batch: every message gets its own vector", async () => {
    const f = startFakeEmbeddings([], { body: (req) => okBody(8)({ input: req.input.slice(0, 1) }) });
    stops.push(f.stop);
    const { home, api } = httpHome(f.url);
    api.add("s", [
      { role: "user", content: "the deploy failed on friday" },
      { role: "assistant", content: "roll back the migration" },
      { role: "user", content: "done, it works again" },
    ]);
    const r = await api.drainEmbeddings();
    expect(r).toMatchObject({ embedded: 3, failed: 0, remaining: 0 });
    expect(await vectorIds(home, ID)).toEqual(recentIds(home));
    const s = await api.search({ query: "roll back the migration", match: "semantic" });
    expect(s.hits[0]!.message.content).toBe("roll back the migration");
    api.close();
  });

  test("with a daemon running for the home, messages not indexed yet are the daemon's to embed", async () => {
    const f = startFakeEmbeddings([], { body: okBody(8) });
    stops.push(f.stop);
    const { home, api } = httpHome(f.url);
    api.add("s", { role: "user", content: "zeta" });
    const release = tryLockFile(join(home, "daemon.lock"))!;
    try {
      const s = await api.search({ query: "zeta", match: "semantic" });
      expect(s.notes).toEqual(["1 message is not indexed yet: the daemon is embedding them"]);
    } finally {
      release();
    }
    api.close();
  });

  test("one message the server refuses does not hold back the rest of its batch; long texts are cut", async () => {
    const reply = (req: { input: string[] }) =>
      req.input.some((t) => t.includes("POISON"))
        ? { status: 400, body: JSON.stringify({ error: { message: "input too strange" } }) }
        : { body: JSON.stringify(okBody(8)(req)) };
    const seenLengths: number[] = [];
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(r) {
        const req = (await r.json()) as { input: string[] };
        seenLengths.push(...req.input.map((t) => t.length));
        const { status, body } = reply(req);
        return new Response(body, { status: status ?? 200, headers: { "content-type": "application/json" } });
      },
    });
    stops.push(() => server.stop(true));
    const { home, api } = httpHome(`http://127.0.0.1:${server.port}`);
    api.add("s", [
      { role: "user", content: "fine one" },
      { role: "assistant", content: "a POISON message" },
      { role: "user", content: "long ".repeat(4_000) },
    ]);
    const r = await api.drainEmbeddings();
    expect(r).toMatchObject({ embedded: 2, failed: 1, remaining: 1 });
    expect(r.error).toBeUndefined(); // the server works: the message is named as refused
    expect(r.refused).toEqual([
      {
        id: expect.any(String),
        session: "s",
        error: expect.stringContaining("refused the request (400): input too strange"),
      },
    ]);
    expect(Math.max(...seenLengths)).toBe(8_000);
    expect((await vectorIds(home, ID)).length).toBe(2);
    expect(queueSize(home)).toBe(1);
    api.close();
  });

  test("a vector of zeros for one message holds back only that message, which waits with the error", async () => {
    const f = startFakeEmbeddings([], {
      body: (req) => {
        const ok = okBody(8)(req);
        ok.data.forEach((d, i) => {
          if (req.input[i]!.includes("🫥")) d.embedding = new Array(8).fill(0);
        });
        return ok;
      },
    });
    stops.push(f.stop);
    const { home, api } = httpHome(f.url);
    api.add("s", [
      { role: "user", content: "fine one" },
      { role: "assistant", content: "🫥" },
      { role: "user", content: "fine two" },
    ]);
    const r = await api.drainEmbeddings();
    expect(r).toMatchObject({ embedded: 2, failed: 1, remaining: 1 });
    expect(r.refused![0]!.error).toContain("returned a malformed response: item 0 is a vector of zeros");
    expect((await vectorIds(home, ID)).length).toBe(2);
    api.close();
  });

  test("rm-message does not wait out a rate-limited server's Retry-After: the drain lets it go first", async () => {
    const f = startFakeEmbeddings([], { body: okBody(8) });
    stops.push(f.stop);
    const { home, api } = httpHome(f.url);
    api.add("s", { role: "user", content: "the deploy keys are in the vault" });
    const secret = api.add("s", { role: "user", content: "my password is hunter2" }).ids[0]!;
    // The longest wait memvoy takes between attempts (a longer one fails the batch at once).
    f.fail({ status: 429, headers: { "retry-after": "20" }, body: '{"error":{"message":"slow down"}}' });
    const drain = api.drainEmbeddings();
    await waitFor(() => f.seen.length > 0, 20_000, "the drain's first request");
    const started = performance.now();
    const rm = await cli(["rm-message", secret], { home });
    expect(rm.code, rm.stderr).toBe(0);
    expect(performance.now() - started).toBeLessThan(19_000); // the server asked for 20 s
    f.fail(undefined);
    // The drain took the lock back and embedded what is left.
    expect(await drain).toMatchObject({ embedded: 1, failed: 0, remaining: 0 });
    expect(await vectorIds(home, ID)).toEqual(recentIds(home));
    api.close();
  }, 60_000);

  test("reindex --pending with no key for a server that wants one: exit 2 and which variable to set", async () => {
    const f = startFakeEmbeddings([]);
    stops.push(f.stop);
    const { home, api } = httpHome(f.url);
    api.add("s", { role: "user", content: "where are the deploy keys" });
    api.close();
    writeFileSync(
      join(home, "config.toml"),
      `[embedder]\nprovider = "openai"\nbase_url = "${f.url}/v1"\nmodel = "fake-embed"\ndimensions = 8\nmax_retries = 0\n`,
    );
    f.fail({ status: 401, body: '{"error":{"message":"You didn\'t provide an API key."}}' });
    const noKey = await cli(["reindex", "--pending"], { home });
    expect(noKey.stderr).toContain("wants an API key (401) and none is set: set OPENAI_API_KEY in the environment");
    expect(noKey.code).toBe(2);
    // A server failing is a runtime failure (exit 1), as before.
    f.fail({ status: 503, body: '{"error":"down"}' });
    const down = await cli(["reindex", "--pending"], { home });
    expect(down.stderr).toContain("kept failing (503)");
    expect(down.code).toBe(1);
  });

  test("an unreachable embedder: semantic fails with a clear error, hybrid falls back to keyword", async () => {
    const f = startFakeEmbeddings([]);
    f.stop();
    const { api } = httpHome(f.url, { dimensions: 0 });
    api.add("s", { role: "user", content: "where are the deploy keys" });
    const err = await api.search({ query: "deploy keys", match: "semantic" }).catch((e) => e);
    expect(String(err.message)).toMatch(/^cannot reach openai embeddings/);
    const h = await api.search({ query: "deploy keys", match: "hybrid" });
    expect(h.hits.map((x) => x.message.content)).toEqual(["where are the deploy keys"]);
    expect(h.notes[0]).toMatch(
      /^semantic side unavailable \(cannot reach openai embeddings .*\): keyword results only$/,
    );
    api.close();
  });

  test("an embedder failing on the query once vectors exist: hybrid gives the keyword sides and says why", async () => {
    const f = startFakeEmbeddings([]);
    stops.push(f.stop);
    const { api } = httpHome(f.url);
    api.add("s", { role: "user", content: "where are the deploy keys" });
    await api.drainEmbeddings();
    for (const failure of [
      { status: 500, body: '{"error":"down"}' },
      { status: 400, body: '{"error":{"message":"bad input"}}' },
    ]) {
      f.fail(failure);
      const h = await api.search({ query: "deploy keys", match: "hybrid" });
      expect(h.hits.map((x) => x.message.content)).toEqual(["where are the deploy keys"]);
      expect(h.notes.some((n) => /^semantic side unavailable \(.*\): keyword results only$/.test(n))).toBe(true);
      const err = await api.search({ query: "deploy keys", match: "semantic" }).catch((e) => e);
      expect(err.name).toBe(failure.status === 400 ? "EmbedderRejectedError" : "EmbedderUnavailableError");
    }
    api.close();
  });

  test("a missing key is reported as a config problem", async () => {
    const cfg = config({ embedder: { provider: "openai" } });
    const { api } = openTemp({ drain: "off", config: cfg, env: {} });
    api.add("s", { role: "user", content: "hello" });
    const err = await api.search({ query: "hello", match: "semantic" }).catch((e) => e);
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe('embedder "openai" needs an API key: set OPENAI_API_KEY in the environment');
    api.close();
  });
});
