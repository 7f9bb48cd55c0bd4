// Finding every embedder's table when the store's listing misses some (as a lagging or partial S3 listing
// does): the tables of the probed embedders are found by name all the same.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Connection } from "@lancedb/lancedb";
import { loadLanceDb } from "../../src/storage/lance/load-lancedb.ts";
import { embedderTables } from "../../src/storage/lance/embedder-tables.ts";
import { VectorStore } from "../../src/storage/lance/vector-store.ts";

const dir = mkdtempSync(join(tmpdir(), "memvoy-embtables-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a table the listing misses is found by name when its embedder is probed; absent ones are skipped", async () => {
  const store = await VectorStore.open(dir);
  (await store.table("a:1:2", 2, { create: true }))!.close();
  (await store.table("b:1:2", 2, { create: true }))!.close();
  store.close();
  const { lancedb } = await loadLanceDb();
  const real = await lancedb.connect(dir);
  // The same LanceDB connection, but its listing comes back empty.
  const blind = new Proxy(real, {
    get: (target, key) =>
      key === "tableNames" ? async () => [] : (Reflect.get(target, key) as (...a: unknown[]) => unknown).bind(target),
  }) as Connection;
  expect((await embedderTables(real, "messages_")).map((t) => t.embedderId).sort()).toEqual(["a:1:2", "b:1:2"]);
  expect(await embedderTables(blind, "messages_")).toEqual([]);
  expect((await embedderTables(blind, "messages_", ["b:1:2", "missing:1:2"])).map((t) => t.embedderId)).toEqual([
    "b:1:2",
  ]);
  expect((await embedderTables(real, "messages_", ["a:1:2"])).map((t) => t.embedderId).sort()).toEqual([
    "a:1:2",
    "b:1:2",
  ]);
  real.close();
});
