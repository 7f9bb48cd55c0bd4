// The vector table mirrors the recent tier: after add, compaction, reset and rm (no orphans, none missing).
import { afterAll, describe, expect, test } from "bun:test";
import { openTemp, removeTempHomes } from "../fixture/home.ts";
import { BuiltinEmbedder } from "../../src/embed/builtin/builtin-embedder.ts";
import type { Embedder } from "../../src/embed/embedder.ts";
import { drainQueue } from "../../src/memory/embedding/drain.ts";
import { SemanticIndex } from "../../src/memory/embedding/semantic-index.ts";
import { config, contextFor, queueSize, recentIds, vectorIds } from "../fixture/semantic-home.ts";

afterAll(removeTempHomes);

const say = (i: number) => ({
  role: i % 2 ? ("assistant" as const) : ("user" as const),
  content: `message number ${i}: ${"lorem ipsum ".repeat(8)}`,
});

describe("tier consistency", () => {
  test("after add and a drain every recent message has exactly one vector", async () => {
    const { home, api } = openTemp({ drain: "off" });
    api.add("s1", [0, 1, 2, 3].map(say));
    api.add("s2", [4, 5].map(say));
    expect(queueSize(home)).toBe(6);
    const r = await api.drainEmbeddings();
    expect(r).toMatchObject({ busy: false, embedded: 6, failed: 0, remaining: 0 });
    expect(queueSize(home)).toBe(0);
    expect(await vectorIds(home)).toEqual(recentIds(home));
    expect(await vectorIds(home, undefined, "s2")).toEqual(recentIds(home, "s2"));
    api.close();
  });

  test("the in-process background drain after add embeds without being asked", async () => {
    const { home, api } = openTemp();
    api.add("s1", [0, 1, 2].map(say));
    expect(await api.flushEmbeddings()).toBeUndefined();
    expect(queueSize(home)).toBe(0);
    expect(await vectorIds(home)).toEqual(recentIds(home));
    api.close();
  });

  test("compaction removes the vectors of messages that left history.json", async () => {
    const { home, api } = openTemp({ drain: "off", config: config({ limits: { max_history_bytes: 4096 } }) });
    api.add(
      "s1",
      Array.from({ length: 10 }, (_, i) => say(i)),
    );
    await api.drainEmbeddings();
    const before = await vectorIds(home);
    expect(before).toHaveLength(10);
    let compacted = 0;
    for (let i = 10; i < 40; i++) compacted += api.add("s1", say(i)).compacted;
    expect(compacted).toBeGreaterThan(0);
    await api.drainEmbeddings();
    const after = await vectorIds(home);
    expect(after).toEqual(recentIds(home));
    expect(after.length).toBeLessThan(40);
    expect(after).not.toContain(before[0]);
    api.close();
  });

  test("reset and rm remove the session's vectors and leave other sessions alone", async () => {
    const { home, api } = openTemp({ drain: "off" });
    api.add("a", [0, 1, 2].map(say));
    api.add("b", [3, 4].map(say));
    api.add("c", [5].map(say));
    await api.drainEmbeddings();
    api.reset("a");
    api.remove("b");
    api.add("a", say(6));
    const r = await api.drainEmbeddings();
    expect(r.deletesApplied).toBe(2);
    expect(await vectorIds(home)).toEqual(recentIds(home));
    expect(await vectorIds(home, undefined, "a")).toHaveLength(1);
    expect(await vectorIds(home, undefined, "b")).toEqual([]);
    expect(await vectorIds(home, undefined, "c")).toHaveLength(1);
    api.close();
  });

  test("a reset racing an embedding batch leaves no orphan vector", async () => {
    const { home, api } = openTemp({ drain: "off" });
    api.add("s1", [0, 1, 2].map(say));
    const builtin = await BuiltinEmbedder.create();
    let raced = false;
    const racing: Embedder = {
      id: builtin.id,
      dim: builtin.dim,
      local: true,
      async embed(texts, signal) {
        if (!raced) {
          raced = true;
          api.reset("s1");
          api.add("s1", say(9));
        }
        return builtin.embed(texts, signal);
      },
    };
    const ctx = contextFor(home);
    const index = new SemanticIndex(ctx, async () => racing);
    await drainQueue(index);
    expect(raced).toBe(true);
    const ids = await vectorIds(home);
    expect(ids).toEqual(recentIds(home));
    expect(ids).toHaveLength(1);
    await index.close();
    ctx.db.close();
    api.close();
  });
});

test("an embedder passed to openMemory is used instead of the configured one, in its own table", async () => {
  const builtin = await BuiltinEmbedder.create();
  const custom: Embedder = { id: "custom:v1:384", dim: 384, local: false, embed: (t, s) => builtin.embed(t, s) };
  const { home, api } = openTemp({ drain: "off", embedder: custom });
  api.add("s", say(1));
  expect((await api.drainEmbeddings()).embedded).toBe(1);
  expect(await vectorIds(home, "custom:v1:384")).toEqual(recentIds(home));
  expect(await vectorIds(home)).toEqual([]);
  const r = await api.search({ query: say(1).content, match: "semantic" });
  expect(r.hits).toHaveLength(1);
  api.close();
});
