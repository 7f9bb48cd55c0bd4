// The vectors port's contract, run against both implementations: LanceDB in a local folder and LanceDB on
// S3-compatible storage (the local test server). Message vectors, error vectors, dimensions, reopen, and a
// second connection and a second process seeing writes within the stated bound.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  openErrorVectors,
  openMessageVectors,
  type MessageVectorTable,
  type VectorRow,
} from "../../src/storage/ports/vector-port.ts";
import type { VectorLocation } from "../../src/storage/ports/vector-location.ts";
import { startS3Server, type S3Server } from "../fixture/s3-server.ts";

const T = 120_000;
const dirs: string[] = [];
let s3: S3Server;
let prefixes = 0;

beforeAll(async () => {
  s3 = await startS3Server();
}, T);
afterAll(async () => {
  await s3?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The read-consistency bound the S3 implementation is opened with in these tests (seconds). */
const BOUND_S = 1;

const implementations: { name: string; fresh: () => VectorLocation }[] = [
  {
    name: "local LanceDB",
    fresh: () => {
      const d = mkdtempSync(join(tmpdir(), "memvoy-vport-"));
      dirs.push(d);
      return { kind: "local", dir: join(d, "lance") };
    },
  },
  { name: "LanceDB on S3", fresh: () => s3.location(`contract-${++prefixes}`, BOUND_S) },
];

const unit = (...xs: number[]) => {
  const v = Float32Array.from(xs);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
const row = (i: number, session: string, vector: Float32Array): VectorRow => ({
  id: `m${i}`,
  seq: BigInt(i),
  session,
  sendAt: 1_000n + BigInt(i),
  role: "user",
  content: "",
  vector,
});
const ids = async (t: MessageVectorTable) => (await t.keys()).map((k) => k.id).sort();

/** Poll `check` until it holds, at most `ms` (the bound plus generous slack for a loaded machine). */
async function within(ms: number, check: () => Promise<boolean>): Promise<boolean> {
  const deadline = performance.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (performance.now() > deadline) return false;
    await Bun.sleep(50);
  }
}

for (const impl of implementations) {
  describe(`vectors port: ${impl.name}`, () => {
    test(
      "message vectors: create, upsert by id, filtered cosine search, deletes, reopen",
      async () => {
        const where = impl.fresh();
        const store = await openMessageVectors(where);
        expect(await store.table("e:1:3", 3)).toBeUndefined();
        const t = (await store.table("e:1:3", 3, { create: true }))!;
        await t.upsert([row(1, "a", unit(1, 0, 0)), row(2, "a", unit(0, 1, 0)), row(3, "b", unit(1, 1, 0))]);
        await t.upsert([{ ...row(2, "a", unit(0, 0, 1)) }]); // replaces m2
        expect(await t.count()).toBe(3);
        expect(await t.count({ session: "a" })).toBe(2);
        const hits = await t.search(unit(0, 0, 1), {}, 1);
        expect(hits.map((h) => h.id)).toEqual(["m2"]);
        expect(hits[0]!.score).toBeCloseTo(1, 4);
        expect((await t.search(unit(1, 0, 0), { session: "b" }, 5)).map((h) => [h.id, h.session])).toEqual([
          ["m3", "b"],
        ]);
        expect((await t.search(unit(1, 0, 0), {}, 5)).map((h) => [h.id, h.session]).sort()).toEqual([
          ["m1", "a"],
          ["m2", "a"],
          ["m3", "b"],
        ]);
        expect((await t.search(unit(1, 0, 0), { since: 1_002n }, 5)).map((h) => h.id).sort()).toEqual(["m2", "m3"]);
        expect(await t.idsBefore("a", 2n)).toEqual(["m1"]);
        await t.deleteBefore("a", 2n);
        expect(await ids(t)).toEqual(["m2", "m3"]);
        await t.deleteIds(["m3"]);
        expect(await ids(t)).toEqual(["m2"]);
        await t.append([row(4, "b", unit(0, 1, 1))]);
        expect(await ids(t)).toEqual(["m2", "m4"]);
        await expect(t.append([row(5, "b", unit(0, 1))])).rejects.toThrow("vector of 2 dimensions");
        await t.deleteIds(["m4"]);
        const scanned = (await Array.fromAsync(t.batches())).flat();
        expect(scanned.map((r) => r.id)).toEqual(["m2"]);
        expect(Array.from(scanned[0]!.vector)).toEqual(Array.from(unit(0, 0, 1)));
        await t.compact();
        expect(await t.count()).toBe(1);
        t.close();
        store.close();

        const again = await openMessageVectors(where);
        expect((await again.tables()).map((i) => i.embedderId)).toEqual(["e:1:3"]);
        const reopened = (await again.table("e:1:3", 3))!;
        expect(await ids(reopened)).toEqual(["m2"]);
        reopened.close();
        await again.drop("e:1:3");
        expect(await again.table("e:1:3", 3)).toBeUndefined();
        expect(await again.tables()).toEqual([]);
        again.close();
      },
      T,
    );

    test(
      "a vector of the wrong dimension is refused and nothing is written",
      async () => {
        const where = impl.fresh();
        const store = await openMessageVectors(where);
        const t = (await store.table("e:1:3", 3, { create: true }))!;
        await expect(t.upsert([row(1, "a", unit(1, 0, 0)), row(2, "a", unit(1, 0))])).rejects.toThrow(
          "vector of 2 dimensions for a 3-dimensional table",
        );
        expect(await t.count()).toBe(0);
        t.close();
        store.close();
        const errors = await openErrorVectors(where);
        await expect(
          errors.upsert("e:1:3", 3, [{ id: "x", vector: unit(1, 0, 0, 0) }], { replace: false }),
        ).rejects.toThrow("vector of 4 dimensions");
        expect(await errors.ids("e:1:3")).toEqual([]);
        errors.close();
      },
      T,
    );

    test(
      "error vectors: upsert, search among ids, sample, delete, keep one embedder",
      async () => {
        const where = impl.fresh();
        const errors = await openErrorVectors(where);
        expect(await errors.search("e:1:3", unit(1, 0, 0), 5)).toEqual([]);
        await errors.upsert(
          "e:1:3",
          3,
          [
            { id: "r1", vector: unit(1, 0, 0) },
            { id: "r2", vector: unit(0, 1, 0) },
            { id: "r3", vector: unit(1, 1, 0) },
          ],
          { replace: false },
        );
        await errors.upsert("e:1:3", 3, [{ id: "r2", vector: unit(0, 0, 1) }], { replace: true });
        await errors.upsert("old:1:2", 2, [{ id: "r1", vector: unit(1, 0) }], { replace: false });
        expect((await errors.ids("e:1:3")).sort()).toEqual(["r1", "r2", "r3"]);
        expect((await errors.search("e:1:3", unit(0, 0, 1), 1)).map((h) => h.id)).toEqual(["r2"]);
        expect((await errors.search("e:1:3", unit(1, 0, 0), 5, ["r2", "r3"])).map((h) => h.id)).toEqual(["r3", "r2"]);
        expect(await errors.sample("e:1:3", 2)).toHaveLength(2);
        expect(
          (await Array.fromAsync(errors.batches("e:1:3")))
            .flat()
            .map((r) => r.id)
            .sort(),
        ).toEqual(["r1", "r2", "r3"]);
        expect((await errors.tables()).map((t) => t.embedderId).sort()).toEqual(["e:1:3", "old:1:2"]);
        await errors.deleteIds(["r1"]);
        expect((await errors.ids("e:1:3")).sort()).toEqual(["r2", "r3"]);
        expect(await errors.ids("old:1:2")).toEqual([]);
        expect(await errors.dropAllBut("e:1:3")).toEqual(["old:1:2"]);
        await errors.maintain();
        errors.close();
        const again = await openErrorVectors(where);
        expect((await again.tables()).map((t) => t.embedderId)).toEqual(["e:1:3"]);
        expect((await again.ids("e:1:3")).sort()).toEqual(["r2", "r3"]);
        again.close();
      },
      T,
    );

    test(
      "a second connection sees another's writes: at once on a fresh table handle, within the bound on a held one",
      async () => {
        const where = impl.fresh();
        const writer = await openMessageVectors(where);
        const reader = await openMessageVectors(where);
        const w = (await writer.table("e:1:3", 3, { create: true }))!;
        await w.upsert([row(1, "a", unit(1, 0, 0))]);
        const held = (await reader.table("e:1:3", 3))!;
        expect(await held.count()).toBe(1);
        await w.upsert([row(2, "a", unit(0, 1, 0))]);
        // How the memory layer reads: a table handle per operation, which starts at the latest commit.
        const fresh = (await reader.table("e:1:3", 3))!;
        expect(await fresh.count()).toBe(2);
        fresh.close();
        if (where.kind === "s3") {
          // A long-lived handle re-checks after the read-consistency interval.
          expect(await within(BOUND_S * 1000 + 30_000, async () => (await held.count()) === 2)).toBe(true);
        }
        held.close();
        w.close();
        writer.close();
        reader.close();
      },
      T,
    );

    test(
      "error vectors kept open for searches: another connection's writes, deletes and drop are seen (at once here, within the bound on a held remote handle), its own writes at once",
      async () => {
        const where = impl.fresh();
        const writer = await openErrorVectors(where);
        const reader = await openErrorVectors(where);
        const bound = where.kind === "s3" ? BOUND_S * 1000 + 30_000 : 0;
        const found = async (v: Float32Array) => (await reader.search("e:1:3", v, 5)).map((h) => h.id).sort();
        await writer.upsert("e:1:3", 3, [{ id: "r1", vector: unit(1, 0, 0) }], { replace: false });
        expect(await found(unit(1, 0, 0))).toEqual(["r1"]);
        expect(await reader.sample("e:1:3", 8)).toHaveLength(1);
        await writer.upsert("e:1:3", 3, [{ id: "r2", vector: unit(0, 1, 0) }], { replace: false });
        expect(await within(bound, async () => (await found(unit(0, 1, 0))).join() === "r1,r2")).toBe(true);
        // The sample is read again once the table has changed.
        expect(await within(bound, async () => (await reader.sample("e:1:3", 8)).length === 2)).toBe(true);
        await reader.upsert("e:1:3", 3, [{ id: "r3", vector: unit(0, 0, 1) }], { replace: false });
        expect(await found(unit(0, 0, 1))).toEqual(["r1", "r2", "r3"]);
        expect(await reader.sample("e:1:3", 8)).toHaveLength(3);
        await writer.deleteIds(["r1"]);
        expect(await within(bound, async () => (await found(unit(1, 0, 0))).join() === "r2,r3")).toBe(true);
        await writer.upsert("other:1:2", 2, [{ id: "x", vector: unit(1, 0) }], { replace: false });
        expect(await writer.dropAllBut("other:1:2")).toEqual(["e:1:3"]);
        expect(await within(bound, async () => (await found(unit(1, 0, 0))).length === 0)).toBe(true);
        expect(await reader.sample("e:1:3", 8)).toEqual([]);
        writer.close();
        reader.close();
      },
      T,
    );

    test(
      "another process's writes are seen by this one",
      async () => {
        const where = impl.fresh();
        const store = await openMessageVectors(where);
        const t = (await store.table("e:1:3", 3, { create: true }))!;
        await t.upsert([row(1, "a", unit(1, 0, 0))]);
        const proc = Bun.spawn(
          [
            "bun",
            join(import.meta.dir, "../fixture/vector-writer-main.ts"),
            JSON.stringify(where),
            "e:1:3",
            "p1",
            "p2",
          ],
          { stdout: "pipe", stderr: "pipe" },
        );
        const code = await proc.exited;
        expect(code, await new Response(proc.stderr).text()).toBe(0);
        const fresh = (await store.table("e:1:3", 3))!;
        expect(await ids(fresh)).toEqual(["m1", "p1", "p2"]);
        expect((await fresh.search(unit(0, 0, 1), {}, 1))[0]!.session).toBe("other-host");
        fresh.close();
        t.close();
        store.close();
        const errors = await openErrorVectors(where);
        expect((await errors.ids("e:1:3")).sort()).toEqual(["p1", "p2"]);
        errors.close();
      },
      T,
    );
  });
}
