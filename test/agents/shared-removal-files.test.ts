// rm-message, reset and rm on a shared archive: the vector store's current version holds no removed row (its id,
// its vector), so once the older versions are dropped (the nightly upkeep; other hosts may still read them until
// then) no object keeps it, while the other rows stay searchable.
import { beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { openMessageVectors } from "../../src/storage/ports/vector-port.ts";
import { filesHolding } from "../fixture/files-holding.ts";
import { cli } from "../fixture/home.ts";
import { describePostgres } from "../fixture/postgres-server.ts";
import { sharedBackend } from "../fixture/shared-backend.ts";

const describe = describePostgres();
const PREFIX = "removal-files";
const EMBEDDER = "builtin:v1:384";

describe("removals on a shared archive", () => {
  const shared = sharedBackend();
  let env: Record<string, string>;
  let home: string;

  beforeAll(async () => {
    env = await shared.env("removal_files");
    home = shared.home(PREFIX);
  });

  /** Drop every older version of the table, as the nightly upkeep does for versions older than a minute. */
  async function dropOldVersions(): Promise<void> {
    const store = await openMessageVectors(shared.s3.location(PREFIX));
    const t = (await store.table(EMBEDDER, 384))!;
    await t.purgeOldVersions();
    t.close();
    store.close();
  }

  /** Every stored row with its vector's first bytes. */
  async function rows(): Promise<{ id: string; session: string; bytes: Uint8Array }[]> {
    const store = await openMessageVectors(shared.s3.location(PREFIX));
    try {
      const t = (await store.table(EMBEDDER, 384))!;
      const out: { id: string; session: string; bytes: Uint8Array }[] = [];
      for await (const batch of t.batches())
        for (const r of batch)
          out.push({
            id: r.id,
            session: r.session,
            bytes: new Uint8Array(r.vector.buffer, r.vector.byteOffset, 64).slice(),
          });
      t.close();
      return out;
    } finally {
      store.close();
    }
  }

  test("after each removal, dropping the older versions leaves no object holding a removed row", async () => {
    const topics = ["billing", "deploy", "backup", "invoice", "kernel", "garden", "tennis", "violin"];
    for (const s of ["keep", "cut", "gone"]) {
      const lines = topics.map((w, i) => JSON.stringify({ role: "user", content: `${s} note ${i} on the ${w} job` }));
      expect((await cli(["add", s], { home, env, stdin: lines.join("\n") })).code).toBe(0);
    }
    const id = (
      await cli(["add", "keep", "--role", "user", "--content", "a pasted secret zqxj5"], { home, env })
    ).stdout.trim();
    expect((await cli(["search", "billing", "--match", "semantic"], { home, env })).code).toBe(0);
    const before = await rows();
    expect(before).toHaveLength(25);
    const objects = join(shared.s3.dir, shared.s3.bucket, PREFIX);
    for (const [args, removed] of [
      [["rm-message", id], before.filter((r) => r.id === id)],
      [["reset", "cut"], before.filter((r) => r.session === "cut")],
      [["rm", "gone"], before.filter((r) => r.session === "gone")],
    ] as const) {
      expect(filesHolding(objects, removed[0]!.bytes).length).toBeGreaterThan(0);
      const r = await cli([...args], { home, env });
      expect(r.code, r.stderr).toBe(0);
      await dropOldVersions();
      const left = removed.flatMap((m) => [...filesHolding(objects, m.id), ...filesHolding(objects, m.bytes)]);
      expect({ args, left }).toEqual({ args, left: [] });
    }
    expect((await rows()).map((r) => r.session)).toEqual(Array(8).fill("keep"));
    const found = await cli(["search", "tennis", "--match", "semantic", "--json"], { home, env });
    expect(found.stdout).toContain("keep note 6 on the tennis job");
  }, 240_000);
});
