// HomeMemory.maintain: an unfinished index build finished first; the archive's FTS5 indexes merged in short steps,
// then optimized; search still finds everything.
import { afterAll, expect, test } from "bun:test";
import { openMemory } from "../../src/app/open-memory.ts";
import { cleanup, tempHome } from "../fixture/daemon-process.ts";
import { BULK_IMPORT } from "../../src/memory/imports/deferred-index.ts";
import { holdWriterLock } from "../fixture/writer-lock-holder.ts";

afterAll(cleanup);

test("maintain merges the FTS index in short writes and keeps every hit", async () => {
  const api = openMemory({ home: tempHome(), env: {} });
  try {
    for (let i = 0; i < 60; i++) {
      api.add(`s${i % 3}`, [
        { role: "user", content: `question ${i} about the zebra${i} migration` },
        { role: "assistant", content: `answer ${i}: use the blue pipeline` },
      ]);
    }
    const before = await api.search({ query: "pipeline", limit: 1000 });
    const r = await api.maintain();
    expect(r.archive.aborted).toBe(false);
    expect(r.archive.mergeSteps).toBeGreaterThanOrEqual(1);
    const after = await api.search({ query: "pipeline", limit: 1000 });
    expect(after.hits.map((h) => h.message.id).sort()).toEqual(before.hits.map((h) => h.message.id).sort());
    expect((await api.search({ query: "zebra42", limit: 5 })).hits.length).toBe(1);
    // Nothing left to merge: a second run is one no-op step per FTS5 table (the keyword index, the substring
    // index's recent and archived tables).
    expect((await api.maintain()).archive.mergeSteps).toBe(3);
  } finally {
    api.close();
  }
});

test("maintain waits for another process's writer lock without blocking: the daemon running it keeps serving", async () => {
  // As in the daemon, whose embedding drain runs in its child.
  const api = openMemory({ home: tempHome(), env: {}, drain: "off" });
  try {
    for (let i = 0; i < 20; i++) api.add("s", { role: i % 2 ? "assistant" : "user", content: `message ${i}` });
    // An import holds the lock (it gives up by itself after 8 s); the merge steps wait for it to let go.
    const holder = await holdWriterLock(api.home, 8000);
    const maintaining = api.maintain();
    const t = performance.now();
    await Bun.sleep(200);
    // The event loop ran on: a timer fired on time (a busy wait in SQLite would hold it until the lock is free).
    expect(performance.now() - t).toBeLessThan(2000);
    expect(holder.proc.exitCode).toBeNull();
    await holder.release();
    const r = await maintaining;
    expect(r.archive.aborted).toBe(false);
    expect(r.archive.mergeSteps).toBeGreaterThanOrEqual(1);
  } finally {
    api.close();
  }
});

test("maintain stops between steps when its signal aborts", async () => {
  const api = openMemory({ home: tempHome(), env: {} });
  try {
    api.add("s", { role: "user", content: "hello" });
    const c = new AbortController();
    c.abort();
    const r = await api.maintain({ signal: c.signal });
    expect(r.archive.aborted).toBe(true);
    expect(r.archive.mergeSteps).toBe(0);
  } finally {
    api.close();
  }
});

test("maintain first finishes an index build left unfinished (a large import killed before its end)", async () => {
  const api = openMemory({ home: tempHome(), env: {} });
  const defaults = { ...BULK_IMPORT };
  try {
    BULK_IMPORT.after = 10;
    // A large pass's writes without its end: the rows after the tenth are left to the build.
    for (let i = 0; i < 4; i++)
      api.imports.write(
        `s${i}`,
        Array.from({ length: 10 }, (_, k) => ({
          id: `m${i}x${k}`,
          role: "user" as const,
          content: `note ${i}.${k} on the quorblax${k} rollout`,
          sendAt: BigInt(1_780_000_000 + i * 100 + k) * 1_000_000_000n,
        })),
      );
    expect(api.indexUpgrade().done).toBe(false);
    const r = await api.maintain();
    expect(r.indexUpgrade?.done).toBe(true);
    expect(api.indexUpgrade().done).toBe(true);
    expect((await api.search({ query: "rblax7", limit: 10 })).hits.length).toBe(4);
    // Nothing left unfinished: the next run reports no build.
    expect((await api.maintain()).indexUpgrade).toBeUndefined();
  } finally {
    Object.assign(BULK_IMPORT, defaults);
    api.close();
  }
});
