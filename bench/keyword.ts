// Keyword search over 1M archived messages (and over the same messages with the default history limit),
// with the contenders run interleaved, query by query: memvoy (MemoryApi.search in-process), raw FTS5
// running memvoy's own window SQL (the layer's core SQL, in-process), and rg over a JSONL export (a
// whole process). `--contenders` prints the side-by-side table only (archived home).
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { openMemory } from "../src/app/open-memory.ts";
import type { HomeMemory as MemoryApi } from "../src/app/memory-api.ts";
import { ftsAllQuery, ftsPhrases, queryTerms } from "../src/search/query-terms.ts";
import { rankWindow } from "../src/storage/sqlite/keyword-queries.ts";
import { sessionToken } from "../src/storage/sqlite/fts-upgrade.ts";
import { rangeStart } from "../src/shared/time.ts";
import { CORPUS_END_NS } from "./lib/build-home.ts";
import { EXPORT_FILE, exportJsonl } from "./lib/build-cli.ts";
import { ensureHome } from "./lib/ensure-home.ts";
import { benchQueries, MIXED_QUERIES, rgCommand, type BenchQuery, type QueryGroup } from "./lib/queries.ts";
import { emitRows, log, quick, type BenchRow } from "./lib/report.ts";
import { fmtMiB, peakRssBytes } from "./lib/rss.ts";
import { ARCHIVED_MAX_HISTORY_BYTES, ARCHIVED_SPEC, countLabel, IMPORT_SPEC } from "./lib/sizes.ts";
import { fmtMs, percentile, summarize } from "./lib/stats.ts";

const REPS = quick ? 2 : 9;
const RG_REPS = quick ? 1 : 3;
const contendersOnly = process.argv.includes("--contenders");
const rows: BenchRow[] = [];
const archivedHome = ensureHome(ARCHIVED_SPEC, rows, { exportJsonl: true });
const defaultHome = contendersOnly ? undefined : ensureHome(IMPORT_SPEC, rows);
const exportFile = join(archivedHome, EXPORT_FILE);
if (!existsSync(exportFile)) exportJsonl(archivedHome);
const queries = [...benchQueries(IMPORT_SPEC.sessions), ...MIXED_QUERIES];
const n = countLabel(IMPORT_SPEC.messages);
const hasRg = Bun.which("rg") !== null;
if (!hasRg) log("keyword: rg is not on PATH (Debian package ripgrep): the rg comparison is skipped");

function homeFacts(home: string): {
  archived: number;
  total: number;
  errorShare: number;
  deployShare: number;
  upgraded: boolean;
} {
  const db = new Database(join(home, ".store", "history.db"), { readonly: true });
  try {
    const c = db.query("SELECT count(*) AS total, sum(recent = 0) AS archived FROM messages").get() as {
      total: number;
      archived: number;
    };
    const share = (w: string) =>
      (db.query("SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH ?").get(w) as { n: number }).n /
      c.total;
    const upgraded =
      (
        db.query("SELECT count(*) AS n FROM pragma_table_xinfo('messages_fts') WHERE name = 'sess'").get() as {
          n: number;
        }
      ).n > 0;
    return { archived: c.archived, total: c.total, errorShare: share("error"), deployShare: share("deploy"), upgraded };
  } finally {
    db.close();
  }
}

/** The raw-FTS5 contender: memvoy's window SQL and row fetch, run directly (no ranking, snippets or merging). */
function rawFts(home: string) {
  const db = new Database(join(home, ".store", "history.db"), { readonly: true, safeIntegers: true });
  db.run("PRAGMA cache_size = -65536");
  const upgraded =
    (
      db.query("SELECT count(*) AS n FROM pragma_table_xinfo('messages_fts') WHERE name = 'sess'").get() as {
        n: bigint;
      }
    ).n > 0n;
  const window = db.query("SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rowid DESC LIMIT ?");
  const fetch = db.query(
    "SELECT seq, id, session_id, role, content, send_at, sender, recent FROM messages WHERE seq IN (SELECT CAST(value AS INTEGER) FROM json_each(?)) AND send_at >= ?",
  );
  return {
    upgraded,
    search(q: BenchQuery): number {
      const terms = queryTerms(q.query);
      const expr = ftsAllQuery(terms)!;
      const match = q.session ? `{sess}: ${sessionToken(q.session)} AND (${expr})` : expr;
      const seqs = (window.values(match, rankWindow(ftsPhrases(terms).length)) as [bigint][]).map((r) => String(r[0]));
      return fetch.all(JSON.stringify(seqs), rangeStart(q.range ?? "all", CORPUS_END_NS) ?? 0n).length;
    },
    close: () => db.close(),
  };
}

/** The rg pipeline for a query, as a shell command (ranges: awk on sendAt after the term stages). */
function rgShell(q: BenchQuery): string | undefined {
  if (!hasRg) return undefined;
  const base = rgCommand({ ...q, range: undefined }, exportFile)!;
  if (!q.range) return base;
  const since = rangeStart(q.range, CORPUS_END_NS);
  return base.replace(/ \| wc -l$/, ` | awk -F'"sendAt":"' 'substr($2, 1, 19) + 0 >= ${since}' | wc -l`);
}

interface Times {
  memvoy: number[];
  memvoyDefault: number[];
  /** The archived home searched with the clock LATER_DAYS past the newest message (not for time ranges). */
  memvoyLater: number[];
  raw: number[];
  rg: number[];
  /** CPU time (user + system) of the same runs: in-process for memvoy and raw FTS5, the whole pipeline for rg. */
  memvoyCpu: number[];
  rawCpu: number[];
  rgCpu: number[];
}

const rgCounts = new Map<BenchQuery, number>();

function runRg(q: BenchQuery, cmd: string, cpu?: number[]): number {
  const t = performance.now();
  const r = Bun.spawnSync(["sh", "-c", cmd], { stdout: "pipe", stderr: "pipe" });
  const ms = performance.now() - t;
  if (r.exitCode !== 0 && r.exitCode !== 1) throw new Error(`rg failed (${r.exitCode}): ${cmd}\n${r.stderr}`);
  rgCounts.set(q, Number(r.stdout.toString().trim()));
  cpu?.push(Number(r.resourceUsage.cpuTime.total) / 1000); // the shell and its waited-for children (rg, wc, awk)
  return ms;
}

/** Wall time in ms; the run's CPU time (this process, user + system) goes to `cpu`. */
async function timed(fn: () => unknown, cpu: number[]): Promise<number> {
  const c = process.cpuUsage();
  const t = performance.now();
  await fn();
  const ms = performance.now() - t;
  const u = process.cpuUsage(c);
  cpu.push((u.user + u.system) / 1000);
  return ms;
}

const searchOptions = (q: BenchQuery) => ({ query: q.query, session: q.session, range: q.range, limit: 10 });

/** The in-process contenders: memvoy on the archived home, at the default limit, with the later clock; raw FTS5. */
interface InProcess {
  a: MemoryApi;
  d: MemoryApi | undefined;
  later: MemoryApi;
  raw: ReturnType<typeof rawFts>;
}

/** Every contender runs the query once, untimed. */
async function warmUp(q: BenchQuery, { a, d, later, raw }: InProcess): Promise<void> {
  const opts = searchOptions(q);
  await a.search(opts);
  await d?.search(opts);
  if (!q.range) await later.search(opts);
  raw.search(q);
  const cmd = rgShell(q);
  if (cmd) runRg(q, cmd);
}

/** Every contender on one query, interleaved rep by rep (after one more warm-up each). */
async function measure(q: BenchQuery, c: InProcess): Promise<Times> {
  const { a, d, raw } = c;
  const opts = searchOptions(q);
  const cmd = rgShell(q);
  const t: Times = {
    memvoy: [],
    memvoyDefault: [],
    memvoyLater: [],
    raw: [],
    rg: [],
    memvoyCpu: [],
    rawCpu: [],
    rgCpu: [],
  };
  const l = q.range ? undefined : c.later;
  await warmUp(q, c);
  for (let i = 0; i < REPS; i++) {
    t.memvoy.push(await timed(() => a.search(opts), t.memvoyCpu));
    t.raw.push(await timed(() => raw.search(q), t.rawCpu));
    if (d) t.memvoyDefault.push(await timed(() => d.search(opts), []));
    if (l) t.memvoyLater.push(await timed(() => l.search(opts), []));
    if (cmd && i < RG_REPS) t.rg.push(runRg(q, cmd, t.rgCpu));
  }
  return t;
}

/** Homes built before the index upgrade get it here, timed (what `memvoy doctor --migrate` does). */
async function upgradeIfOld(home: string, what: string): Promise<void> {
  const api = openMemory({ home, env: {}, drain: "off" });
  try {
    if (api.indexUpgrade().done) return;
    log(`keyword: upgrading the keyword index of the ${what} home`);
    const r = await api.upgradeIndex();
    rows.push({
      name: `search index upgrades (session column, substring index, token counts), ${what} home: ${r.copied} rows indexed`,
      value: `${(r.ms / 1000).toFixed(1)} s, longest write ${fmtMs(r.longestStepMs)}`,
    });
  } finally {
    api.close();
  }
}
await upgradeIfOld(archivedHome, "archived");
if (defaultHome) await upgradeIfOld(defaultHome, "default-limit");

const archivedFacts = homeFacts(archivedHome);
const defaultFacts = defaultHome ? homeFacts(defaultHome) : undefined;
log(
  `keyword: archived home ${archivedFacts.archived}/${archivedFacts.total} archived${archivedFacts.upgraded ? "" : " (old index: run memvoy doctor --migrate --home " + archivedHome + ")"}`,
);
if (defaultFacts)
  log(
    `keyword: default home ${defaultFacts.archived}/${defaultFacts.total} archived${defaultFacts.upgraded ? "" : " (old index)"}`,
  );

const archivedApi = openMemory({ home: archivedHome, env: {}, now: () => CORPUS_END_NS, drain: "off" });
/**
 * Days past the newest message for a second clock. At the corpus's end every session's recent rows are
 * minutes old, and a page of fresh recent hits outscores any archived row, so the archive is often not read;
 * later, their recency counts for less and the archive windows are read as well.
 */
const LATER_DAYS = 70;
const later = openMemory({
  home: archivedHome,
  env: {},
  now: () => CORPUS_END_NS + BigInt(LATER_DAYS) * 86_400_000_000_000n,
  drain: "off",
});
const defaultApi = defaultHome
  ? openMemory({ home: defaultHome, env: {}, now: () => CORPUS_END_NS, drain: "off" })
  : undefined;
const raw = rawFts(archivedHome);
const results = new Map<BenchQuery, Times>();
try {
  // A pass over every query first: each memvoy connection is then in the state it keeps for the rest of a
  // long-lived process (the recent text is held after BUILD_AFTER searches: recent-text-cache.ts), whichever
  // query is timed first. Without it, the first query alone was timed before that (bench/RESULTS.md).
  const contenders: InProcess = { a: archivedApi, d: defaultApi, later, raw };
  for (const q of queries) await warmUp(q, contenders);
  for (const q of queries) results.set(q, await measure(q, contenders));
} finally {
  archivedApi.close();
  later.close();
  defaultApi?.close();
  raw.close();
}

const label = (q: BenchQuery) =>
  `${JSON.stringify(q.query)}${q.session ? ` in ${q.session}` : ""}${q.range ? ` ${q.range}` : ""}`;
const p50 = (xs: number[]) => summarize(xs).p50;
const of = (g: QueryGroup) => [...results].filter(([q]) => q.group === g);
const pool = (g: QueryGroup, k: keyof Times) => summarize(of(g).flatMap(([, t]) => t[k]));
/** rg p50 / memvoy, per timed memvoy run, over the group's queries that rg can run. */
type MemvoySeries = "memvoy" | "memvoyDefault" | "memvoyLater";
const perRunRatios = (g: QueryGroup, k: MemvoySeries = "memvoy") =>
  of(g)
    .filter(([, t]) => t.rg.length)
    .flatMap(([, t]) => t[k].map((ms) => p50(t.rg) / ms))
    .sort((x, y) => x - y);
const perQueryRatios = (g: QueryGroup, k: MemvoySeries = "memvoy") =>
  of(g)
    .filter(([, t]) => t.rg.length && t[k].length)
    .map(([, t]) => p50(t.rg) / p50(t[k]));
/**
 * The session ratio's target, the 5th percentile of per-query ratios (rg p50 / memvoy p50, one per session
 * query), and the stricter 5th percentile of per-run ratios (rg p50 / each timed memvoy run) beside it.
 */
const sessionRatios = (k: MemvoySeries) => ({
  perQuery: percentile(
    perQueryRatios("session", k).sort((a, b) => a - b),
    5,
  ),
  perRun: percentile(perRunRatios("session", k), 5),
});
const x = (r: number) => (Number.isFinite(r) ? `${r >= 10 ? r.toFixed(0) : r.toFixed(1)}x` : "-");

log(
  "\nContenders, interleaved per query (p50; memvoy and raw FTS5 in-process, rg a whole process over the JSONL export):",
);
log(
  "| query | group | memvoy, archived | raw FTS5 (window SQL) | memvoy / raw | rg | rg / memvoy | memvoy, default limit | rg / memvoy, default limit | rg lines | CPU: memvoy / raw / rg | CPU: memvoy / raw, rg / memvoy |",
);
log("|---|---|---|---|---|---|---|---|---|---|---|---|");
for (const [q, t] of results) {
  const m = p50(t.memvoy);
  const r = t.rg.length ? p50(t.rg) : NaN;
  const d = t.memvoyDefault.length ? p50(t.memvoyDefault) : NaN;
  log(
    `| ${label(q)} | ${q.group} | ${fmtMs(m)} | ${fmtMs(p50(t.raw))} | ${x(m / p50(t.raw))} | ${t.rg.length ? fmtMs(r) : "-"} | ${x(r / m)} | ${t.memvoyDefault.length ? fmtMs(d) : "-"} | ${x(r / d)} | ${rgCounts.get(q) ?? "-"} | ${fmtMs(p50(t.memvoyCpu))} / ${fmtMs(p50(t.rawCpu))} / ${t.rgCpu.length ? fmtMs(p50(t.rgCpu)) : "-"} | ${x(p50(t.memvoyCpu) / p50(t.rawCpu))}, ${t.rgCpu.length ? x(p50(t.rgCpu) / p50(t.memvoyCpu)) : "-"} |`,
  );
}

const where = `${n} msgs, max_history_bytes=${ARCHIVED_MAX_HISTORY_BYTES} (${((100 * archivedFacts.archived) / archivedFacts.total).toFixed(1)}% archived)`;
const ses = pool("session", "memvoy");
const sesRatio = sessionRatios("memvoy");
const deploy = results.get(queries.find((q) => q.group === "common" && q.query === "deploy")!)!;
const error = results.get(queries.find((q) => q.group === "common" && q.query === "error")!)!;
const rng = pool("range", "memvoy");
const sel = pool("selective", "memvoy");
const mix = pool("mixed", "memvoy");
const mixed = `common words beside rarer ones (${of("mixed").length} queries such as "deploy server rollback incident", "error ログ")`;
const selRatio = summarize(perQueryRatios("selective")).p50;
const layer = summarize(of("selective").map(([, t]) => p50(t.memvoy) / p50(t.raw))).p50;
// The same ratios in CPU time, which a loaded machine distorts less than wall time.
const layerCpu = summarize(of("selective").map(([, t]) => p50(t.memvoyCpu) / p50(t.rawCpu))).p50;
const selRatioCpu = summarize(
  of("selective")
    .filter(([, t]) => t.rgCpu.length)
    .map(([, t]) => p50(t.rgCpu) / p50(t.memvoyCpu)),
).p50;
const selCpu = pool("selective", "memvoyCpu");
rows.push(
  {
    name: `keyword, ${where}: one session p95; rg / memvoy, 5th percentile of per-query ratios (of per-run ratios)`,
    value: `${fmtMs(ses.p95)}; ${x(sesRatio.perQuery)} (${x(sesRatio.perRun)})`,
    target: "<= 30 ms; >= 10x",
    ok: ses.p95 <= 30 && sesRatio.perQuery >= 10,
  },
  {
    name: `keyword, ${where}: "deploy" (${(100 * archivedFacts.deployShare).toFixed(0)}% of rows) p50`,
    value: fmtMs(p50(deploy.memvoy)),
    target: "<= 20 ms",
    ok: p50(deploy.memvoy) <= 20,
  },
  {
    name: `keyword, ${where}: "error" (${(100 * archivedFacts.errorShare).toFixed(0)}% of rows) p50`,
    value: fmtMs(p50(error.memvoy)),
  },
  {
    name: `keyword, ${where}: time range (7d, 30d, 1y) p95`,
    value: fmtMs(rng.p95),
    target: "<= 40 ms",
    ok: rng.p95 <= 40,
  },
  {
    name: `keyword, ${where}: selective p50 / p95; rg / memvoy (median of per-query ratios)`,
    value: `${fmtMs(sel.p50)} / ${fmtMs(sel.p95)}; ${x(selRatio)}`,
    target: "<= 6 ms / <= 25 ms; >= 20x",
    ok: sel.p50 <= 6 && sel.p95 <= 25 && selRatio >= 20,
  },
  {
    name: `keyword, ${where}: ${mixed}: p50 / p95; rg / memvoy, raw FTS5 window SQL / memvoy (medians of per-query ratios)`,
    value: `${fmtMs(mix.p50)} / ${fmtMs(mix.p95)}; ${x(summarize(perQueryRatios("mixed")).p50)}, ${x(summarize(of("mixed").map(([, t]) => p50(t.raw) / p50(t.memvoy))).p50)}`,
  },
  {
    name: `keyword, ${where}: layer cost, memvoy / raw FTS5 window SQL (median of selective per-query ratios)`,
    value: x(layer),
    target: "<= 1.3x",
    ok: layer <= 1.3,
  },
  {
    name: `keyword, ${where}: in CPU time: selective p50 / p95; layer cost (memvoy / raw FTS5); rg / memvoy (medians of per-query ratios)`,
    value: `${fmtMs(selCpu.p50)} / ${fmtMs(selCpu.p95)}; ${x(layerCpu)}; ${x(selRatioCpu)}`,
  },
);
{
  const lsel = pool("selective", "memvoyLater");
  const lses = pool("session", "memvoyLater");
  const lRatio = summarize(perQueryRatios("selective", "memvoyLater")).p50;
  const lSesRatio = sessionRatios("memvoyLater");
  const lLayer = summarize(of("selective").map(([, t]) => p50(t.memvoyLater) / p50(t.raw))).p50;
  rows.push({
    name: `keyword, ${where}, the clock ${LATER_DAYS} days past the newest message: selective p50 / p95; rg / memvoy (median); layer cost; one session p95; rg / memvoy, 5th percentile of per-query ratios (of per-run ratios)`,
    value: `${fmtMs(lsel.p50)} / ${fmtMs(lsel.p95)}; ${x(lRatio)}; ${x(lLayer)}; ${fmtMs(lses.p95)}; ${x(lSesRatio.perQuery)} (${x(lSesRatio.perRun)})`,
  });
}
if (defaultFacts) {
  const dWhere = `${n} msgs, default max_history_bytes (${((100 * defaultFacts.archived) / defaultFacts.total).toFixed(1)}% archived)`;
  const dses = pool("session", "memvoyDefault");
  const dsel = pool("selective", "memvoyDefault");
  const drng = pool("range", "memvoyDefault");
  const dSesRatio = sessionRatios("memvoyDefault");
  const dDeploy = p50(deploy.memvoyDefault);
  const dSelRatio = summarize(perQueryRatios("selective", "memvoyDefault")).p50;
  rows.push(
    {
      name: `keyword, ${dWhere}: one session p95; rg / memvoy, 5th percentile of per-query ratios (of per-run ratios)`,
      value: `${fmtMs(dses.p95)}; ${x(dSesRatio.perQuery)} (${x(dSesRatio.perRun)})`,
      target: "<= 30 ms; >= 10x",
      ok: dses.p95 <= 30 && dSesRatio.perQuery >= 10,
    },
    { name: `keyword, ${dWhere}: "deploy" p50`, value: fmtMs(dDeploy), target: "<= 20 ms", ok: dDeploy <= 20 },
    { name: `keyword, ${dWhere}: time range p95`, value: fmtMs(drng.p95), target: "<= 40 ms", ok: drng.p95 <= 40 },
    {
      name: `keyword, ${dWhere}: ${mixed}: p50 / p95; rg / memvoy (median of per-query ratios)`,
      value: `${fmtMs(pool("mixed", "memvoyDefault").p50)} / ${fmtMs(pool("mixed", "memvoyDefault").p95)}; ${x(summarize(perQueryRatios("mixed", "memvoyDefault")).p50)}`,
    },
    {
      name: `keyword, ${dWhere}: selective p50 / p95; rg / memvoy (median of per-query ratios)`,
      value: `${fmtMs(dsel.p50)} / ${fmtMs(dsel.p95)}; ${x(dSelRatio)}`,
      target: "<= 6 ms / <= 25 ms; >= 20x",
      ok: dsel.p50 <= 6 && dsel.p95 <= 25 && dSelRatio >= 20,
    },
  );
}
rows.push(
  {
    name: `rg over the JSONL export (whole process): selective p50`,
    value: hasRg ? fmtMs(pool("selective", "rg").p50) : "skipped: rg not installed",
  },
  { name: `keyword: peak RSS (search process, both homes open)`, value: fmtMiB(peakRssBytes()) },
);
emitRows(rows);
