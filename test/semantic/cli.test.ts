// The semantic tier through the CLI: add never loads LanceDB and its background drain embeds; semantic
// search output; reindex with Ctrl-C and resume.
import { afterAll, afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli, openTemp, removeTempHomes, repoRoot, tempHome, waitFor } from "../fixture/home.ts";
import { okBody, startFakeEmbeddings } from "../fixture/fake-embeddings.ts";
import { openMemory } from "../../src/app/open-memory.ts";
import { ANN_MIN_ROWS } from "../../src/storage/lance/vector-table.ts";
import { progressBar } from "../../src/cli/progress.ts";
import { tryLockFile } from "../../src/shared/file-lock.ts";
import { queueSize, recentIds, vectorIds } from "../fixture/semantic-home.ts";

afterAll(removeTempHomes);
const stops: (() => void)[] = [];
afterEach(() => stops.splice(0).forEach((s) => s()));

async function probed(home: string, args: string[]): Promise<{ code: number; stderr: string }> {
  const proc = Bun.spawn(
    [
      "bun",
      "--preload",
      join(import.meta.dir, "../fixture/lance-probe.ts"),
      join(repoRoot, "src/index.ts"),
      "--home",
      home,
      ...args,
    ],
    {
      cwd: tmpdir(),
      env: { PATH: process.env.PATH!, HOME: tmpdir(), TZ: "UTC" },
      stdout: "ignore",
      stderr: "pipe",
    },
  );
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  return { code, stderr };
}

test("add and keyword search never load LanceDB; the detached drain embeds what add wrote", async () => {
  const home = tempHome();
  const add = await probed(home, [
    "add",
    "s",
    "--role",
    "user",
    "--content",
    "the staging database password rotated today",
  ]);
  expect(add.code).toBe(0);
  expect(add.stderr).toContain("lancedb-loaded=false");
  const kw = await probed(home, ["search", "password"]);
  expect(kw.stderr).toContain("lancedb-loaded=false");
  await waitFor(
    async () => queueSize(home) === 0 && (await vectorIds(home)).length === 1,
    30_000,
    "the background drain",
  );
  expect(await vectorIds(home)).toEqual(recentIds(home));
  const sem = await probed(home, ["search", "credentials changed", "--match", "semantic"]);
  expect(sem.stderr).toContain("lancedb-loaded=true");
});

test("search --match semantic --json: source, score, rank and the expanded context", async () => {
  const home = tempHome();
  const jsonl = [
    "good morning",
    "can you check the nightly backup job",
    "it failed on the s3 upload step",
    "thanks, retrying now",
  ]
    .map((content, i) => JSON.stringify({ role: i % 2 ? "assistant" : "user", content }))
    .join("\n");
  expect((await cli(["add", "s"], { home, stdin: jsonl })).code).toBe(0);
  const r = await cli(
    ["search", "the s3 upload step failed", "--match", "semantic", "--session", "s", "--limit", "1", "--json"],
    { home },
  );
  expect(r.code, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout);
  expect(out.notIndexed).toBe(0);
  expect(out.reindexNeeded).toBe(false);
  expect(out.hits).toHaveLength(1);
  const hit = out.hits[0];
  expect(hit).toMatchObject({ content: "it failed on the s3 upload step", source: "semantic", rank: 1, session: "s" });
  expect(hit.score).toBeGreaterThan(0.5);
  expect(hit.sendAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/);
  expect(hit.context.map((c: { content: string; hit: boolean }) => [c.content, c.hit])).toEqual([
    ["good morning", false],
    ["can you check the nightly backup job", false],
    ["it failed on the s3 upload step", true],
    ["thanks, retrying now", false],
  ]);
});

test("reindex: Ctrl-C stops it (exit 130), running it again resumes and completes", async () => {
  let release: () => void = () => {};
  let requests = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const body = (await req.json()) as { input: string[] };
      // The first request checks that the server answers; the next four fill the first batch of 8.
      if (++requests === 6) await new Promise<void>((r) => (release = r));
      return Response.json(okBody(8)(body));
    },
  });
  stops.push(() => {
    release();
    server.stop(true);
  });
  const home = tempHome();
  writeFileSync(
    join(home, "config.toml"),
    `[embedder]\nprovider = "openai"\nbase_url = "http://127.0.0.1:${server.port}"\nmodel = "m"\ndimensions = 8\nbatch_size = 2\n`,
  );
  const env = { OPENAI_API_KEY: "sk-fake" };
  const jsonl = Array.from({ length: 24 }, (_, i) =>
    JSON.stringify({ role: i % 2 ? "assistant" : "user", content: `line ${i}` }),
  ).join("\n");
  expect((await cli(["add", "s"], { home, stdin: jsonl, env })).code).toBe(0);

  const proc = Bun.spawn(["bun", join(repoRoot, "src/index.ts"), "--home", home, "reindex", "--json"], {
    cwd: tmpdir(),
    env: { PATH: process.env.PATH!, HOME: tmpdir(), TZ: "UTC", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  await waitFor(() => requests >= 6, 30_000, "the first request of the second batch");
  proc.kill("SIGINT");
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  expect(code).toBe(130);
  expect(stderr).toContain("interrupted; run memvoy reindex again to resume");
  // --json still prints its one document.
  expect(JSON.parse(stdout)).toEqual({ interrupted: true, waited: false });
  release();
  expect((await vectorIds(home, "openai:m:8")).length).toBe(8);

  const again = await cli(["reindex", "--json"], { home, env });
  expect(again.code, again.stderr).toBe(0);
  expect(JSON.parse(again.stdout)).toMatchObject({
    embedder: "openai:m:8",
    embedded: 16,
    remaining: 0,
    resumed: true,
    error: null,
  });
  expect(await vectorIds(home, "openai:m:8")).toEqual(recentIds(home));
});

test("the progress bar redraws one line", () => {
  let out = "";
  const bar = progressBar(
    {
      write: (s: string) => {
        out += s;
        return true;
      },
    } as unknown as NodeJS.WriteStream,
    10,
  );
  bar.update(0, 4);
  bar.update(4, 4);
  bar.done();
  expect(out).toContain("\r[..........] 0/4 messages");
  expect(out).toContain("\r[##########] 4/4 messages");
  expect(out.endsWith("\n")).toBe(true);
});

test("memvoy reindex while another runs says it waits; Ctrl-C then says nothing was changed", async () => {
  const home = tempHome();
  expect((await cli(["add", "s", "--role", "user", "--content", "a note"], { home })).code).toBe(0);
  const release = tryLockFile(join(home, ".store", "reindex.lock"))!; // a reindex in another process
  try {
    const proc = Bun.spawn(["bun", join(repoRoot, "src/index.ts"), "--home", home, "reindex"], {
      cwd: tmpdir(),
      env: { PATH: process.env.PATH!, HOME: tmpdir(), TZ: "UTC" },
      stdout: "pipe",
      stderr: "pipe",
    });
    let stderr = "";
    const reading = (async () => {
      for await (const chunk of proc.stderr) stderr += new TextDecoder().decode(chunk);
    })();
    await waitFor(() => stderr.includes("waiting for it to finish"), 30_000, "the waiting line");
    expect(stderr).toBe("memvoy: another memvoy reindex is running on this home; waiting for it to finish\n");
    proc.kill("SIGINT");
    expect(await proc.exited).toBe(130);
    await reading;
    expect(stderr).toContain("memvoy: interrupted while waiting for the other reindex; nothing was changed\n");
    expect(stderr).not.toContain("run memvoy reindex again to resume");
  } finally {
    release();
  }
});

test("a semantic search that embeds only part of a large queue leaves a background drain for the rest", async () => {
  const home = tempHome();
  // Written with no drain, as when the drainer a writer started found a search holding the lock and left.
  const api = openMemory({ home, env: {}, drain: "off" });
  api.add(
    "bulk",
    Array.from({ length: 6_000 }, (_, i) => ({ role: "user" as const, content: `queued note ${i} about kettles` })),
  );
  api.close();
  const r = await cli(["search", "kettles", "--match", "semantic", "--json"], { home });
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout).notIndexed).toBeGreaterThan(0);
  await waitFor(async () => queueSize(home) === 0, 30_000, "the drain the search left");
  expect(await vectorIds(home)).toEqual(recentIds(home));
}, 90_000);

test("reindex says when it builds the vector index, which follows a full progress bar and takes minutes on a large home", async () => {
  const fake = startFakeEmbeddings([], { body: okBody(8) });
  stops.push(fake.stop);
  const home = tempHome();
  writeFileSync(
    join(home, "config.toml"),
    `[embedder]\nprovider = "openai"\nbase_url = "${fake.url}"\nmodel = "m"\ndimensions = 8\nbatch_size = 256\n`,
  );
  const env = { OPENAI_API_KEY: "sk-fake" };
  // As many recent messages as the index is built for (ANN_MIN_ROWS), stored without a drain.
  const { api } = openTemp({ home, env, drain: "off" });
  api.add(
    "s",
    Array.from(
      { length: ANN_MIN_ROWS },
      (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `m ${i}` }) as const,
    ),
  );
  api.close();
  const r = await cli(["reindex"], { home, env });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toContain(`memvoy: building the vector index over ${ANN_MIN_ROWS.toLocaleString("en-US")} vectors;`);
  expect(r.stdout).toBe(`openai:m:8: embedded ${ANN_MIN_ROWS} message(s)\n`);
}, 120_000);
