import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tableNameFor, VectorStore } from "../../src/storage/lance/vector-store.ts";
import { whereClause, type VectorRow } from "../../src/storage/lance/vector-table.ts";
import { loadLanceDb } from "../../src/storage/lance/load-lancedb.ts";
import { filesHolding } from "../fixture/files-holding.ts";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "memvoy-lance-"));
  dirs.push(d);
  return d;
}

const unit = (...xs: number[]) => {
  const v = Float32Array.from(xs);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
const T0 = 1_700_000_000_000_000_000n;
function row(i: number, session: string, vector: Float32Array): VectorRow {
  return {
    id: `m${i}`,
    seq: BigInt(i),
    session,
    sendAt: T0 + BigInt(i) * 1_000_000_000n + 7n,
    role: i % 2 ? "assistant" : "user",
    content: `message ${i}`,
    vector,
  };
}

describe("vector store", () => {
  test("one table per embedder id, never mixed; ids survive a reopen", async () => {
    const dir = tempDir();
    const store = await VectorStore.open(dir);
    const a = await store.table("builtin:v1:3", 3, { create: true });
    const b = await store.table("openai:text-embedding-3-small:2", 2, { create: true });
    await a!.upsert([row(1, "s", unit(1, 0, 0))]);
    await b!.upsert([row(1, "s", unit(0, 1))]);
    expect(tableNameFor("builtin:v1:3")).not.toBe(tableNameFor("builtin:v1:4"));
    store.close();
    const again = await VectorStore.open(dir);
    expect((await again.tables()).map((t) => t.embedderId).sort()).toEqual([
      "builtin:v1:3",
      "openai:text-embedding-3-small:2",
    ]);
    expect(await again.table("voyage:x:3", 3)).toBeUndefined();
    await again.drop("builtin:v1:3");
    expect((await again.tables()).map((t) => t.embedderId)).toEqual(["openai:text-embedding-3-small:2"]);
    await expect(
      (await again.table("openai:text-embedding-3-small:2", 2))!.upsert([row(2, "s", unit(1, 0, 0))]),
    ).rejects.toThrow("vector of 3 dimensions");
    again.close();
  });

  test("upsert replaces by id; deletes by session below a seq and by ids", async () => {
    const store = await VectorStore.open(tempDir());
    const t = (await store.table("t:v1:3", 3, { create: true }))!;
    await t.upsert(
      [1, 2, 3, 4]
        .map((i) => row(i, "a", unit(1, i, 0)))
        .concat([row(5, "b", unit(0, 0, 1)), row(6, "a'b", unit(0, 1, 1))]),
    );
    await t.upsert([row(2, "a", unit(0, 0, 1))]);
    expect(await t.count()).toBe(6);
    await t.deleteBefore("a", 3n);
    expect((await t.keys()).map((k) => k.id).sort()).toEqual(["m3", "m4", "m5", "m6"]);
    await t.deleteBefore("a'b", 100n);
    await t.deleteIds(["m4", "nope"]);
    expect((await t.keys()).map((k) => k.id).sort()).toEqual(["m3", "m5"]);
    store.close();
  });

  test("cosine search with session and send_at filters keeps ns precision", async () => {
    const store = await VectorStore.open(tempDir());
    const t = (await store.table("t:v1:3", 3, { create: true }))!;
    await t.upsert([
      row(1, "a", unit(1, 0, 0)),
      row(2, "a", unit(1, 0.2, 0)),
      row(3, "b", unit(1, 0.1, 0)),
      row(4, "a", unit(0, 1, 0)),
    ]);
    const all = await t.search(unit(1, 0, 0), {}, 10);
    expect(all.map((h) => h.id)).toEqual(["m1", "m3", "m2", "m4"]);
    expect(all[0]!.score).toBeCloseTo(1, 5);
    expect(all.map((h) => h.session)).toEqual(["a", "b", "a", "a"]);
    const inA = await t.search(unit(1, 0, 0), { session: "a" }, 10);
    expect(inA.map((h) => h.id)).toEqual(["m1", "m2", "m4"]);
    const ranged = await t.search(
      unit(1, 0, 0),
      { session: "a", since: T0 + 2_000_000_007n, until: T0 + 4_000_000_007n },
      10,
    );
    expect(ranged.map((h) => h.id)).toEqual(["m2"]);
    store.close();
  });

  test("maintain builds the ANN index past the threshold and search still works", async () => {
    const store = await VectorStore.open(tempDir());
    const t = (await store.table("t:v1:8", 8, { create: true }))!;
    const rows = Array.from({ length: 300 }, (_, i) =>
      row(i + 1, "s", unit(...Array.from({ length: 8 }, (_, d) => Math.sin(i * (d + 1)) + 1.5))),
    );
    await t.upsert(rows);
    expect((await t.maintain({ annMinRows: 1000 })).indexed).toBe(false);
    const r = await t.maintain({ annMinRows: 200 });
    expect(r).toEqual({ indexed: true, rows: 300 });
    const hits = await t.search(rows[42]!.vector, { session: "s" }, 3);
    expect(hits[0]!.id).toBe("m43");
    store.close();
  });

  test("a scrubbing deletion leaves no file holding the rows, keeps the index, and finishes one interrupted after its first step", async () => {
    const dir = tempDir();
    const store = await VectorStore.open(dir);
    const t = (await store.table("t:v1:8", 8, { create: true }))!;
    const rows = Array.from({ length: 300 }, (_, i) =>
      row(i + 1, "s", unit(...Array.from({ length: 8 }, (_, d) => Math.sin(i * (d + 1)) + 1.5))),
    );
    await t.upsert(rows);
    expect((await t.maintain({ annMinRows: 200 })).indexed).toBe(true);
    const bytes = (r: VectorRow) => new Uint8Array(r.vector.buffer, r.vector.byteOffset, 32).slice();
    const gone = [rows[10]!, rows[200]!];
    expect(filesHolding(dir, bytes(gone[0]!)).length).toBeGreaterThan(0);
    // Interrupted after its first step: the other rows were moved out of the fragment, the deletion not made.
    const { lancedb } = await loadLanceDb();
    const raw = await (await lancedb.connect(dir)).openTable(tableNameFor("t:v1:8"));
    await raw.update({ where: `id NOT IN ('m11')`, valuesSql: { role: "role" } });
    raw.close();
    await t.deleteIds(["m11"], { scrub: true });
    await t.deleteIds(["m201"], { scrub: true });
    await t.purgeOldVersions();
    for (const r of gone) expect(filesHolding(dir, bytes(r))).toEqual([]);
    expect(await t.hasIndex()).toBe(true);
    expect(await t.count()).toBe(298);
    expect((await t.search(rows[42]!.vector, {}, 1))[0]!.id).toBe("m43");
    store.close();
  });

  test("reads made while another process deletes rows and drops the older versions never find a file gone", async () => {
    const dir = tempDir();
    const store = await VectorStore.open(dir);
    const t = (await store.table("t:v1:3", 3, { create: true }))!;
    await t.upsert(Array.from({ length: 200 }, (_, i) => row(i + 1, "s", unit(1, Math.sin(i), Math.cos(i) + 1.5))));
    // A deletion (rm, reset) drops every older version under the vector write lock; readers take no lock.
    const purger = Bun.spawn(
      ["bun", join(import.meta.dir, "../fixture/vector-purger-main.ts"), "messages", dir, "t:v1:3", "30"],
      {
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const failures: string[] = [];
    const reads = [
      () => t.count({ session: "s" }),
      () => t.keys({ session: "s" }),
      () => t.idsBefore("s", 100n),
      () => t.sample(50),
      () => t.search(unit(1, 0, 1), { session: "s" }, 5),
    ];
    const reader = async () => {
      while (purger.exitCode === null)
        for (const read of reads) await read().catch((err: Error) => failures.push(err.message));
    };
    await Promise.all([reader(), reader()]);
    expect(await purger.exited, await new Response(purger.stderr).text()).toBe(0);
    expect(failures).toEqual([]);
    expect(await t.count()).toBe(200);
    store.close();
  }, 180_000);

  test("where clauses quote strings", () => {
    expect(whereClause({ session: "o'k", since: 5n })).toBe("session = 'o''k' AND send_at >= 5");
    expect(whereClause({})).toBeUndefined();
  });
});
