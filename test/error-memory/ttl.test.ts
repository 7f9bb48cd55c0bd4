import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { ErrorVectorStore } from "../../src/storage/lance/error-vectors.ts";
import { removeTempHomes } from "../fixture/home.ts";
import { DAY, T0, errorHome } from "./error-home.ts";

afterAll(removeTempHomes);

const LOCK = {
  tool: "git",
  error: "fatal: Unable to create '/home/dev/proj/.git/index.lock': File exists.",
  fix: "make sure no git process runs, then rm .git/index.lock",
};
const QUERY = "another git process seems to be running: index.lock File exists";

function rowCount(home: string): number {
  const db = new Database(join(home, ".store", "history.db"), { readonly: true });
  try {
    return Number((db.query("SELECT count(*) AS n FROM error_records").get() as { n: number }).n);
  } finally {
    db.close();
  }
}

describe("error memory TTL (injected clock, no sleeping)", () => {
  test("a record expires at 90 days; until then it is listed, from then on it is invisible", async () => {
    const { api, clock } = errorHome();
    const { record } = await api.recordError(LOCK);
    expect(record.createdAt).toBe(T0);
    expect(record.expiresAt).toBe(T0 + 90n * DAY);
    expect(record.lastHitAt).toBeUndefined();

    clock.now = T0 + 90n * DAY - 1n;
    expect(api.listErrors().records.map((r) => r.id)).toEqual([record.id]);
    expect(api.getError(record.id).id).toBe(record.id);
    clock.now = T0 + 90n * DAY;
    expect(api.listErrors()).toEqual({ records: [], total: 0 });
    expect(() => api.getError(record.id)).toThrow(/no error record/);
    api.close();
  });

  test("a hit on day 89 extends it to day 179; list and show are no hits", async () => {
    const { api, clock } = errorHome();
    const { record } = await api.recordError(LOCK);
    clock.now = T0 + 89n * DAY;
    const found = await api.searchErrors({ query: QUERY });
    expect(found.hits.map((h) => h.record.id)).toEqual([record.id]);
    const hit = found.hits[0]!.record;
    expect(hit.lastHitAt).toBe(T0 + 89n * DAY);
    expect(hit.expiresAt).toBe(T0 + 179n * DAY);
    expect(hit.hits).toBe(1);

    clock.now = T0 + 178n * DAY;
    api.listErrors();
    api.getError(record.id);
    expect(api.getError(record.id).expiresAt).toBe(T0 + 179n * DAY);
    clock.now = T0 + 179n * DAY - 1n;
    expect(api.listErrors().total).toBe(1);
    clock.now = T0 + 179n * DAY;
    expect(api.listErrors().total).toBe(0);
    api.close();
  });

  test("expired records are invisible to search before the sweep, and the sweep deletes them and their vectors", async () => {
    const { api, clock, home } = errorHome();
    const old = await api.recordError(LOCK);
    clock.now = T0 + 30n * DAY;
    const young = await api.recordError({
      tool: "npm",
      error: "npm ERR! code E404 404 Not Found - GET https://registry.npmjs.org/leftpadx",
      fix: "fix the package name",
    });
    clock.now = T0 + 95n * DAY;
    expect(rowCount(home)).toBe(2);
    expect((await api.searchErrors({ query: QUERY })).hits).toEqual([]);
    expect((await api.searchErrors({ query: "index.lock" })).hits).toEqual([]);
    expect(api.listErrors().records.map((r) => r.id)).toEqual([young.record.id]);

    const store = await ErrorVectorStore.open(join(home, ".store", "lance"));
    const embedderId = (await store.tables())[0]?.embedderId;
    expect((await store.ids(embedderId!)).sort()).toEqual([old.record.id, young.record.id].sort());

    const swept = await api.sweepErrors();
    expect(swept.removed).toBe(1);
    expect(swept.notes).toEqual([]);
    expect(rowCount(home)).toBe(1);
    expect(await store.ids(embedderId!)).toEqual([young.record.id]);
    expect((await api.sweepErrors()).removed).toBe(0);
    store.close();
    api.close();
  });

  test("ttl_days comes from [error_memory]", async () => {
    const { api } = errorHome({ error_memory: { ttl_days: 7 } });
    const { record } = await api.recordError(LOCK);
    expect(record.expiresAt).toBe(T0 + 7n * DAY);
    api.close();
  });
});
