// Symbol queries over 1M archived messages (the home bench/keyword.ts builds), keyword search in-process,
// read only. Contenders, interleaved query by query: memvoy with the substring index, and memvoy as it
// searches before that index is built (the word index where the query has words, else a newest-first LIKE
// scan of the archive). The corpus holds none of `<`, `&&`, `->`, `::`, `#123`, `C++`, `.env`: those rows
// measure a needle found nowhere (a scan's worst case); `?` and `,` are punctuation it does hold.
// bun bench/symbols.ts [--quick]
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { keywordSearch } from "../src/search/keyword.ts";
import { ensureHome } from "./lib/ensure-home.ts";
import { substringIndexSize, upgradeIndexes } from "./lib/index-build.ts";
import { emitRows, log, quick, type BenchRow } from "./lib/report.ts";
import { fmtMiB } from "./lib/rss.ts";
import { ARCHIVED_SPEC, countLabel } from "./lib/sizes.ts";
import { fmtMs, summarize } from "./lib/stats.ts";

const REPS = quick ? 2 : 7;
/** Runs of the scan contender per query (a scan of 1M rows takes seconds). */
const SCAN_REPS = quick ? 1 : 2;
/** 3× the selective all-session keyword budget (p50 ≤ 6 ms, p95 ≤ 25 ms). */
const TARGET = { p50: 18, p95: 75 };
const rows: BenchRow[] = [];
const home = ensureHome(ARCHIVED_SPEC, rows);
await upgradeIndexes(home, "archived", rows);
const size = substringIndexSize(home);
const open = () => new Database(join(home, ".store", "history.db"), { readonly: true, safeIntegers: true });
const db = open();
// The contender: a connection that sees the substring index as not built yet (a temp table shadows its state).
const before = open();
before.run("CREATE TEMP TABLE trigram_build (id INTEGER PRIMARY KEY, cursor INTEGER NOT NULL, done INTEGER NOT NULL)");
before.run("INSERT INTO temp.trigram_build VALUES (1, 0, 0)");
for (const d of [db, before]) d.run("PRAGMA cache_size = -65536");
const session = (db.query("SELECT session_id FROM messages ORDER BY seq DESC LIMIT 1").get() as { session_id: string })
  .session_id;
const now = BigInt(Date.now()) * 1_000_000n;
const n = countLabel(ARCHIVED_SPEC.messages);

const GROUPS = {
  "symbols only (<, &&, ->, ::)": ["<", "&&", "->", "::"],
  "with a word part (#123, C++, .env, c > d)": ["#123", "C++", ".env", "c > d"],
  "punctuation the corpus holds (?, ,)": ["?", ","],
};
const run = (d: Database, query: string, scope: string) => {
  const t0 = performance.now();
  const hits = keywordSearch(d, { query, session: scope === "one session" ? session : undefined, limit: 10, now });
  return { ms: performance.now() - t0, hits: hits.length };
};
for (const scope of ["all sessions", "one session"] as const) {
  for (const [group, queries] of Object.entries(GROUPS)) {
    const indexed: number[] = [];
    const scanned: number[] = [];
    for (const query of queries) {
      const first = run(db, query, scope);
      const old = run(before, query, scope);
      if (first.hits !== old.hits)
        log(`symbols: ${JSON.stringify(query)} (${scope}): ${first.hits} hits, ${old.hits} before the index`);
      for (let i = 0; i < REPS; i++) {
        indexed.push(run(db, query, scope).ms);
        if (i < SCAN_REPS) scanned.push(run(before, query, scope).ms);
      }
      log(`symbols: ${JSON.stringify(query)} (${scope}): ${first.hits} hits`);
    }
    const a = summarize(indexed);
    const b = summarize(scanned);
    const limited = !group.startsWith("punctuation");
    rows.push({
      name: `symbol queries, ${n} archived, ${scope}, ${group}: p50 / p95; before the substring index p50 / p95 (ratio of p50)`,
      value: `${fmtMs(a.p50)} / ${fmtMs(a.p95)}; ${fmtMs(b.p50)} / ${fmtMs(b.p95)} (${(b.p50 / a.p50).toFixed(0)}x)`,
      ...(limited
        ? { target: `<= ${TARGET.p50} ms / <= ${TARGET.p95} ms`, ok: a.p50 <= TARGET.p50 && a.p95 <= TARGET.p95 }
        : {}),
    });
  }
}
db.close();
before.close();
rows.push({
  name: `substring index size, ${n} messages`,
  value: `${fmtMiB(size.index)} of a ${fmtMiB(size.db)} database`,
});
for (const r of rows) log(`${r.name}: ${r.value}${r.target ? ` (${r.target}: ${r.ok ? "ok" : "NOT MET"})` : ""}`);
emitRows(rows);
