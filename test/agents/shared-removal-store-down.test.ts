// rm-message, reset and rm on a shared archive while this host cannot reach the object store: the text leaves
// the archive at once and the command says what it removed; the vectors' deletion waits for the next drain,
// which a host that reaches the store runs, and the command says so (exit 1) instead of looking as if nothing
// was removed (a retry then found no such message or session).
import { beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openMessageVectors } from "../../src/storage/ports/vector-port.ts";
import { cli, tempHome } from "../fixture/home.ts";
import { describePostgres } from "../fixture/postgres-server.ts";
import { sharedBackend } from "../fixture/shared-backend.ts";

const describe = describePostgres();
const PREFIX = "removal";
const EMBEDDER = "builtin:v1:384";

describe("removals while the object store is out of reach", () => {
  const shared = sharedBackend();
  let env: Record<string, string>;
  let up: string;
  let down: string;

  beforeAll(async () => {
    env = await shared.env("removal");
    up = shared.home(PREFIX);
    down = tempHome();
    // The same bucket behind an endpoint nothing listens on: this host cannot reach the store.
    writeFileSync(
      join(down, "config.toml"),
      shared.s3.vectorsToml(PREFIX).replace(shared.s3.endpoint, "http://127.0.0.1:1"),
    );
  });

  /** The sessions holding vectors in the shared store. */
  async function vectorSessions(): Promise<string[]> {
    const store = await openMessageVectors(shared.s3.location(PREFIX));
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
      { args: ["rm", "gone"], says: "removed gone (2 message(s))", again: 'no such session "gone"' },
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
    const store = await openMessageVectors(shared.s3.location(PREFIX));
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
