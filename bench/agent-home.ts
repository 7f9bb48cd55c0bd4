// Keyword search on a home like a coding agent's: sessions where every 4th message is a tool output holding a
// whole source file (2-200 KB, the installed packages' own .js, .ts and .md files, so the same on every machine
// with this lockfile), beside prompts and short answers. The bench homes' messages are all short; here a match
// window's rows are a few MB of text. memvoy (MemoryApi.search in-process, each query's median) interleaved
// query by query with rg over the JSONL export (whole process, as in bench/keyword.ts); words, then code symbols,
// then search as you type.
// bun bench/agent-home.ts [--quick]
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { openMemory } from "../src/app/open-memory.ts";
import { EXPORT_FILE, exportJsonl } from "./lib/build-cli.ts";
import { adoptIntoCache, cachePath, isCached, scratchDir } from "./lib/home-cache.ts";
import { rgCommand } from "./lib/queries.ts";
import { emitRows, log, quick, type BenchRow } from "./lib/report.ts";
import { fmtMs, percentile, summarize } from "./lib/stats.ts";

const SESSIONS = quick ? 4 : 40;
const PER_SESSION = 500;
const REPS = quick ? 2 : 7;
const NOW = Date.parse("2026-10-01T00:00:00Z");
const QUERIES = [
  "kubernetes",
  "buffer",
  "retry backoff",
  "async function",
  "deploy server",
  "fix the failing test",
  "export default",
  "throw new Error",
  "TypeError",
  "node_modules",
];
/** Code symbols, which each hit holds verbatim (the word index drops punctuation: each row's text is checked). */
const SYMBOL_QUERIES = ["JSON.parse", "process.env", "module.exports", "require('fs')", "console.log("];
const PROMPTS = [
  "fix the failing test in the parser",
  "why does the build error on import",
  "add retry with backoff to the fetch",
  "refactor the config loader",
  "what does this function return",
  "deploy the server after the rollback",
  "the kubernetes pod keeps crashing",
  "update the README with the new flags",
];

const root = resolve(import.meta.dir, "..");

/** The installed packages' source and docs files of 2-200 KB, sorted (a lockfile pins them). */
function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && /\.(js|ts|md)$/.test(e.name)) {
        const size = statSync(p).size;
        if (size > 2_048 && size < 200_000) out.push(p);
      }
    }
  };
  walk(join(root, "node_modules"));
  return out;
}

function buildAgentHome(): string {
  const name = `agent-home-${SESSIONS}x${PER_SESSION}`;
  if (isCached(name)) return cachePath(name);
  const dir = scratchDir(name);
  log(`agent-home: building ${name} (cached for later runs) in ${dir}`);
  const files = sourceFiles();
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const api = openMemory({ home: dir, env: {}, drain: "off" });
  try {
    for (let s = 0; s < SESSIONS; s++) {
      const messages = Array.from({ length: PER_SESSION }, (_, i) => {
        const prompt = PROMPTS[Math.floor(rnd() * PROMPTS.length)]!;
        const kind = i % 4;
        const file = kind === 2 ? files[Math.floor(rnd() * files.length)]! : undefined;
        const content = file
          ? `Read ${relative(root, file)}:\n${readFileSync(file, "utf8")}`
          : kind === 0
            ? `${prompt} (step ${i})`
            : `I looked at it: ${prompt}. The function returns early when the error is thrown; next I will run the tests again.`;
        const role: "user" | "assistant" = kind === 0 || kind === 2 ? "user" : "assistant";
        return { role, content, sendAt: BigInt(NOW + s * 3_600_000 + i * 20_000) * 1_000_000n };
      });
      api.add(`agent${s}`, messages);
    }
  } finally {
    api.close();
  }
  exportJsonl(dir);
  return adoptIntoCache(name, dir);
}

const rows: BenchRow[] = [];
const home = buildAgentHome();
const exportFile = join(home, EXPORT_FILE);
const megabytes = statSync(exportFile).size / 1e6;
const hasRg = Bun.which("rg") !== null;
if (!hasRg) log("agent-home: rg is not on PATH (Debian package ripgrep): the rg comparison is skipped");

const api = openMemory({ home, env: {}, drain: "off" });
const where = `keyword, ${SESSIONS * PER_SESSION} msgs of agent sessions (every 4th a whole source file; ${megabytes.toFixed(0)} MB exported)`;

/** Each query's median of REPS searches, and rg's beside it; rows for their spread and the ratios. */
async function timeQueries(queries: readonly string[], what: string): Promise<void> {
  const medians: number[] = [];
  const ratios: number[] = [];
  for (const query of queries) {
    await api.search({ query }); // the query's row lists read once, as for every contender
    const runs: number[] = [];
    const rg: number[] = [];
    for (let i = 0; i < REPS; i++) {
      const t = performance.now();
      await api.search({ query });
      runs.push(performance.now() - t);
      if (!hasRg) continue;
      const r0 = performance.now();
      const r = Bun.spawnSync(["sh", "-c", rgCommand({ group: "selective", query }, exportFile)!]);
      if (r.exitCode !== 0 && r.exitCode !== 1) throw new Error(`rg failed (${r.exitCode}): ${r.stderr}`);
      rg.push(performance.now() - r0);
    }
    const m = summarize(runs).p50;
    medians.push(m);
    if (hasRg) ratios.push(summarize(rg).p50 / m);
    log(`agent-home: ${query}: ${fmtMs(m)}${hasRg ? `, rg ${fmtMs(summarize(rg).p50)}` : ""}`);
  }
  const sorted = [...medians].sort((a, b) => a - b);
  rows.push({
    name: `${where}: ${queries.length} ${what}, p50 / p95 of each query's median of ${REPS}`,
    value: `${fmtMs(percentile(sorted, 50))} / ${fmtMs(percentile(sorted, 95))}`,
  });
  if (hasRg) {
    const r = [...ratios].sort((a, b) => a - b);
    rows.push({
      name: `${where}: ${what}, rg / memvoy, median and lowest of the per-query ratios`,
      value: `${percentile(r, 50).toFixed(1)}x, ${r[0]!.toFixed(1)}x`,
    });
  }
}

/**
 * Search as you type (what the terminal UI asks while a query is typed: the newest 50 matches, the last word a
 * prefix): every prefix of the queries, each prefix's median of REPS; p50, p95 and the slowest.
 */
async function timeTyping(queries: readonly string[]): Promise<void> {
  const medians: { prefix: string; ms: number }[] = [];
  for (const query of queries)
    for (let n = 1; n <= query.length; n++) {
      const prefix = query.slice(0, n);
      const options = { query: prefix, order: "newest" as const, typing: true, limit: 50 };
      await api.search(options);
      const runs: number[] = [];
      for (let i = 0; i < REPS; i++) {
        const t = performance.now();
        await api.search(options);
        runs.push(performance.now() - t);
      }
      medians.push({ prefix, ms: summarize(runs).p50 });
    }
  const sorted = medians.map((m) => m.ms).sort((a, b) => a - b);
  const worst = medians.reduce((a, b) => (b.ms > a.ms ? b : a));
  rows.push({
    name: `${where}: search as you type (newest 50, last word a prefix), every prefix of ${queries.length} queries: p50 / p95 / slowest of each prefix's median of ${REPS}`,
    value: `${fmtMs(percentile(sorted, 50))} / ${fmtMs(percentile(sorted, 95))} / ${fmtMs(worst.ms)} (${JSON.stringify(worst.prefix)})`,
  });
}

try {
  await timeQueries(QUERIES, "queries");
  await timeQueries(SYMBOL_QUERIES, "symbol queries (`JSON.parse`, `require('fs')`…)");
  await timeTyping(["export default", "fix the failing test", "throw new Error", "node_modules", "JSON.parse"]);
} finally {
  api.close();
}
emitRows(rows);
