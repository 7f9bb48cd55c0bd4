// `memvoy search --json` as a whole process (the compiled binary), against the same-runtime limit: a
// compiled program that opens the database, runs the keyword window SQL memvoy runs (same window size)
// and prints JSON (bench/lib/search-limit.ts). Interleaved runs on the 1M archived home; ratio of p50s,
// in wall time and in CPU time (user + system, steadier on a loaded machine). A second limit also runs the
// recent tier's substring scan (the spec's substring match over recent messages, which the window SQL does
// not cover): what of memvoy's time that SQL accounts for.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ftsAllQuery, ftsPhrases, queryTerms } from "../src/search/query-terms.ts";
import { rankWindow } from "../src/storage/sqlite/keyword-queries.ts";
import { ensureHome } from "./lib/ensure-home.ts";
import { emitRows, log, quick, type BenchRow } from "./lib/report.ts";
import { ARCHIVED_SPEC } from "./lib/sizes.ts";
import { fmtMs, summarize } from "./lib/stats.ts";

const root = resolve(import.meta.dir, "..");
const REPS = quick ? 3 : 15;
const QUERIES = ["kubernetes", "rollback incident", "payment refund", "lourous"];
const rows: BenchRow[] = [];
const home = ensureHome(ARCHIVED_SPEC, rows);
const dir = mkdtempSync(join(tmpdir(), "memvoy-cli-bench-"));
const build = (args: string[]) => {
  const r = Bun.spawnSync(["bun", "build.ts", ...args], { cwd: root, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`build failed: ${r.stderr}`);
};
try {
  log("cli-search: compiling memvoy and the limit program");
  build(["--outfile", join(dir, "memvoy")]);
  build(["--entry", "bench/lib/search-limit.ts", "--outfile", join(dir, "limit")]);
  const env = { PATH: process.env.PATH!, HOME: dir };
  const run = (argv: string[], wall: number[], cpu: number[]) => {
    const t = performance.now();
    const r = Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe", env });
    wall.push(performance.now() - t);
    if (r.exitCode !== 0) throw new Error(`${argv.join(" ")} failed: ${r.stderr}`);
    const used = r.resourceUsage?.cpuTime;
    if (used) cpu.push(Number(used.user + used.system) / 1000);
  };
  const memvoy = { wall: [] as number[], cpu: [] as number[] };
  const limit = { wall: [] as number[], cpu: [] as number[] };
  const withRecent = { wall: [] as number[], cpu: [] as number[] };
  for (const q of QUERIES) {
    const terms = queryTerms(q);
    const mArgv = [join(dir, "memvoy"), "--home", home, "search", q, "--json"];
    const lArgv = [join(dir, "limit"), home, ftsAllQuery(terms)!, String(rankWindow(ftsPhrases(terms).length))];
    // The needles memvoy looks for in recent rows: the content words (every word when all are stop words).
    const content = terms.filter((t) => !t.stop);
    const rArgv = [...lArgv, ...(content.length ? content : terms).map((t) => t.text)];
    run(mArgv, [], []); // warm-up
    run(lArgv, [], []);
    run(rArgv, [], []);
    for (let i = 0; i < REPS; i++) {
      run(mArgv, memvoy.wall, memvoy.cpu);
      run(lArgv, limit.wall, limit.cpu);
      run(rArgv, withRecent.wall, withRecent.cpu);
    }
  }
  const m = summarize(memvoy.wall).p50;
  const l = summarize(limit.wall).p50;
  const r = summarize(withRecent.wall).p50;
  rows.push({
    name: "`search --json` whole process, compiled, 1M archived home, 4 selective queries: p50 memvoy / same-runtime limit (open, window SQL, JSON)",
    value: `${fmtMs(m)} / ${fmtMs(l)} = ${(m / l).toFixed(2)}x`,
    target: "<= 1.3x",
    ok: m / l <= 1.3,
  });
  rows.push({
    name: "`search --json`, same runs: p50 memvoy / limit that also runs the recent tier's substring scan",
    value: `${fmtMs(m)} / ${fmtMs(r)} = ${(m / r).toFixed(2)}x`,
  });
  if (memvoy.cpu.length && limit.cpu.length && withRecent.cpu.length) {
    const mc = summarize(memvoy.cpu).p50;
    const lc = summarize(limit.cpu).p50;
    const rc = summarize(withRecent.cpu).p50;
    rows.push({
      name: "`search --json` whole process, same runs in CPU time (user + system): p50 memvoy / limit",
      value: `${fmtMs(mc)} / ${fmtMs(lc)} = ${(mc / lc).toFixed(2)}x`,
    });
    rows.push({
      name: "`search --json`, same runs in CPU time: p50 memvoy / limit with the recent substring scan",
      value: `${fmtMs(mc)} / ${fmtMs(rc)} = ${(mc / rc).toFixed(2)}x`,
    });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
emitRows(rows);
