// Symbol queries over 1M archived messages (the home bench/keyword.ts builds): a query of symbols only
// (`<`, `&&`, `->`, `::`) cannot use the word index and scans the archive newest first; with a word part
// (`#123`, `C++`, `.env`) the scan is narrowed by the same SQL filter. Keyword search in-process, read only.
// bun bench/symbols.ts [--quick]
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { keywordSearch } from "../src/search/keyword.ts";
import { ensureHome } from "./lib/ensure-home.ts";
import { emitRows, log, quick, type BenchRow } from "./lib/report.ts";
import { ARCHIVED_SPEC, countLabel } from "./lib/sizes.ts";
import { fmtMs, percentile } from "./lib/stats.ts";

const REPS = quick ? 2 : 7;
/** 3× the selective all-session keyword budget (p95 ≤ 25 ms). */
const TARGET_MS = 75;
const rows: BenchRow[] = [];
const home = ensureHome(ARCHIVED_SPEC, rows);
const db = new Database(join(home, ".store", "history.db"), { readonly: true, safeIntegers: true });
const session = (db.query("SELECT session_id FROM messages ORDER BY seq DESC LIMIT 1").get() as { session_id: string })
  .session_id;
const now = BigInt(Date.now()) * 1_000_000n;
const n = countLabel(ARCHIVED_SPEC.messages);

const GROUPS = {
  "symbols only (<, &&, ->, ::)": ["<", "&&", "->", "::"],
  "with a word part (#123, C++, .env)": ["#123", "C++", ".env"],
};
for (const scope of ["all sessions", "one session"] as const) {
  for (const [group, queries] of Object.entries(GROUPS)) {
    const times: number[] = [];
    for (const query of queries) {
      for (let i = 0; i < REPS; i++) {
        const t0 = performance.now();
        const hits = keywordSearch(db, {
          query,
          session: scope === "one session" ? session : undefined,
          limit: 10,
          now,
        });
        times.push(performance.now() - t0);
        if (i === 0) log(`symbols: ${JSON.stringify(query)} (${scope}): ${hits.length} hits`);
      }
    }
    times.sort((a, b) => a - b);
    const p50 = percentile(times, 50);
    const p95 = percentile(times, 95);
    rows.push({
      name: `symbol queries, ${n} archived, ${scope}, ${group}: p50 / p95`,
      value: `${fmtMs(p50)} / ${fmtMs(p95)}`,
      target: `p95 <= ${TARGET_MS} ms`,
      ok: p95 <= TARGET_MS,
    });
  }
}
db.close();
for (const r of rows) log(`${r.name}: ${r.value}${r.target ? ` (${r.target}: ${r.ok ? "ok" : "NOT MET"})` : ""}`);
emitRows(rows);
