// PostgreSQL + S3 against the embedded default (SQLite + local LanceDB) on the same corpus, in one run:
// bun bench/archive-pg.ts [--quick]. migrate-archive of the corpus home into PostgreSQL (and its vectors into
// S3), then, interleaved per operation: import through the archive port, a single append, selective keyword
// queries, semantic search through the vector port. The memory layer itself still runs on SQLite, so the
// shared-side rows are measured through the ports ("port-level"). PostgreSQL is a throwaway local cluster
// (loopback latency); S3 is a local test server (s3rver on 127.0.0.1), not a real object store.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrateArchive } from "../src/app/migrate-archive.ts";
import { openMemory } from "../src/app/open-memory.ts";
import { openSharedHome } from "../src/app/shared/open-shared.ts";
import { copyVectors } from "../src/memory/embedding/copy-vectors.ts";
import { textQuery } from "../src/search/text-query.ts";
import type { ArchivePort, NewMessage } from "../src/storage/ports/archive-port.ts";
import { openMessageVectors, type VectorLocation, type VectorRow } from "../src/storage/ports/vector-port.ts";
import { openPgArchive } from "../src/storage/postgres/open-pg-archive.ts";
import { openSqliteArchive } from "../src/storage/sqlite/sqlite-archive.ts";
import { postgresMissing, startPostgres } from "../test/fixture/postgres-server.ts";
import { startS3Server } from "../test/fixture/s3-server.ts";
import { CORPUS_END_NS, sessionName } from "./lib/build-home.ts";
import { sessionStream } from "./lib/corpus.ts";
import { ensureHome } from "./lib/ensure-home.ts";
import { benchQueries } from "./lib/queries.ts";
import { emitRows, log, quick, type BenchRow } from "./lib/report.ts";
import { countLabel, IMPORT_SPEC } from "./lib/sizes.ts";
import { fmtInt, fmtMs, summarize, timeMsAsync } from "./lib/stats.ts";

const REPS = quick ? 2 : 5;
const ADDS = quick ? 50 : 300;
const PORT_IMPORT = quick ? 10_000 : 100_000;
const PORT_BATCH = quick ? 100 : 500;
const VECTORS = quick ? 5_000 : 100_000;
const DIM = 384;
const SEMANTIC_QUERIES = quick ? 30 : 200;
const rows: BenchRow[] = [];
/** A row for the table, also logged at once (a long run interrupted keeps what it measured). */
const report = (...measured: BenchRow[]) => {
  for (const r of measured) log(`  ${r.name}: ${r.value}`);
  rows.push(...measured);
};
const missing = postgresMissing();
if (missing) {
  log(`archive-pg: skipped: ${missing}`);
  emitRows([{ name: "PostgreSQL + S3 against the embedded default", value: `skipped (${missing})` }]);
  process.exit(0);
}

const ratio = (shared: number, embedded: number) => `${(shared / embedded).toFixed(1)}x`;
const home = ensureHome(IMPORT_SPEC, rows);
const n = countLabel(IMPORT_SPEC.messages);
const scratch = mkdtempSync(join(tmpdir(), "memvoy-bench-shared-"));
const server = await startPostgres();
const s3 = await startS3Server();
const s3Env = {
  ...s3.env,
  MEMVOY_VECTORS_URI: `s3://${s3.bucket}/migrated`,
  MEMVOY_VECTORS_ENDPOINT: s3.endpoint,
  MEMVOY_VECTORS_ALLOW_HTTP: "true",
};
const opened: ArchivePort[] = [];
try {
  // 1. migrate-archive: the home's archive into PostgreSQL, its vectors (if any) into S3.
  const url = await server.createDatabase("bench");
  const t = performance.now();
  const copy = await migrateArchive({
    home,
    env: { ...s3Env, MEMVOY_ARCHIVE_URL: url },
    batch: 2000,
    onProgress: (done, total) => {
      if (done % 100_000 < 2000) log(`  migrate-archive: ${fmtInt(done)} / ${fmtInt(total)}`);
    },
  });
  const migrateSecs = (performance.now() - t) / 1000;
  report({
    name: `migrate-archive ${n} messages into PostgreSQL, counts verified`,
    value: `${fmtInt(copy.total / migrateSecs)} msg/s (${migrateSecs.toFixed(0)} s)`,
  });

  // 2. Import through the archive port, interleaved batch by batch: fresh SQLite file, fresh database.
  const freshSqlite = openSqliteArchive(join(scratch, "import", ".store", "history.db"));
  const freshPg = await openPgArchive(await server.createDatabase("bench_import"));
  opened.push(freshSqlite, freshPg);
  const importMs = { sqlite: 0, pg: 0 };
  const streams = Array.from({ length: IMPORT_SPEC.sessions }, (_, k) => sessionStream(k, 7));
  for (let done = 0, k = 0; done < PORT_IMPORT; k = (k + 1) % IMPORT_SPEC.sessions) {
    const now = CORPUS_END_NS + BigInt(done);
    const batch: NewMessage[] = Array.from({ length: Math.min(PORT_BATCH, PORT_IMPORT - done) }, (_, i) => ({
      ...streams[k]!(),
      id: `imp-${done + i}`,
      sendAt: now + BigInt(i),
    }));
    const session = `imp-${sessionName(k)}`;
    importMs.sqlite += await timeMsAsync(() => freshSqlite.appendMessages(session, batch, { now }));
    importMs.pg += await timeMsAsync(() => freshPg.appendMessages(session, batch, { now }));
    done += batch.length;
  }
  const importRate = { sqlite: PORT_IMPORT / (importMs.sqlite / 1000), pg: PORT_IMPORT / (importMs.pg / 1000) };
  const importLabel = `port-level append import, ${countLabel(PORT_IMPORT)} msgs in batches of ${PORT_BATCH}`;
  report(
    { name: `${importLabel}, SQLite (embedded)`, value: `${fmtInt(importRate.sqlite)} msg/s` },
    {
      name: `${importLabel}, PostgreSQL`,
      value: `${fmtInt(importRate.pg)} msg/s (${ratio(importRate.sqlite, importRate.pg)} slower)`,
    },
  );

  // 3. and 4. On the full corpus: a copy of the home's SQLite file, and the migrated database.
  const dbCopy = join(scratch, "full", ".store", "history.db");
  mkdirSync(join(scratch, "full", ".store"), { recursive: true, mode: 0o700 });
  for (const suffix of ["", "-wal"]) {
    const from = join(home, ".store", `history.db${suffix}`);
    if (existsSync(from)) copyFileSync(from, dbCopy + suffix);
  }
  const sqlite = openSqliteArchive(dbCopy);
  const pg = await openPgArchive(url);
  opened.push(sqlite, pg);
  const backends: [string, ArchivePort][] = [
    ["SQLite (embedded)", sqlite],
    ["PostgreSQL", pg],
  ];
  const adds = new Map<string, number[]>(backends.map(([name]) => [name, []]));
  for (let i = 0; i < ADDS; i++) {
    for (const [name, a] of backends) {
      const now = CORPUS_END_NS + BigInt(i);
      const m: NewMessage = { id: `add-${i}`, role: "user", content: `one more message ${i}`, sendAt: now };
      adds.get(name)!.push(await timeMsAsync(() => a.appendMessages("bench-adds", [m], { now })));
    }
  }
  const addP50 = backends.map(([name]) => summarize(adds.get(name)!).p50);
  for (const [i, [name]] of backends.entries())
    report({
      name: `port-level single append p50 over ${n}, ${name}`,
      value: i === 0 ? fmtMs(addP50[0]!) : `${fmtMs(addP50[1]!)} (${ratio(addP50[1]!, addP50[0]!)})`,
    });

  const queries = benchQueries(IMPORT_SPEC.sessions).filter((q) => q.group === "selective");
  const times = new Map<string, number[]>(backends.map(([name]) => [name, []]));
  for (let r = 0; r < REPS; r++) {
    for (const q of queries) {
      const query = textQuery(q.query);
      if (!query) continue;
      for (const [name, a] of backends)
        times.get(name)!.push(await timeMsAsync(() => a.searchText(query, { session: q.session, limit: 10 })));
    }
  }
  const kw = backends.map(([name]) => summarize(times.get(name)!));
  for (const i of [0, 1])
    report({
      name: `keyword via the port, ${queries.length} selective queries over ${n}, ${i === 0 ? "SQLite FTS5" : "PostgreSQL FTS (GIN)"}`,
      value: `p50 ${fmtMs(kw[i]!.p50)}, p95 ${fmtMs(kw[i]!.p95)}${i === 0 ? "" : ` (p50 ${ratio(kw[1]!.p50, kw[0]!.p50)})`}`,
    });

  // 5. The whole memory, as agents use it: HomeMemory on the copy of the home's archive against the shared
  // memory (SharedHome) on the migrated database, interleaved: a single add (the shared side takes the
  // session's advisory lock and rewrites this host's history.json from the archive) and keyword search.
  await wholeMemory(join(scratch, "full"), join(scratch, "shared-home"), url, queries);

  // 6. Semantic: synthetic vectors in local LanceDB, copied to S3 by copyVectors; searches interleaved.
  await semantic(join(scratch, "lance"));
} finally {
  for (const a of opened) await a.close().catch(() => {});
  await s3.stop();
  await server.stop();
  rmSync(scratch, { recursive: true, force: true });
}
emitRows(rows);

async function wholeMemory(
  embeddedHome: string,
  sharedHomeDir: string,
  url: string,
  queries: ReturnType<typeof benchQueries>,
): Promise<void> {
  const embedded = openMemory({ home: embeddedHome, env: {}, drain: "off" });
  const shared = await openSharedHome({ home: sharedHomeDir, env: { ...s3Env, MEMVOY_ARCHIVE_URL: url } });
  try {
    const sides: [string, (m: { role: "user"; content: string }) => Promise<unknown>][] = [
      ["embedded (HomeMemory)", async (m) => embedded.add("bench-api-adds", m)],
      ["shared (PostgreSQL + S3)", (m) => shared.add("bench-api-adds", m)],
    ];
    const adds = new Map<string, number[]>(sides.map(([name]) => [name, []]));
    for (let i = 0; i < ADDS; i++)
      for (const [name, add] of sides)
        adds.get(name)!.push(await timeMsAsync(() => add({ role: "user", content: `one more message ${i}` })));
    const [a, b] = sides.map(([name]) => summarize(adds.get(name)!).p50) as [number, number];
    report({
      name: `single add p50 through the memory (history.json rewritten), over ${n}: embedded / shared`,
      value: `${fmtMs(a)} / ${fmtMs(b)} (${ratio(b, a)})`,
    });
    const searchers: [string, (q: (typeof queries)[number]) => Promise<unknown>][] = [
      ["embedded", (q) => embedded.search({ query: q.query, match: "keyword", session: q.session, limit: 10 })],
      ["shared", (q) => shared.search({ query: q.query, match: "keyword", session: q.session, limit: 10 })],
    ];
    const times = new Map<string, number[]>(searchers.map(([name]) => [name, []]));
    for (const q of queries) for (const [, search] of searchers) await search(q); // warm-up
    for (let r = 0; r < REPS; r++)
      for (const q of queries)
        for (const [name, search] of searchers) times.get(name)!.push(await timeMsAsync(() => search(q)));
    const [e, sh] = searchers.map(([name]) => summarize(times.get(name)!));
    report({
      name: `keyword search through the memory, ${queries.length} selective queries over ${n}, p50 / p95: embedded / shared`,
      value: `${fmtMs(e!.p50)} / ${fmtMs(e!.p95)}; ${fmtMs(sh!.p50)} / ${fmtMs(sh!.p95)} (p50 ${ratio(sh!.p50, e!.p50)})`,
    });
  } finally {
    embedded.close();
    await shared.close();
  }
}

async function semantic(dir: string): Promise<void> {
  const vec = (i: number) => {
    const v = Float32Array.from({ length: DIM }, (_, d) => Math.sin(i * 0.37 + d * 1.3) + Math.cos(i * 0.011 * d));
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  };
  const local: VectorLocation = { kind: "local", dir };
  const remote = s3.location("bench-vectors", 1);
  const store = await openMessageVectors(local);
  const table = (await store.table("bench:1:384", DIM, { create: true }))!;
  for (let i = 0; i < VECTORS; i += 8192) {
    const batch: VectorRow[] = Array.from({ length: Math.min(8192, VECTORS - i) }, (_, k) => ({
      id: `v${i + k}`,
      seq: BigInt(i + k),
      session: `s${(i + k) % 100}`,
      sendAt: BigInt(i + k),
      role: "user",
      content: "",
      vector: vec(i + k),
    }));
    await table.append(batch);
  }
  await table.maintain();
  table.close();
  const t = performance.now();
  await copyVectors(local, remote);
  const copySecs = (performance.now() - t) / 1000;
  report({
    name: `copyVectors ${countLabel(VECTORS)} vectors (${DIM} dims) local -> S3 (local test server), index included`,
    value: `${fmtInt(VECTORS / copySecs)} rows/s (${copySecs.toFixed(0)} s)`,
  });
  const remoteStore = await openMessageVectors(remote);
  const tables: [string, Awaited<ReturnType<typeof store.table>>][] = [
    ["local LanceDB (embedded)", await store.table("bench:1:384", DIM)],
    ["LanceDB on S3 (local test server)", await remoteStore.table("bench:1:384", DIM)],
  ];
  const ms = new Map<string, number[]>(tables.map(([name]) => [name, []]));
  for (let q = 0; q < SEMANTIC_QUERIES; q++) {
    const query = vec(q * 7919 + 0.5);
    for (const [name, tbl] of tables)
      ms.get(name)!.push(await timeMsAsync(() => tbl!.search(query, q % 2 ? { session: `s${q % 100}` } : {}, 10)));
  }
  const s = tables.map(([name]) => summarize(ms.get(name)!));
  for (const [i, [name, tbl]] of tables.entries()) {
    report({
      name: `semantic via the vector port, ${countLabel(VECTORS)} synthetic vectors (${(await tbl!.hasIndex()) ? "HNSW" : "flat"}), ${name}`,
      value: `p50 ${fmtMs(s[i]!.p50)}, p95 ${fmtMs(s[i]!.p95)}${i === 0 ? "" : ` (p50 ${ratio(s[1]!.p50, s[0]!.p50)})`}`,
    });
    tbl!.close();
  }
  store.close();
  remoteStore.close();
}
