// errors rm and the TTL sweep leave no copy of a removed record's vector row (its id, its floats) in any file of
// the error-vector table: the rows still wanted are rewritten, the removed ones deleted, old versions dropped.
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { ErrorVectorStore, type ErrorVector } from "../../src/storage/lance/error-vectors.ts";
import { filesHolding } from "../fixture/files-holding.ts";
import { cli, removeTempHomes } from "../fixture/home.ts";
import { DAY, T0, errorHome, loadFixture } from "./error-home.ts";

afterAll(removeTempHomes);

const bytes = (v: Float32Array) => new Uint8Array(v.buffer, v.byteOffset, 64).slice();

async function stored(lance: string): Promise<{ store: ErrorVectorStore; embedderId: string; rows: ErrorVector[] }> {
  const store = await ErrorVectorStore.open(lance);
  const embedderId = (await store.tables())[0]!.embedderId;
  const rows: ErrorVector[] = [];
  for await (const batch of store.batches(embedderId)) rows.push(...batch);
  return { store, embedderId, rows };
}

/** Which files under `lance` still hold `removed` rows' ids or vectors. */
const leftOf = (lance: string, removed: ErrorVector[]) => [
  ...removed.flatMap((r) => filesHolding(lance, r.id)),
  ...removed.flatMap((r) => filesHolding(lance, bytes(r.vector))),
];

test("errors rm: no file of the error-vector table keeps the record's id or vector; the others stay searchable", async () => {
  const { api, home } = errorHome();
  const ids = await loadFixture(api);
  api.close();
  const lance = join(home, ".store", "lance");
  const { store, embedderId, rows } = await stored(lance);
  const removed = rows.filter((r) => r.id === ids.get("git-push-behind"));
  expect(removed).toHaveLength(1);
  expect(filesHolding(lance, bytes(removed[0]!.vector)).length).toBeGreaterThan(0);
  const r = await cli(["errors", "rm", removed[0]!.id], { home });
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
  expect(leftOf(lance, removed)).toEqual([]);
  const kept = rows.filter((x) => x !== removed[0]);
  expect((await store.ids(embedderId)).sort()).toEqual(kept.map((x) => x.id).sort());
  expect((await store.search(embedderId, kept[7]!.vector, 1))[0]!.id).toBe(kept[7]!.id);
  store.close();
}, 120_000);

test("the TTL sweep: no file of the error-vector table keeps an expired record's id or vector", async () => {
  const { api, clock, home } = errorHome();
  await loadFixture(api);
  clock.now = T0 + 30n * DAY;
  const young = await api.recordError({
    tool: "npm",
    error: "npm ERR! code E404 404 Not Found - GET https://registry.npmjs.org/leftpadx",
    fix: "fix the package name",
  });
  const lance = join(home, ".store", "lance");
  const { store, embedderId, rows } = await stored(lance);
  clock.now = T0 + 95n * DAY;
  const swept = await api.sweepErrors();
  expect({ removed: swept.removed, notes: swept.notes }).toEqual({ removed: rows.length - 1, notes: [] });
  api.close();
  const removed = rows.filter((r) => r.id !== young.record.id);
  expect(leftOf(lance, removed)).toEqual([]);
  expect(await store.ids(embedderId)).toEqual([young.record.id]);
  store.close();
}, 120_000);

test("a deletion whose rows an earlier one already took (stopped before dropping older versions) drops them", async () => {
  const { api, home } = errorHome();
  const ids = await loadFixture(api);
  api.close();
  const lance = join(home, ".store", "lance");
  const { store, rows } = await stored(lance);
  const removed = rows.filter((r) => r.id === ids.get("npm-eresolve") || r.id === ids.get("git-push-behind"));
  expect(removed).toHaveLength(2);
  await store.deleteIds(
    removed.map((r) => r.id),
    [],
    { purge: false },
  );
  expect(filesHolding(lance, bytes(removed[0]!.vector)).length).toBeGreaterThan(0);
  await store.deleteIds(removed.map((r) => r.id));
  expect(leftOf(lance, removed)).toEqual([]);
  store.close();
}, 120_000);
