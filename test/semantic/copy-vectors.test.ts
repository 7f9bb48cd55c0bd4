// copyVectors: a home's local vectors (message and error tables, two embedders) into LanceDB on S3; an
// interrupted copy resumes without writing twice, and every source id is verified in the target.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { homePaths } from "../../src/config/home.ts";
import { validateConfig } from "../../src/config/load.ts";
import { copyVectors, type VectorCopyProgress } from "../../src/memory/embedding/copy-vectors.ts";
import { migrateVectors } from "../../src/memory/embedding/migrate-vectors.ts";
import { openErrorVectors, openMessageVectors, type VectorRow } from "../../src/storage/ports/vector-port.ts";
import type { VectorLocation } from "../../src/storage/ports/vector-location.ts";
import { startS3Server, type S3Server } from "../fixture/s3-server.ts";

const T = 180_000;
let s3: S3Server;
const dirs: string[] = [];
beforeAll(async () => {
  s3 = await startS3Server();
}, T);
afterAll(async () => {
  await s3?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function localStore(): VectorLocation {
  const d = mkdtempSync(join(tmpdir(), "memvoy-copy-"));
  dirs.push(d);
  return { kind: "local", dir: join(d, "lance") };
}

const vec = (i: number, dim: number) => Float32Array.from({ length: dim }, (_, d) => Math.sin(i * 7 + d) + 1.5);
const row = (i: number, dim: number): VectorRow => ({
  id: `m${i}`,
  seq: BigInt(i),
  session: `s${i % 3}`,
  sendAt: BigInt(i),
  role: "user",
  content: "",
  vector: vec(i, dim),
});

async function fill(where: VectorLocation): Promise<void> {
  const messages = await openMessageVectors(where);
  const a = (await messages.table("a:1:4", 4, { create: true }))!;
  await a.upsert(Array.from({ length: 300 }, (_, i) => row(i, 4)));
  a.close();
  const b = (await messages.table("b:1:2", 2, { create: true }))!;
  await b.upsert(Array.from({ length: 20 }, (_, i) => row(i, 2)));
  b.close();
  messages.close();
  const errors = await openErrorVectors(where);
  await errors.upsert(
    "a:1:4",
    4,
    Array.from({ length: 40 }, (_, i) => ({ id: `r${i}`, vector: vec(i, 4) })),
    {
      replace: false,
    },
  );
  errors.close();
}

test(
  "copies every table, resumes after an interruption, verifies ids; searches on the copy match the source",
  async () => {
    const from = localStore();
    await fill(from);
    const to = s3.location("copy-target");
    // An earlier run stopped part-way: the target holds some of the rows already.
    const early = await openMessageVectors(to);
    const partial = (await early.table("a:1:4", 4, { create: true }))!;
    await partial.upsert(Array.from({ length: 120 }, (_, i) => row(i, 4)));
    partial.close();
    early.close();

    const seen: VectorCopyProgress[] = [];
    const report = await copyVectors(from, to, (p) => seen.push(p));
    const by = (kind: string, id: string) => report.find((t) => t.kind === kind && t.embedderId === id)!;
    expect(by("messages", "a:1:4")).toEqual({
      kind: "messages",
      embedderId: "a:1:4",
      source: 300,
      copied: 180,
      present: 120,
    });
    expect(by("messages", "b:1:2")).toMatchObject({ source: 20, copied: 20, present: 0 });
    expect(by("errors", "a:1:4")).toMatchObject({ source: 40, copied: 40, present: 0 });
    const last = seen.filter((p) => p.kind === "messages" && p.embedderId === "a:1:4").at(-1)!;
    // The 120 rows found in the target count as done, and as skipped (not copied by this run).
    expect(last).toEqual({ kind: "messages", embedderId: "a:1:4", done: 300, skipped: 120, total: 300 });

    const copy = await openMessageVectors(to);
    const src = await openMessageVectors(from);
    const [ta, sa] = [(await copy.table("a:1:4", 4))!, (await src.table("a:1:4", 4))!];
    expect(await ta.count()).toBe(300);
    const q = vec(42, 4);
    expect((await ta.search(q, { session: "s0" }, 5)).map((h) => h.id)).toEqual(
      (await sa.search(q, { session: "s0" }, 5)).map((h) => h.id),
    );
    ta.close();
    sa.close();
    copy.close();
    src.close();

    // Run again: nothing left to write.
    const again = await copyVectors(from, to);
    expect(again.every((t) => t.copied === 0 && t.present === t.source)).toBe(true);
  },
  T,
);

test("a home that never stored a vector copies nothing and creates no folder", async () => {
  const from = localStore();
  expect(await copyVectors(from, s3.location("empty-target"))).toEqual([]);
  expect(existsSync((from as { dir: string }).dir)).toBe(false);
});

test(
  "migrate-archive's vector step: the home's vectors into [vectors] uri; nothing while the vectors stay local",
  async () => {
    const home = mkdtempSync(join(tmpdir(), "memvoy-migvec-"));
    dirs.push(home);
    const paths = homePaths(home);
    await fill({ kind: "local", dir: paths.lance });
    const local = validateConfig({}, "test");
    expect(await migrateVectors({ home: paths, config: local })).toEqual({ copied: 0 });
    const shared = validateConfig(
      { vectors: { uri: `s3://${s3.bucket}/migrated`, endpoint: s3.endpoint, allow_http: true } },
      "test",
    );
    const progress: number[] = [];
    const r = await migrateVectors({ home: paths, config: shared, env: s3.env, onProgress: (d) => progress.push(d) });
    expect(r).toEqual({ copied: 360 });
    expect(progress.length).toBeGreaterThan(0);
    expect(await migrateVectors({ home: paths, config: shared, env: s3.env })).toEqual({ copied: 0 });
  },
  T,
);
