// The vectors port on its two implementations: bun bench/vectors-s3.ts [--quick]
// Local LanceDB (.store/lance) against LanceDB on S3-compatible storage. The S3 figures are measured against a
// local test server (s3rver on 127.0.0.1, filesystem-backed), not a real object store: they show the cost of
// LanceDB's object-store path, not network latency.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { copyVectors } from "../src/memory/embedding/copy-vectors.ts";
import type { VectorLocation } from "../src/storage/ports/vector-location.ts";
import { openMessageVectors, type VectorRow } from "../src/storage/ports/vector-port.ts";
import { startS3Server } from "../test/fixture/s3-server.ts";
import { emitRows, log, quick, type BenchRow } from "./lib/report.ts";

const ROWS = quick ? 2_000 : 20_000;
const BATCH = 512;
const DIM = 384;
const QUERIES = quick ? 20 : 100;
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

const vec = (i: number) => {
  const v = Float32Array.from({ length: DIM }, (_, d) => Math.sin(i * 0.37 + d * 1.3));
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
const row = (i: number): VectorRow => ({
  id: `m${i}`,
  seq: BigInt(i),
  session: `s${i % 50}`,
  sendAt: BigInt(i),
  role: "user",
  content: "",
  vector: vec(i),
});

async function measure(label: string, where: VectorLocation, rows: BenchRow[]): Promise<void> {
  const store = await openMessageVectors(where);
  const t = (await store.table("bench:1:384", DIM, { create: true }))!;
  let started = performance.now();
  for (let i = 0; i < ROWS; i += BATCH)
    await t.upsert(Array.from({ length: Math.min(BATCH, ROWS - i) }, (_, k) => row(i + k)));
  const upsertRate = ROWS / ((performance.now() - started) / 1000);
  started = performance.now();
  await t.compact();
  const compactMs = performance.now() - started;
  const search: number[] = [];
  for (let q = 0; q < QUERIES; q++) {
    const s = performance.now();
    await t.search(vec(q * 7919 + 0.5), q % 2 ? { session: `s${q % 50}` } : {}, 10);
    search.push(performance.now() - s);
  }
  t.close();
  const open: number[] = [];
  for (let q = 0; q < 20; q++) {
    const s = performance.now();
    (await store.table("bench:1:384", DIM))!.close();
    open.push(performance.now() - s);
  }
  store.close();
  log(
    `${label}: upsert ${fmt(upsertRate)} rows/s, compact ${fmt(compactMs)} ms, search p50 ${pct(search, 50).toFixed(1)} ms p95 ${pct(search, 95).toFixed(1)} ms, open p50 ${pct(open, 50).toFixed(1)} ms`,
  );
  rows.push(
    { name: `${label}: upsert, batches of ${BATCH} (${DIM} dims)`, value: `${fmt(upsertRate)} rows/s` },
    {
      name: `${label}: flat search p50 / p95 over ${fmt(ROWS)}`,
      value: `${pct(search, 50).toFixed(1)} / ${pct(search, 95).toFixed(1)} ms`,
    },
    { name: `${label}: open a table p50`, value: `${pct(open, 50).toFixed(1)} ms` },
  );
}

const dir = mkdtempSync(join(tmpdir(), "memvoy-bench-vs3-"));
const s3 = await startS3Server();
const rows: BenchRow[] = [];
try {
  const local: VectorLocation = { kind: "local", dir: join(dir, "lance") };
  await measure("local LanceDB", local, rows);
  await measure("LanceDB on S3 (local test server)", s3.location("bench", 2), rows);
  const started = performance.now();
  await copyVectors(local, s3.location("bench-copy", 2));
  const rate = ROWS / ((performance.now() - started) / 1000);
  log(`copyVectors local -> S3 (local test server): ${fmt(rate)} rows/s`);
  rows.push({ name: "copyVectors local -> S3 (local test server)", value: `${fmt(rate)} rows/s` });
} finally {
  await s3.stop();
  rmSync(dir, { recursive: true, force: true });
}
emitRows(rows);
