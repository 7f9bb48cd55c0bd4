// errors rm on a shared archive: the error-vector table's current version holds no removed record's row (its id,
// its vector), so once the older versions are dropped (the nightly upkeep) no object keeps it.
import { beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { connectStore } from "../../src/storage/lance/connect-store.ts";
import { errorTableName } from "../../src/storage/lance/error-vectors.ts";
import { openErrorVectors, type ErrorVector } from "../../src/storage/ports/vector-port.ts";
import { filesHolding } from "../fixture/files-holding.ts";
import { cli } from "../fixture/home.ts";
import { describePostgres } from "../fixture/postgres-server.ts";
import { sharedBackend } from "../fixture/shared-backend.ts";

const describe = describePostgres();
const PREFIX = "error-removal-files";
const EMBEDDER = "builtin:v1:384";

describe("errors rm on a shared archive", () => {
  const shared = sharedBackend();
  let env: Record<string, string>;
  let home: string;

  beforeAll(async () => {
    env = await shared.env("error_removal_files");
    home = shared.home(PREFIX);
  });

  async function rows(): Promise<ErrorVector[]> {
    const store = await openErrorVectors(shared.s3.location(PREFIX));
    try {
      const out: ErrorVector[] = [];
      for await (const batch of store.batches(EMBEDDER)) out.push(...batch);
      return out;
    } finally {
      store.close();
    }
  }

  /**
   * Compact the table and drop every older version, as the nightly upkeep does (for versions older than a
   * minute).
   */
  async function dropOldVersions(): Promise<void> {
    const { conn } = await connectStore(shared.s3.location(PREFIX));
    const t = await conn.openTable(errorTableName(EMBEDDER));
    await t.optimize({ cleanupOlderThan: new Date(Date.now() + 1000) });
    t.close();
    conn.close();
  }

  test("once the older versions are dropped, no object holds the removed record's id or vector", async () => {
    const tools = ["npm", "git", "docker", "psql"];
    for (const [i, tool] of tools.entries()) {
      const r = await cli(
        [
          "errors",
          "record",
          "--tool",
          tool,
          "--error",
          `${tool} failed: code E${i}77 on step ${i}`,
          "--fix",
          `retry ${i}`,
        ],
        { home, env },
      );
      expect(r.code, r.stderr).toBe(0);
    }
    // Rows enough that the upkeep's compaction does not rewrite a fragment for one deleted row (it does past 10%),
    // all in one fragment, as the nightly upkeep leaves them.
    const store = await openErrorVectors(shared.s3.location(PREFIX));
    const others = Array.from({ length: 36 }, (_, i) => ({
      id: `other${i}`,
      vector: Float32Array.from({ length: 384 }, (_, j) => Math.sin(i * 384 + j)),
    }));
    await store.upsert(EMBEDDER, 384, others, { replace: false });
    store.close();
    await dropOldVersions();
    const before = await rows();
    expect(before).toHaveLength(40);
    // The whole vector: records of alike text may share its first values.
    const removed = before.find((x) => !x.id.startsWith("other"))!;
    const bytes = new Uint8Array(removed.vector.buffer, removed.vector.byteOffset, removed.vector.byteLength).slice();
    const objects = join(shared.s3.dir, shared.s3.bucket, PREFIX);
    expect(filesHolding(objects, bytes).length).toBeGreaterThan(0);
    const r = await cli(["errors", "rm", removed.id], { home, env });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
    await dropOldVersions();
    expect([...filesHolding(objects, removed.id), ...filesHolding(objects, bytes)]).toEqual([]);
    expect((await rows()).map((x) => x.id).sort()).toEqual(
      before
        .filter((x) => x !== removed)
        .map((x) => x.id)
        .sort(),
    );
  }, 240_000);
});
