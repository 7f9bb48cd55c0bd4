// The vector write lock: the home's lock file between processes, plus a shared archive's lease when one is
// installed; a lease held elsewhere means no lock, and the home's lock is given back at once.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { homePaths } from "../../src/config/home.ts";
import type { MemoryContext } from "../../src/memory/memory-context.ts";
import { setVectorWriteLease, tryVectorWriteLock } from "../../src/memory/embedding/vector-write-lock.ts";
import { removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

function context(): MemoryContext {
  const paths = homePaths(tempHome());
  mkdirSync(paths.store, { recursive: true });
  return { paths } as MemoryContext;
}

/** A lease as a shared archive keeps it: one holder at a time across every context given it. */
function sharedLease() {
  const state = { holder: undefined as string | undefined, released: 0 };
  const lease = (who: string) => async () => {
    if (state.holder !== undefined) return undefined;
    state.holder = who;
    return async () => {
      state.holder = undefined;
      state.released++;
    };
  };
  return { state, lease };
}

test("without a lease the home's lock file alone decides", async () => {
  const ctx = context();
  const release = await tryVectorWriteLock(ctx);
  expect(release).toBeDefined();
  expect(await tryVectorWriteLock(ctx)).toBeUndefined();
  release!();
  const again = await tryVectorWriteLock(ctx);
  expect(again).toBeDefined();
  again!();
});

test("two homes (two hosts) sharing a lease take turns; the lease is given back on release", async () => {
  const { state, lease } = sharedLease();
  const hostA = context();
  const hostB = context();
  setVectorWriteLease(hostA, lease("a"));
  setVectorWriteLease(hostB, lease("b"));
  const a = await tryVectorWriteLock(hostA);
  expect(a).toBeDefined();
  expect(state.holder).toBe("a");
  expect(await tryVectorWriteLock(hostB)).toBeUndefined();
  // B's own lock file was given back when the lease was refused.
  setVectorWriteLease(hostB, undefined);
  const bLocal = await tryVectorWriteLock(hostB);
  expect(bLocal).toBeDefined();
  bLocal!();
  setVectorWriteLease(hostB, lease("b"));
  a!();
  await Promise.resolve();
  expect(state.released).toBe(1);
  const b = await tryVectorWriteLock(hostB);
  expect(b).toBeDefined();
  expect(state.holder).toBe("b");
  b!();
});

test("a lease that fails to answer releases the home's lock and reports the failure", async () => {
  const ctx = context();
  setVectorWriteLease(ctx, async () => {
    throw new Error("archive unreachable");
  });
  await expect(tryVectorWriteLock(ctx)).rejects.toThrow("archive unreachable");
  setVectorWriteLease(ctx, undefined);
  const release = await tryVectorWriteLock(ctx);
  expect(release).toBeDefined();
  release!();
});
