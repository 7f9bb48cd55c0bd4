import { afterAll, describe, expect, test } from "bun:test";
import { okBody, startFakeEmbeddings, refuseOrEmbed } from "../fixture/fake-embeddings.ts";
import { removeTempHomes, tempHome } from "../fixture/home.ts";
import { errorHome } from "./error-home.ts";

afterAll(removeTempHomes);

const embedder = (base_url: string) => ({
  embedder: { provider: "openai", base_url, model: "fake-embed", dimensions: 8, max_retries: 0, timeout_ms: 2000 },
});

/** A local port with nothing listening on it. */
function closedPort(): number {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = s.port!;
  s.stop(true);
  return port;
}

describe("an unreachable HTTP embedder never makes recording fail", () => {
  test("the record is stored unembedded, found by keyword, and embedded at a later search", async () => {
    const home = tempHome("memvoy-errors-");
    const down = errorHome(embedder(`http://127.0.0.1:${closedPort()}/v1`), home);
    const r = await down.api.recordError({
      tool: "kubectl",
      error: "The connection to the server localhost:8080 was refused",
      fix: "export KUBECONFIG",
    });
    expect(r.record.embedded).toBe(false);
    expect(r.notes.join(" ")).toMatch(/without a vector for now.*connection refused/);
    expect(down.api.getError(r.record.id).embedded).toBe(false);

    const kw = await down.api.searchErrors({ query: "connection to the server localhost:8080 refused" });
    expect(kw.hits.map((h) => h.record.id)).toEqual([r.record.id]);
    expect(kw.hits[0]!.matchedBy).toEqual(["keyword"]);
    expect(kw.notes.join(" ")).toMatch(/semantic lookup unavailable, keyword results only/);
    down.api.close();

    const fake = startFakeEmbeddings([], { body: okBody(8) });
    try {
      const up = errorHome(embedder(fake.url), home);
      const found = await up.api.searchErrors({ query: "connection to the server localhost:8080 refused" });
      expect(found.notes).toEqual([]);
      expect(found.notEmbedded).toBe(0);
      expect(found.hits[0]!.record.embedded).toBe(true);
      expect(found.hits[0]!.matchedBy).toContain("semantic");
      expect(fake.seen.flatMap((s) => s.json.input as string[])).toContain(
        "The connection to the server localhost:8080 was refused",
      );
      up.api.close();
    } finally {
      fake.stop();
    }
  });

  test("a server that never answers only delays recording by its timeout", async () => {
    const hang = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Promise<Response>(() => {}) });
    try {
      const { api } = errorHome({
        embedder: { ...embedder(`http://127.0.0.1:${hang.port}/v1`).embedder, timeout_ms: 200 },
      });
      const r = await api.recordError({
        tool: "curl",
        error: "curl: (28) Operation timed out after 30000 milliseconds",
        fix: "raise --max-time",
      });
      expect(r.record.embedded).toBe(false);
      expect(r.notes.join(" ")).toContain("timed out after 200 ms");
      expect(api.listErrors().total).toBe(1);
      api.close();
    } finally {
      hang.stop(true);
    }
  });

  test("a server that keeps failing is the same: stored, then embedded by embedPendingErrors", async () => {
    const home = tempHome("memvoy-errors-");
    const failing = startFakeEmbeddings([], { status: 503, body: "{}" });
    try {
      const down = errorHome(embedder(failing.url), home);
      const r = await down.api.recordError({
        tool: "npm",
        error: "npm ERR! code E404 Not Found",
        fix: "check the registry",
      });
      expect(r.record.embedded).toBe(false);
      expect(r.notes.join(" ")).toContain("503");
      await expect(down.api.embedPendingErrors()).rejects.toThrow(/503/);
      down.api.close();
    } finally {
      failing.stop();
    }
    const fake = startFakeEmbeddings([], { body: okBody(8) });
    try {
      const up = errorHome(embedder(fake.url), home);
      expect(await up.api.embedPendingErrors()).toEqual({ embedded: 1, pending: 0 });
      expect(await up.api.embedPendingErrors()).toEqual({ embedded: 0, pending: 0 });
      expect(up.api.listErrors().records[0]!.embedded).toBe(true);
      up.api.close();
    } finally {
      fake.stop();
    }
  });
});

test("after the embedder changed, records with only the old embedder's vector read as not embedded", async () => {
  const home = tempHome("memvoy-errors-");
  const builtin = errorHome({}, home);
  const r = await builtin.api.recordError({
    tool: "npm",
    error: "npm ERR! code ERESOLVE could not resolve the dependency tree",
    fix: "npm install --legacy-peer-deps",
  });
  expect(r.record.embedded).toBe(true);
  builtin.api.close();

  const down = errorHome(embedder(`http://127.0.0.1:${closedPort()}/v1`), home);
  expect(down.api.listErrors().records.map((x) => x.embedded)).toEqual([false]);
  expect(down.api.getError(r.record.id).embedded).toBe(false);
  const found = await down.api.searchErrors({ query: "could not resolve the dependency tree" });
  expect(found.notes.join(" ")).toMatch(/semantic lookup unavailable, keyword results only/);
  expect(found.notEmbedded).toBe(1);
  expect(found.hits.map((h) => [h.record.id, h.record.embedded])).toEqual([[r.record.id, false]]);
  down.api.close();
});

test("a record the embedder refuses holds back no other: they are embedded, it is not sent again, and reindex completes naming it", async () => {
  let down = true;
  const sent: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(r) {
      const req = (await r.json()) as { input: string[] };
      if (down) return new Response("{}", { status: 503 });
      sent.push(...req.input);
      return refuseOrEmbed(req);
    },
  });
  try {
    const { api } = errorHome(embedder(`http://127.0.0.1:${server.port}/v1`));
    const bad = await api.recordError({ tool: "npm", error: "npm ERR! POISON missing script", fix: "add it" });
    const git = await api.recordError({ tool: "git", error: "fatal: not a git repository", fix: "git init" });
    expect([bad.record.embedded, git.record.embedded]).toEqual([false, false]);
    down = false;
    const found = await api.searchErrors({ query: "not a git repository" });
    expect(found.hits[0]!.record.id).toBe(git.record.id);
    expect(found.hits[0]!.matchedBy).toContain("semantic");
    expect(found.notEmbedded).toBe(1);
    expect(found.notes).toEqual(["1 error record(s) are not embedded yet; they are found by keyword only"]);
    sent.length = 0;
    await api.searchErrors({ query: "not a git repository" });
    expect(sent).toEqual(["not a git repository"]); // the query only: the refused record is not sent again

    const r = await api.reindex();
    expect(r.error).toBeUndefined();
    expect(r.errorsEmbedded).toBe(1);
    expect(r.errorsRefused).toEqual([
      { id: bad.record.id, error: expect.stringContaining("(400): input not accepted") },
    ]);
    expect((await api.reindex()).resumed).toBe(false); // the rebuild was complete
    api.close();
  } finally {
    server.stop(true);
  }
});
