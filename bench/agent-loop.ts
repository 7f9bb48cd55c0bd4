// An agent's turn in a long-lived process (the MCP server, the daemon's API): one add, then one search, on a
// copy of the 1M archived home; each search is run again at once (nothing written between), interleaved.
// Every add moves the database to a new state, so what was cached for the last state is gone. p50 / p95 of
// the searches' wall time.
import { cpSync, rmSync } from "node:fs";
import { openMemory } from "../src/app/open-memory.ts";
import { CORPUS_END_NS } from "./lib/build-home.ts";
import { ensureHome } from "./lib/ensure-home.ts";
import { scratchDir } from "./lib/home-cache.ts";
import { benchQueries } from "./lib/queries.ts";
import { emitRows, log, quick, type BenchRow } from "./lib/report.ts";
import { ARCHIVED_SPEC, IMPORT_SPEC } from "./lib/sizes.ts";
import { fmtMs, summarize } from "./lib/stats.ts";

const ROUNDS = quick ? 8 : 60;
const rows: BenchRow[] = [];
const source = ensureHome(ARCHIVED_SPEC, rows);
const home = scratchDir("agent-loop");
log("agent-loop: copying the archived home (the loop writes to it)");
cpSync(source, home, { recursive: true });
const queries = benchQueries(IMPORT_SPEC.sessions)
  .filter((q) => q.group === "selective")
  .map((q) => q.query);
let clock = CORPUS_END_NS;
const api = openMemory({ home, env: {}, now: () => clock, drain: "off" });
try {
  const afterAdd: number[] = [];
  const noWrite: number[] = [];
  const timed = async (query: string, into: number[]) => {
    const t = performance.now();
    await api.search({ query });
    into.push(performance.now() - t);
  };
  for (const q of queries) await api.search({ query: q }); // warm-up: the same pages and code for both series
  for (let i = 0; i < ROUNDS; i++) {
    const q = queries[i % queries.length]!;
    clock += 1_000_000_000n;
    api.add("agent-loop", {
      role: i % 2 ? "assistant" : "user",
      content: `turn ${i}: checking the ${q} notes`,
      sendAt: clock,
    });
    await timed(q, afterAdd);
    await timed(q, noWrite);
  }
  const a = summarize(afterAdd);
  const b = summarize(noWrite);
  rows.push({
    name: `agent loop, 1M archived home (a copy): keyword search right after an add, p50 / p95 (${ROUNDS} turns, the selective queries)`,
    value: `${fmtMs(a.p50)} / ${fmtMs(a.p95)}`,
  });
  rows.push({
    name: "agent loop, same runs: the same search again with no write between, p50 / p95; after-add / again at p50",
    value: `${fmtMs(b.p50)} / ${fmtMs(b.p95)}; ${(a.p50 / b.p50).toFixed(2)}x`,
  });
} finally {
  api.close();
  rmSync(home, { recursive: true, force: true });
}
emitRows(rows);
