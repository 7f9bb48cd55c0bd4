// Speed of the semantic tier: bun bench/semantic.ts [--quick]
// builtin embedder throughput (one core), backfill of 100k queued messages (embed + LanceDB), semantic
// search latency over 100k vectors against raw LanceDB on the same table, and flat-scan latency by table size (why the ANN index starts at 50k).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openMemory } from "../src/app/open-memory.ts";
import { BuiltinEmbedder } from "../src/embed/builtin/builtin-embedder.ts";
import { candidateDepth } from "../src/search/semantic.ts";
import { loadLanceDb } from "../src/storage/lance/load-lancedb.ts";
import { tableNameFor, VectorStore } from "../src/storage/lance/vector-store.ts";
import { ANN_EF, ANN_MIN_ROWS, ANN_REFINE } from "../src/storage/lance/vector-table.ts";
import { sessionMessages } from "./lib/corpus.ts";
import { emitRows, log, quick, type BenchRow } from "./lib/report.ts";

const TOTAL = quick ? 6_000 : 100_000;
const SESSIONS = 100;
const QUERIES = quick ? 30 : 200;
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const rows: BenchRow[] = [];

const perSession = TOTAL / SESSIONS;
const corpus = Array.from({ length: SESSIONS }, (_, s) => sessionMessages(s, perSession, 11));
const texts = corpus.flat().map((m) => m.content);
const queries = Array.from({ length: QUERIES }, (_, i) =>
  texts[(i * 7919) % texts.length]!.split(" ").slice(2, 9).join(" "),
);

// 1. builtin embedder throughput, one thread
{
  const e = await BuiltinEmbedder.create();
  const sample = texts.slice(0, quick ? 5_000 : 50_000);
  await e.embed(sample.slice(0, 500));
  const t = performance.now();
  for (let i = 0; i < sample.length; i += 512) await e.embed(sample.slice(i, i + 512));
  const rate = sample.length / ((performance.now() - t) / 1000);
  log(`builtin embedder: ${fmt(rate)} messages/s (${sample.length} messages of ~200 chars)`);
  rows.push({
    name: "builtin embedder throughput (1 core)",
    value: `${fmt(rate)} msg/s`,
    target: ">= 5,000 msg/s",
    ok: rate >= 5000,
  });
}

// 2. backfill: TOTAL messages written with the drain off, then one drain (embed + upsert + ANN index)
const home = mkdtempSync(join(tmpdir(), "memvoy-bench-semantic-"));
try {
  const api = openMemory({ home, env: {}, drain: "off" });
  let t = performance.now();
  corpus.forEach((msgs, s) => {
    for (let i = 0; i < msgs.length; i += 500) api.add(`s${s}`, msgs.slice(i, i + 500));
  });
  log(`wrote ${TOTAL} messages in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  t = performance.now();
  const r = await api.drainEmbeddings();
  const secs = (performance.now() - t) / 1000;
  const indexSecs = (r.indexBuildMs ?? 0) / 1000;
  log(`backfill: ${r.embedded} embedded in ${secs.toFixed(1)} s (ANN index ${indexSecs.toFixed(1)} s of it)`);
  rows.push({
    name: `backfill ${fmt(TOTAL)} messages (embed + store)`,
    value: `${(secs - indexSecs).toFixed(1)} s (${fmt(r.embedded / (secs - indexSecs))} msg/s)`,
  });
  if (r.indexBuildMs !== undefined)
    rows.push({ name: `HNSW_SQ index build, ${fmt(TOTAL)} vectors`, value: `${indexSecs.toFixed(1)} s` });

  // 3. search latency through HomeMemory (embed the query, vector search, SQLite join, expansion), against
  // raw LanceDB on the same table: the same embedded query, distance, k (memvoy's candidate depth), ef and
  // refine, on a handle kept open; interleaved, the order rotating per query. The raw query reads the rows'
  // keys (id, seq, session, send_at); a second raw query reads only the columns memvoy reads (id, session),
  // so that memvoy's overhead is also shown apart from what it saves by reading less.
  const { lancedb } = await loadLanceDb();
  const embedder = await BuiltinEmbedder.create();
  // The same connection setting as memvoy's local store: every read checks for other processes' commits.
  const conn = await lancedb.connect(join(home, ".store", "lance"), { readConsistencyInterval: 0 });
  const raw = await conn.openTable(tableNameFor(embedder.id));
  const k = candidateDepth(10, false);
  const rawSearch = async (query: string, session: string | undefined, columns: string[]) => {
    const [qv] = await embedder.embed([query], undefined, "query");
    let q = raw
      .vectorSearch(Array.from(qv!))
      .distanceType("cosine")
      .ef(Math.max(ANN_EF, k * ANN_REFINE))
      .refineFactor(ANN_REFINE)
      .select(columns)
      .limit(k);
    if (session) q = q.where(`session = '${session}'`);
    return q.toArray();
  };
  const KEYS = ["id", "seq", "session", "send_at"];
  const SAME = ["id", "session"];
  // CPU time (user + system, every thread of this process: LanceDB's included) suffers less from other load.
  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const timed = async (run: () => Promise<unknown>, wall: number[], cpu: number[]) => {
    const c = cpuMs();
    const s = performance.now();
    await run();
    wall.push(performance.now() - s);
    cpu.push(cpuMs() - c);
  };
  for (const [label, session] of [
    ["all sessions", undefined],
    ["one session", "s7"],
  ] as const) {
    await api.search({ query: queries[0]!, match: "semantic", session });
    await rawSearch(queries[0]!, session, KEYS);
    await rawSearch(queries[0]!, session, SAME);
    const times: number[] = [];
    const rawTimes: number[] = [];
    const sameTimes: number[] = [];
    const cpu: number[] = [];
    const rawCpu: number[] = [];
    const sameCpu: number[] = [];
    for (const [i, q] of queries.entries()) {
      const runs = [
        () => timed(() => api.search({ query: q, match: "semantic", session, limit: 10 }), times, cpu),
        () => timed(() => rawSearch(q, session, KEYS), rawTimes, rawCpu),
        () => timed(() => rawSearch(q, session, SAME), sameTimes, sameCpu),
      ];
      for (let j = 0; j < runs.length; j++) await runs[(i + j) % runs.length]!();
    }
    const p50 = pct(times, 50);
    const rawP50 = pct(rawTimes, 50);
    const sameP50 = pct(sameTimes, 50);
    const ratio = p50 / rawP50;
    log(
      `semantic search, ${label}: p50 ${p50.toFixed(1)} ms, p95 ${pct(times, 95).toFixed(1)} ms; raw LanceDB p50 ${rawP50.toFixed(1)} ms; ${ratio.toFixed(2)}x (same columns: ${sameP50.toFixed(1)} ms, ${(p50 / sameP50).toFixed(2)}x)`,
    );
    const row: BenchRow = {
      name: `semantic search p50, ${fmt(TOTAL)} vectors, ${label}`,
      value: `${p50.toFixed(1)} ms (p95 ${pct(times, 95).toFixed(1)})`,
    };
    if (label === "all sessions") Object.assign(row, { target: "<= 25 ms", ok: p50 <= 25 });
    rows.push(row);
    rows.push({
      name: `raw LanceDB p50, same table, query vector, k=${k}, ef and refine, ${label}`,
      value: `${rawP50.toFixed(1)} ms`,
    });
    rows.push({
      name: `semantic p50 / raw LanceDB p50, ${label} (interleaved)`,
      value: `${ratio.toFixed(2)}x`,
      target: "<= 1.15x",
      ok: ratio <= 1.15,
    });
    rows.push({
      name: `semantic / raw LanceDB, CPU time p50 (user + system), ${label}`,
      value: `${pct(cpu, 50).toFixed(1)} / ${pct(rawCpu, 50).toFixed(1)} ms = ${(pct(cpu, 50) / pct(rawCpu, 50)).toFixed(2)}x`,
    });
    rows.push({
      name: `semantic p50 / raw LanceDB p50 reading memvoy's columns (id, session), ${label}`,
      value: `${(p50 / sameP50).toFixed(2)}x (raw ${sameP50.toFixed(1)} ms; CPU ${(pct(cpu, 50) / pct(sameCpu, 50)).toFixed(2)}x)`,
    });
  }
  raw.close();
  conn.close();
  api.close();

  // 4. flat scan by table size (no index), to place ANN_MIN_ROWS
  const store = await VectorStore.open(join(home, "flat"));
  const table = (await store.table("bench:flat:384", 384, { create: true }))!;
  const e = await BuiltinEmbedder.create();
  const qv = await e.embed(queries.slice(0, 20), undefined, "query");
  let filled = 0;
  for (const size of quick ? [2_000, 6_000] : [10_000, 25_000, 50_000, 100_000]) {
    for (; filled < size; filled += 1000) {
      const chunk = texts.slice(filled, filled + 1000);
      const vs = await e.embed(chunk);
      await table.upsert(
        chunk.map((c, i) => ({
          id: `f${filled + i}`,
          seq: BigInt(filled + i + 1),
          session: `s${(filled + i) % SESSIONS}`,
          sendAt: BigInt(filled + i),
          role: "user",
          content: c,
          vector: vs[i]!,
        })),
      );
    }
    await table.compact();
    const times: number[] = [];
    for (const v of qv) {
      const s = performance.now();
      await table.search(v, {}, 10);
      times.push(performance.now() - s);
    }
    log(`flat vector search over ${size}: p50 ${pct(times, 50).toFixed(1)} ms`);
    rows.push({
      name: `flat vector search (no index), ${fmt(size)} vectors`,
      value: `${pct(times, 50).toFixed(1)} ms`,
    });
  }
  log(`ANN_MIN_ROWS = ${ANN_MIN_ROWS}`);
  store.close();
} finally {
  rmSync(home, { recursive: true, force: true });
}
emitRows(rows);
