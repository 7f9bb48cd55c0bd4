// Keyword search over 1M archived messages (and over the same messages with the default history limit),
// with the same searches run by rg over a JSONL export for comparison.
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { openMemory } from "../src/app/open-memory.ts";
import { CORPUS_END_NS } from "./lib/build-home.ts";
import { EXPORT_FILE, exportJsonl } from "./lib/build-cli.ts";
import { ensureHome } from "./lib/ensure-home.ts";
import { benchQueries, rgCommand, type BenchQuery, type QueryGroup } from "./lib/queries.ts";
import { emitRows, log, quick, type BenchRow } from "./lib/report.ts";
import { fmtMiB, peakRssBytes } from "./lib/rss.ts";
import { ARCHIVED_MAX_HISTORY_BYTES, ARCHIVED_SPEC, countLabel, IMPORT_SPEC } from "./lib/sizes.ts";
import { fmtMs, summarize } from "./lib/stats.ts";

const REPS = quick ? 2 : 7;
const rows: BenchRow[] = [];
const archivedHome = ensureHome(ARCHIVED_SPEC, rows, { exportJsonl: true });
const defaultHome = ensureHome(IMPORT_SPEC, rows);
const exportFile = join(archivedHome, EXPORT_FILE);
if (!existsSync(exportFile)) exportJsonl(archivedHome);
const queries = benchQueries(IMPORT_SPEC.sessions);
const n = countLabel(IMPORT_SPEC.messages);

function homeFacts(home: string): { archived: number; total: number; errorShare: number } {
  const db = new Database(join(home, ".store", "history.db"), { readonly: true });
  try {
    const c = db.query("SELECT count(*) AS total, sum(recent = 0) AS archived FROM messages").get() as { total: number; archived: number };
    const e = db.query("SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH 'error'").get() as { n: number };
    return { archived: c.archived, total: c.total, errorShare: e.n / c.total };
  } finally {
    db.close();
  }
}

async function timeSearches(home: string): Promise<Map<BenchQuery, number[]>> {
  const api = openMemory({ home, env: {}, now: () => CORPUS_END_NS });
  const out = new Map<BenchQuery, number[]>();
  try {
    for (const q of queries) {
      const opts = { query: q.query, session: q.session, range: q.range, limit: 10 };
      await api.search(opts); // warm-up (page cache, statement cache)
      const times: number[] = [];
      for (let i = 0; i < REPS; i++) {
        const t = performance.now();
        await api.search(opts);
        times.push(performance.now() - t);
      }
      out.set(q, times);
    }
  } finally {
    api.close();
  }
  return out;
}

const rgCounts = new Map<BenchQuery, number>();

function timeRg(): Map<BenchQuery, number> {
  const out = new Map<BenchQuery, number>();
  if (!Bun.which("rg")) {
    log("keyword: rg is not on PATH (Debian package ripgrep): the rg comparison is skipped");
    return out;
  }
  for (const q of queries) {
    const cmd = rgCommand(q, exportFile);
    if (!cmd) continue;
    const times: number[] = [];
    for (let i = 0; i <= Math.min(REPS, 3); i++) {
      const t = performance.now();
      const r = Bun.spawnSync(["sh", "-c", cmd], { stdout: "pipe", stderr: "pipe" });
      const ms = performance.now() - t;
      if (r.exitCode !== 0 && r.exitCode !== 1) throw new Error(`rg failed (${r.exitCode}): ${cmd}\n${r.stderr}`);
      if (i > 0) times.push(ms); // the first run warms the page cache
      rgCounts.set(q, Number(r.stdout.toString().trim()));
    }
    out.set(q, summarize(times).p50);
  }
  return out;
}

const label = (q: BenchQuery) => `${JSON.stringify(q.query)}${q.session ? ` in ${q.session}` : ""}${q.range ? ` ${q.range}` : ""}`;
const group = (m: Map<BenchQuery, number[]>, g: QueryGroup) => summarize([...m].filter(([q]) => q.group === g).flatMap(([, t]) => t));
const p50Of = (m: Map<BenchQuery, number[]>, q: BenchQuery) => summarize(m.get(q)!).p50;

const archivedFacts = homeFacts(archivedHome);
const defaultFacts = homeFacts(defaultHome);
log(`keyword: archived home ${archivedFacts.archived}/${archivedFacts.total} archived; default home ${defaultFacts.archived}/${defaultFacts.total}`);
const archived = await timeSearches(archivedHome);
const byDefault = await timeSearches(defaultHome);
const rg = timeRg();

log("\n| query | group | memvoy p50 (archived) | memvoy p50 (default limit) | rg p50 | rg / memvoy | rg lines |");
log("|---|---|---|---|---|---|---|");
for (const q of queries) {
  const a = p50Of(archived, q);
  const r = rg.get(q);
  log(`| ${label(q)} | ${q.group} | ${fmtMs(a)} | ${fmtMs(p50Of(byDefault, q))} | ${r === undefined ? "-" : fmtMs(r)} | ${r === undefined ? "-" : (r / a).toFixed(0) + "x"} | ${rgCounts.get(q) ?? "-"} |`);
}

const where = `${n} msgs, max_history_bytes=${ARCHIVED_MAX_HISTORY_BYTES} (${((100 * archivedFacts.archived) / archivedFacts.total).toFixed(1)}% archived)`;
const sel = group(archived, "selective");
const ses = group(archived, "session");
const rng = group(archived, "range");
const common = queries.find((q) => q.group === "common" && q.query === "error")!;
const commonMs = p50Of(archived, common);
const veryCommon = queries.find((q) => q.group === "common" && q.query === "deploy")!;
const ratios = queries.filter((q) => q.group === "selective" && rg.has(q)).map((q) => rg.get(q)! / p50Of(archived, q));
const ratioP50 = ratios.length ? summarize(ratios).p50 : NaN;
const ratioMin = ratios.length ? Math.min(...ratios) : NaN;
rows.push(
  { name: `keyword, ${where}: selective p50`, value: fmtMs(sel.p50), target: "<= 15 ms", ok: sel.p50 <= 15 },
  { name: `keyword, ${where}: selective p95`, value: fmtMs(sel.p95), target: "<= 60 ms", ok: sel.p95 <= 60 },
  { name: `keyword, ${where}: one session p50 / p95`, value: `${fmtMs(ses.p50)} / ${fmtMs(ses.p95)}` },
  { name: `keyword, ${where}: time range p50 / p95`, value: `${fmtMs(rng.p50)} / ${fmtMs(rng.p95)}` },
  {
    name: `keyword, ${where}: "error" (${(100 * archivedFacts.errorShare).toFixed(0)}% of rows)`,
    value: fmtMs(commonMs),
    target: "<= 100 ms",
    ok: commonMs <= 100,
  },
  { name: `keyword, ${where}: "deploy" (most common content word)`, value: fmtMs(p50Of(archived, veryCommon)) },
  { name: `rg over JSONL export: selective p50`, value: fmtMs(summarize([...rg].filter(([q]) => q.group === "selective").map(([, t]) => t)).p50) },
  {
    name: `rg / memvoy on selective queries: median (min)`,
    value: ratios.length ? `${ratioP50.toFixed(0)}x (${ratioMin.toFixed(0)}x)` : "skipped: rg not installed (Debian package ripgrep)",
    target: ">= 20x",
    ok: ratioP50 >= 20,
  },
);
const d = (g: QueryGroup) => group(byDefault, g);
const dWhere = `${n} msgs, default max_history_bytes (${((100 * defaultFacts.archived) / defaultFacts.total).toFixed(1)}% archived)`;
rows.push(
  { name: `keyword, ${dWhere}: selective p50 / p95`, value: `${fmtMs(d("selective").p50)} / ${fmtMs(d("selective").p95)}` },
  { name: `keyword, ${dWhere}: one session p50 / p95`, value: `${fmtMs(d("session").p50)} / ${fmtMs(d("session").p95)}` },
  { name: `keyword, ${dWhere}: "error"`, value: fmtMs(p50Of(byDefault, common)) },
  { name: `keyword: peak RSS (search process)`, value: fmtMiB(peakRssBytes()) },
);
emitRows(rows);
