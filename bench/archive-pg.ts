// The archive on PostgreSQL against the embedded SQLite archive, on the same corpus, through the archive
// port: migrate-archive's copy rate into PostgreSQL, a single append, and keyword search (p50/p95). The
// server is a throwaway local cluster (the test helper), so network latency is a loopback's.
import { join } from "node:path";
import { migrateArchive } from "../src/app/migrate-archive.ts";
import { textQuery } from "../src/search/text-query.ts";
import type { ArchivePort } from "../src/storage/ports/archive-port.ts";
import { openPgArchive } from "../src/storage/postgres/open-pg-archive.ts";
import { openSqliteArchive } from "../src/storage/sqlite/sqlite-archive.ts";
import { postgresMissing, startPostgres } from "../test/fixture/postgres-server.ts";
import { ensureHome } from "./lib/ensure-home.ts";
import { benchQueries } from "./lib/queries.ts";
import { emitRows, log, quick, type BenchRow } from "./lib/report.ts";
import { countLabel, IMPORT_SPEC } from "./lib/sizes.ts";
import { fmtMs, summarize, timeMsAsync } from "./lib/stats.ts";

const REPS = quick ? 2 : 7;
const ADDS = quick ? 50 : 300;
const rows: BenchRow[] = [];
const missing = postgresMissing();
if (missing) {
  log(`archive-pg: skipped: ${missing}`);
  emitRows([{ name: "PostgreSQL archive", value: `skipped (${missing})` }]);
  process.exit(0);
}

const home = ensureHome(IMPORT_SPEC, rows);
const n = countLabel(IMPORT_SPEC.messages);
const server = await startPostgres();
try {
  const url = await server.createDatabase("bench");
  const t = performance.now();
  const copy = await migrateArchive({ home, env: { MEMVOY_ARCHIVE_URL: url }, batch: 2000 });
  const secs = (performance.now() - t) / 1000;
  rows.push({
    name: `migrate-archive ${n} messages into PostgreSQL`,
    value: `${Math.round(copy.total / secs).toLocaleString("en")} msg/s`,
  });

  const sqlite = openSqliteArchive(join(home, ".store", "history.db"));
  const pg = await openPgArchive(url);
  const backends: [string, ArchivePort][] = [
    ["SQLite", sqlite],
    ["PostgreSQL", pg],
  ];
  try {
    for (const [name, a] of backends) {
      const ms: number[] = [];
      for (let i = 0; i < ADDS; i++) {
        const now = BigInt(Date.now()) * 1_000_000n;
        const id = `bench-${name}-${process.pid}-${i}`;
        ms.push(
          await timeMsAsync(() =>
            a.appendMessages("bench-adds", [{ id, role: "user", content: `one more message ${i}`, sendAt: now }], {
              now,
            }),
          ),
        );
      }
      rows.push({ name: `single append p50, ${name} archive`, value: fmtMs(summarize(ms).p50) });
    }
    const queries = benchQueries(IMPORT_SPEC.sessions);
    const times = new Map<string, number[]>(backends.map(([name]) => [name, []]));
    for (let r = 0; r < REPS; r++) {
      for (const q of queries) {
        const query = textQuery(q.query);
        if (!query) continue;
        for (const [name, a] of backends)
          times.get(name)!.push(await timeMsAsync(() => a.searchText(query, { session: q.session, limit: 10 })));
      }
    }
    for (const [name, ms] of times) {
      const s = summarize(ms);
      rows.push({
        name: `keyword (port searchText, ${queries.length} queries) over ${n}, ${name}`,
        value: `p50 ${fmtMs(s.p50)}, p95 ${fmtMs(s.p95)}`,
      });
    }
  } finally {
    await sqlite.close();
    await pg.close();
  }
} finally {
  await server.stop();
}
emitRows(rows);
