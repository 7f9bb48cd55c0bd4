// HomeMemory.maintain on the message vectors: LanceDB compaction under the drain lock.
import { afterAll, expect, test } from "bun:test";
import { openMemory } from "../../src/app/open-memory.ts";
import { cleanup, tempHome } from "../fixture/daemon-process.ts";

afterAll(cleanup);

test("maintain compacts the message vectors under the drain lock; semantic search still answers", async () => {
  const api = openMemory({ home: tempHome(), env: {}, drain: "off" });
  try {
    for (let i = 0; i < 5; i++) {
      api.add("v", [
        { role: "user", content: `how do I rotate key number ${i}` },
        { role: "assistant", content: `open the vault and rotate secret ${i}` },
      ]);
      expect((await api.drainEmbeddings()).embedded).toBe(2);
    }
    const r = await api.maintain();
    expect(r.vectors).toMatchObject({ done: true, rows: 10, indexed: false });
    const hits = await api.search({ query: "rotate the vault secret", match: "semantic", limit: 3 });
    expect(hits.hits.length).toBe(3);
  } finally {
    api.close();
  }
});

test("maintain in two halves: the archive alone (vectors: false), then maintainVectors", async () => {
  const api = openMemory({ home: tempHome(), env: {}, drain: "off" });
  try {
    api.add("v", [
      { role: "user", content: "how do I rotate the key" },
      { role: "assistant", content: "open the vault" },
    ]);
    expect(api.embeddingBacklog()).toEqual({ due: 2, queued: 2 });
    await api.drainEmbeddings();
    expect(api.embeddingBacklog()).toEqual({ due: 0, queued: 0 });
    const archiveOnly = await api.maintain({ vectors: false });
    expect(archiveOnly.archive.mergeSteps).toBeGreaterThanOrEqual(1);
    expect(archiveOnly.vectors.done).toBe(false);
    expect(await api.maintainVectors()).toMatchObject({ done: true, rows: 2 });
  } finally {
    api.close();
  }
});

test("maintain on a home without vectors says so", async () => {
  const api = openMemory({ home: tempHome(), env: {}, drain: "off" });
  try {
    api.add("k", { role: "user", content: "hello" });
    expect((await api.maintain()).vectors).toMatchObject({ done: false, note: "no vector store yet" });
  } finally {
    api.close();
  }
});
