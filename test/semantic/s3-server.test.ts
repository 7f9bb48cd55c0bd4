// The local S3-compatible test server: starts on a free port, and LanceDB's object store reads, writes and
// lists through it (path-style, plain http).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { VectorStore } from "../../src/storage/lance/vector-store.ts";
import { startS3Server, type S3Server } from "../fixture/s3-server.ts";

let s3: S3Server;
beforeAll(async () => {
  s3 = await startS3Server();
}, 120_000);
afterAll(() => s3?.stop());

test("LanceDB creates, lists, writes and reads tables on the test server", async () => {
  const store = await VectorStore.open(s3.location("probe"));
  try {
    const t = (await store.table("probe-embedder", 3, { create: true }))!;
    await t.upsert([
      { id: "a", seq: 1n, session: "s", sendAt: 1n, role: "user", content: "", vector: Float32Array.from([1, 0, 0]) },
      { id: "b", seq: 2n, session: "s", sendAt: 2n, role: "user", content: "", vector: Float32Array.from([0, 1, 0]) },
    ]);
    expect(await t.count()).toBe(2);
    expect((await t.search(Float32Array.from([1, 0, 0]), {}, 1)).map((h) => h.id)).toEqual(["a"]);
    t.close();
    // The listing LanceDB enumerates tables with (ListObjectsV2 with a delimiter) reports each table's prefix.
    expect((await store.tables()).map((i) => i.embedderId)).toEqual(["probe-embedder"]);
  } finally {
    store.close();
  }
}, 120_000);
