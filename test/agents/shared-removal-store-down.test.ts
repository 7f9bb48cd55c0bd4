// rm-message, reset and rm on a shared archive while this host cannot reach the object store: the text leaves
// the archive at once and the command says what it removed; the vectors' deletion waits for the next drain,
// which a host that reaches the store runs, and the command says so (exit 1) instead of looking as if nothing
// was removed (a retry then found no such message or session).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openMessageVectors } from "../../src/storage/ports/vector-port.ts";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";
import { describePostgres, startPostgres, type PgServer } from "../fixture/postgres-server.ts";
import { startS3Server, type S3Server } from "../fixture/s3-server.ts";

const describe = describePostgres();
const PREFIX = "removal";
const EMBEDDER = "builtin:v1:384";

describe("removals while the object store is out of reach", () => {
  let pg: PgServer;
  let s3: S3Server;
  let env: Record<string, string>;
  let up: string;
  let down: string;

  beforeAll(async () => {
    [pg, s3] = await Promise.all([startPostgres(), startS3Server()]);
    env = { ...s3.env, MEMVOY_ARCHIVE_URL: await pg.createDatabase("removal") };
    [up, down] = [tempHome(), tempHome()];
    writeFileSync(join(up, "config.toml"), s3.vectorsToml(PREFIX));
    // The same bucket behind an endpoint nothing listens on: this host cannot reach the store.
    writeFileSync(join(down, "config.toml"), s3.vectorsToml(PREFIX).replace(s3.endpoint, "http://127.0.0.1:1"));
  }, 180_000);
  afterAll(async () => {
    await Promise.all([pg?.stop(), s3?.stop()]);
    removeTempHomes();
  }, 60_000);

  /** The sessions holding vectors in the shared store. */
  async function vectorSessions(): Promise<string[]> {
    const store = await openMessageVectors(s3.location(PREFIX));
    try {
      const t = await store.table(EMBEDDER, 384);
      const keys = t ? await t.keys() : [];
      t?.close();
      return [...new Set(keys.map((k) => k.session))].sort();
    } finally {
      store.close();
    }
  }

  test("each removal prints its result and a one-line note, exits 1; the next drain deletes the vectors", async () => {
    for (const s of ["keep", "cut", "gone"]) {
      const lines = [0, 1].map((i) => JSON.stringify({ role: "user", content: `${s} note ${i} on the billing job` }));
      expect((await cli(["add", s], { home: up, env, stdin: lines.join("\n") })).code).toBe(0);
    }
    expect((await cli(["search", "billing", "--match", "semantic"], { home: up, env })).code).toBe(0);
    expect(await vectorSessions()).toEqual(["cut", "gone", "keep"]);

    const id = (await cli(["add", "keep", "--role", "user", "--content", "a pasted secret"], { home: up, env })).stdout;
    expect((await cli(["search", "secret", "--match", "semantic"], { home: up, env })).code).toBe(0);
    const removals = [
      { args: ["rm-message", id.trim()], says: `removed message ${id.trim()} from keep`, again: "no message" },
      { args: ["reset", "cut"], says: "reset cut: removed 2 message(s)", again: undefined },
      { args: ["rm", "gone"], says: "removed gone (2 message(s))", again: 'no session "gone"' },
    ];
    for (const { args, says, again } of removals) {
      const r = await cli(args, { home: down, env });
      expect(r.stdout.trim()).toBe(says);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain("the removed messages' vectors are not deleted yet (cannot open the vector store");
      expect(r.stderr).toContain("the next embedding drain deletes them");
      expect(r.code).toBe(1);
      if (again) {
        const retry = await cli(args, { home: down, env });
        expect(retry.code).toBe(2);
        expect(retry.stderr).toContain(again);
      }
    }
    const history = await cli(["history", "keep", "--all"], { home: up, env });
    expect(history.stdout).not.toContain("a pasted secret");
    // A host that reaches the store drains: the removed messages' vectors go.
    expect((await cli(["search", "billing", "--match", "semantic"], { home: up, env })).code).toBe(0);
    expect(await vectorSessions()).toEqual(["keep"]);
    const store = await openMessageVectors(s3.location(PREFIX));
    const t = (await store.table(EMBEDDER, 384))!;
    expect((await t.keys()).map((k) => k.id)).not.toContain(id.trim());
    t.close();
    store.close();
  }, 240_000);

  test("hybrid search from that host gives the keyword hits and says the semantic side is unavailable", async () => {
    const line = JSON.stringify({ role: "user", content: "the invoice export job failed at midnight" });
    expect((await cli(["add", "hyb"], { home: up, env, stdin: line })).code).toBe(0);
    expect((await cli(["search", "invoice", "--match", "semantic"], { home: up, env })).code).toBe(0);
    const r = await cli(["search", "invoice export", "--match", "hybrid", "--json"], { home: down, env });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { hits: { content: string; score: number }[]; notes: string[] };
    expect(out.hits.map((h) => h.content)).toEqual(["the invoice export job failed at midnight"]);
    expect(out.hits[0]!.score).toBe(1);
    expect(out.notes).toEqual([
      expect.stringMatching(/^semantic side unavailable \(cannot open the vector store .+\): keyword results only$/),
    ]);
    // Semantic alone has nothing else to give: it still fails, exit 1.
    const sem = await cli(["search", "invoice", "--match", "semantic"], { home: down, env });
    expect(sem.code).toBe(1);
    expect(sem.stderr).toContain("cannot open the vector store");
  }, 120_000);
});
