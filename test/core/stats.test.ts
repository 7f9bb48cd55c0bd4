import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, openTemp, removeTempHomes } from "../fixture/home.ts";
import { okBody, startFakeEmbeddings } from "../fixture/fake-embeddings.ts";

afterAll(removeTempHomes);

describe("memvoy stats", () => {
  test("sessions, messages and bytes per tier, vectors and pending, errors, disk per store, tokens", async () => {
    const { home, api } = openTemp();
    api.add("a", [
      { role: "user", content: "héllo" },
      { role: "assistant", content: "world" },
    ]);
    api.add("b", { role: "user", content: "third message" });
    await api.flushEmbeddings();
    await api.recordError({ tool: "git", error: "fatal: not a git repository", fix: "run git init" });
    api.close();
    const db = new Database(join(home, ".store", "history.db"));
    db.run(
      "INSERT INTO llm_usage (at, session_id, purpose, model, input_tokens, output_tokens) VALUES (1, 'a', 'summary', 'm1', 1200, 300), (2, 'b', 'noise', 'm2', 50, 5)",
    );
    db.close();

    const r = await cli(["stats", "--json"], { home });
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.sessions).toBe(2);
    const historyBytes = ["a", "b"].reduce((n, id) => n + statSync(join(home, "sessions", id, "history.json")).size, 0);
    expect(s.tiers.window).toEqual({ messages: 3, bytes: historyBytes });
    expect(s.tiers.semantic).toEqual({ vectors: 3, pending: 0, stale: 0, reindexNeeded: false });
    expect(s.tiers.archive).toEqual({
      messages: 3,
      bytes: Buffer.byteLength("héllo" + "world" + "third message"),
      archivedOnly: 0,
    });
    expect(s.errors).toEqual({ records: 1 });
    expect(s.disk.sessions).toBeGreaterThanOrEqual(historyBytes);
    expect(s.disk.archive).toBeGreaterThanOrEqual(statSync(join(home, ".store", "history.db")).size);
    expect(s.disk.vectors).toBeGreaterThan(0);
    expect(s.disk.total).toBe(s.disk.sessions + s.disk.archive + s.disk.vectors);
    expect(s.tokens).toMatchObject({ calls: 2, input: 1250, output: 305 });
    expect(s.tokens.byPurpose).toContainEqual({
      purpose: "summary",
      model: "m1",
      calls: 1,
      inputTokens: 1200,
      outputTokens: 300,
    });

    const text = await cli(["stats"], { home });
    expect(text.code).toBe(0);
    for (const label of ["sessions", "window", "semantic", "archive", "errors", "disk", "tokens"])
      expect(text.stdout).toMatch(new RegExp(`^${label} `, "m"));
    expect(text.stdout).toContain("1,250 in, 305 out, 2 calls");
  });

  test("disk is the space each store takes, as du counts it, not the sum of its files' sizes", async () => {
    const { home, api } = openTemp();
    // Many small sessions: each history.json takes a whole block, and each session folder one of its own.
    for (let i = 0; i < 40; i++) api.add(`s${i}`, { role: "user", content: `note ${i}` });
    await api.flushEmbeddings();
    // A semantic search keeps the vector tables' statistics in .store/relevance: part of the vector store.
    await api.search({ query: "note 7", match: "semantic" });
    api.close();
    const du = (path: string) => Number(Bun.spawnSync(["du", "-s", "-B1", path]).stdout.toString().split("\t")[0]);
    const relevance = join(home, ".store", "relevance");
    expect(existsSync(relevance)).toBe(true);
    expect(du(relevance)).toBeGreaterThan(0);
    const s = JSON.parse((await cli(["stats", "--json"], { home })).stdout);
    expect(s.disk.sessions).toBe(du(join(home, "sessions")));
    expect(s.disk.vectors).toBe(du(join(home, ".store", "lance")) + du(relevance));
    expect(s.disk.total).toBe(s.disk.sessions + s.disk.archive + s.disk.vectors);
    expect(s.disk.sessions).toBeGreaterThan(s.tiers.window.bytes);
  });

  test("after [embedder] changed, the old embedder's vectors are not counted as usable", async () => {
    const { home, api } = openTemp();
    api.add("a", [
      { role: "user", content: "deploy the cluster" },
      { role: "assistant", content: "deployed" },
    ]);
    await api.flushEmbeddings();
    api.close();
    writeFileSync(
      join(home, "config.toml"),
      '[embedder]\nprovider = "openai"\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "other"\ndimensions = 8\n',
    );
    const s = JSON.parse((await cli(["stats", "--json"], { home })).stdout);
    expect(s.tiers.semantic).toEqual({ vectors: 0, pending: 0, stale: 2, reindexNeeded: true });
    const text = await cli(["stats"], { home });
    expect(text.stdout).toMatch(
      /^semantic +0 vectors, 0 pending .*2 recent messages have no vector from the configured embedder: run memvoy reindex$/m,
    );
  });

  test("a model whose dimension is learnt from the server (dimensions = 0): its vectors count, another model's do not", async () => {
    const f = startFakeEmbeddings([], { body: okBody(12) });
    try {
      const { home, api } = openTemp();
      api.add("a", [
        { role: "user", content: "deploy the cluster" },
        { role: "assistant", content: "deployed" },
      ]);
      api.close();
      const useModel = (model: string) =>
        writeFileSync(
          join(home, "config.toml"),
          `[embedder]\nprovider = "openai"\nbase_url = "${f.url}/v1"\nmodel = "${model}"\ndimensions = 0\n`,
        );
      useModel("nomic-embed-text:latest");
      expect((await cli(["reindex"], { home })).code).toBe(0);
      const semantic = async () => JSON.parse((await cli(["stats", "--json"], { home })).stdout).tiers.semantic;
      expect(await semantic()).toEqual({ vectors: 2, pending: 0, stale: 0, reindexNeeded: false });
      expect((await cli(["doctor"], { home })).code).toBe(0);

      useModel("mxbai-embed-large");
      expect(await semantic()).toEqual({ vectors: 0, pending: 0, stale: 2, reindexNeeded: true });
      const doctor = await cli(["doctor"], { home });
      expect(doctor.code).toBe(1);
      expect(doctor.stdout).toContain("another embedder than the configured one (openai:mxbai-embed-large)");
    } finally {
      f.stop();
    }
  });

  test("pending counts messages written without a drain", async () => {
    const { home } = openTemp();
    expect(
      (await cli(["add", "s", "--role", "user", "--content", "x"], { home, env: { MEMVOY_NO_DRAIN: "1" } })).code,
    ).toBe(0);
    const s = JSON.parse((await cli(["stats", "--json"], { home })).stdout);
    expect(s.tiers.semantic.vectors + s.tiers.semantic.pending).toBe(1);
  });
});

describe("CLI habits", () => {
  test("-v is the version; help COMMAND is the command's --help", async () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dir, "../../package.json"), "utf8"));
    expect((await cli(["-v"])).stdout).toBe(`memvoy ${pkg.version}\n`);
    for (const c of ["search", "history", "stats", "add"]) {
      const a = await cli(["help", c]);
      const b = await cli([c, "--help"]);
      expect(a.code).toBe(0);
      expect(a.stdout).toBe(b.stdout);
    }
    expect((await cli(["help"])).stdout).toBe((await cli(["--help"])).stdout);
    for (const args of [
      ["help", "help"],
      ["help", "--help"],
    ]) {
      const r = await cli(args);
      expect({ args, code: r.code }).toEqual({ args, code: 0 });
      expect(r.stdout).toBe((await cli(["--help"])).stdout);
    }
    const bad = await cli(["help", "nope"]);
    expect(bad.code).toBe(2);
  });

  test("help with --json prints one JSON document holding the help text", async () => {
    const main = (await cli(["--help"])).stdout;
    const search = (await cli(["search", "--help"])).stdout.replace(/^\n+/, "");
    const errors = (await cli(["errors", "--help"])).stdout.replace(/^\n+/, "");
    for (const [args, text] of [
      [["help", "--json"], main],
      [["--help", "--json"], main],
      // No command and only global options, without a terminal: the help, as `memvoy` alone prints it.
      [["--json"], main],
      [["--home", "/nonexistent/memvoy-home", "--json"], main],
      [["help", "search", "--json"], search],
      [["search", "--help", "--json"], search],
      [["errors", "--help", "--json"], errors],
    ] as const) {
      const r = await cli([...args]);
      expect({ args, code: r.code }).toEqual({ args, code: 0 });
      expect(JSON.parse(r.stdout)).toEqual({ help: text });
    }
  });
});
