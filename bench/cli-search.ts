// `memvoy search --json` as a whole process (the compiled binary), against the same-runtime limit: a
// compiled program that opens the database, runs the keyword window SQL memvoy runs (same window size)
// and prints JSON (bench/lib/search-limit.ts). Interleaved runs on the 1M archived home; ratio of p50s,
// in wall time and in CPU time (user + system, steadier on a loaded machine). A second limit also runs the
// recent tier's substring scan (the spec's substring match over recent messages, which the window SQL does
// not cover): what of memvoy's time that SQL accounts for. A third replays every statement memvoy's search ran
// (bench/lib/search-replay.ts, recorded in-process by bench/lib/sql-trace.ts): what memvoy takes beyond it is its
// own code, loaded and run cold in a fresh process. Another row keeps the limit as it printed before
// (through process.stdout, which costs a fresh process several ms that neither program needs to pay). A row
// runs memvoy with the daemon running for the home, which then answers the search; the last rows time semantic
// and hybrid searches on a home with vectors, with the daemon running against --local.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ftsAllQuery, ftsPhrases, queryTerms } from "../src/search/query-terms.ts";
import { rankWindow } from "../src/storage/sqlite/keyword-queries.ts";
import { tryLockFile } from "../src/shared/file-lock.ts";
import { encodeSteps } from "./lib/sql-steps.ts";
import { traceSearch } from "./lib/sql-trace.ts";
import { ensureHome } from "./lib/ensure-home.ts";
import { vectorHome } from "./lib/vector-home.ts";
import { emitRows, log, quick, type BenchRow } from "./lib/report.ts";
import { ARCHIVED_SPEC } from "./lib/sizes.ts";
import { fmtMs, summarize } from "./lib/stats.ts";

const root = resolve(import.meta.dir, "..");
const REPS = quick ? 3 : 15;
const QUERIES = ["kubernetes", "rollback incident", "payment refund", "lourous"];
const SEMANTIC_QUERIES = ["where do the deploy keys live", "the rollout failed again", "refund for a double payment"];
const SEMANTIC_REPS = quick ? 3 : 10;
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
  build(["--entry", "bench/lib/search-replay.ts", "--outfile", join(dir, "replay")]);
  // Each query's statements, as `memvoy search QUERY --json` runs them (its home opened the same way).
  const traces = new Map<string, { steps: string; count: number }>();
  for (const q of QUERIES) {
    const steps = await traceSearch(home, { query: q });
    traces.set(q, { steps: encodeSteps(steps), count: steps.length });
  }
  const env = { PATH: process.env.PATH!, HOME: dir };
  type Series = { wall: number[]; cpu: number[] };
  /** Run `body` with the compiled memvoy's daemon running for `home` (once its http.json is written). */
  const withDaemon = async (h: string, body: () => void) => {
    const daemon = Bun.spawn([join(dir, "memvoy"), "--daemon", "--home", h], { env, stdout: "ignore", stderr: "pipe" });
    try {
      const httpFile = join(h, "http.json");
      const deadline = Date.now() + 60_000;
      while (!existsSync(httpFile) || !JSON.parse(readFileSync(httpFile, "utf8")).stamp) {
        if (Date.now() > deadline || daemon.exitCode !== null) throw new Error("cli-search: the daemon did not start");
        await Bun.sleep(50);
      }
      body();
    } finally {
      daemon.kill("SIGTERM");
      await daemon.exited;
    }
  };
  const series = (): Series => ({ wall: [], cpu: [] });
  const run = (argv: string[], into: Series, extraEnv: Record<string, string> = {}) => {
    const t = performance.now();
    const r = Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe", env: { ...env, ...extraEnv } });
    into.wall.push(performance.now() - t);
    if (r.exitCode !== 0) throw new Error(`${argv.join(" ")} failed: ${r.stderr}`);
    const used = r.resourceUsage?.cpuTime;
    if (used) into.cpu.push(Number(used.user + used.system) / 1000);
  };
  const memvoy = series();
  const limit = series();
  const withRecent = series();
  const viaStream = series();
  const replay = series();
  const streamEnv = { LIMIT_PRINT: "process.stdout" };
  for (const q of QUERIES) {
    const terms = queryTerms(q);
    const mArgv = [join(dir, "memvoy"), "--home", home, "search", q, "--json"];
    const lArgv = [join(dir, "limit"), home, ftsAllQuery(terms)!, String(rankWindow(ftsPhrases(terms).length))];
    // The needles memvoy looks for in recent rows: the content words (every word when all are stop words).
    const content = terms.filter((t) => !t.stop);
    const rArgv = [...lArgv, ...(content.length ? content : terms).map((t) => t.text)];
    const pArgv = [join(dir, "replay"), join(home, ".store", "history.db"), traces.get(q)!.steps];
    const warm = series();
    run(mArgv, warm);
    run(lArgv, warm);
    run(rArgv, warm);
    run(lArgv, warm, streamEnv);
    run(pArgv, warm);
    for (let i = 0; i < REPS; i++) {
      run(mArgv, memvoy);
      run(lArgv, limit);
      run(rArgv, withRecent);
      run(lArgv, viaStream, streamEnv);
      run(pArgv, replay);
    }
  }
  // With the daemon running for the home, `memvoy search` asks it (docs/daemon.md). The bench holds the
  // embedding drain's lock meanwhile, so that the daemon does not embed the home's 1M-message backlog during
  // the runs (its drain finds the lock taken and waits).
  const viaDaemon = series();
  const limitBeside = series();
  const release = tryLockFile(join(home, ".store", "embed.lock"));
  try {
    await withDaemon(home, () => {
      for (const q of QUERIES) {
        const terms = queryTerms(q);
        const mArgv = [join(dir, "memvoy"), "--home", home, "search", q, "--json"];
        const lArgv = [join(dir, "limit"), home, ftsAllQuery(terms)!, String(rankWindow(ftsPhrases(terms).length))];
        // A daemon serves for hours: it is measured warm (its JIT, its caches at this state of the home).
        const warm = series();
        for (let i = 0; i < REPS; i++) run(mArgv, warm);
        for (let i = 0; i < REPS; i++) {
          run(mArgv, viaDaemon);
          run(lArgv, limitBeside);
        }
      }
    });
  } finally {
    release?.();
  }
  // Semantic and hybrid searches from the command line, on a home whose messages all have vectors: with the
  // daemon running (its worker has LanceDB and the word vectors loaded) against --local (loads them each time).
  const vectors = await vectorHome(quick ? 2_000 : 10_000, "memvoy-cli-bench-vectors-");
  const semanticRows: { mode: string; asked: Series; local: Series }[] = [];
  try {
    await withDaemon(vectors, () => {
      for (const mode of ["semantic", "hybrid"]) {
        const asked = series();
        const local = series();
        for (const q of SEMANTIC_QUERIES) {
          const argv = [join(dir, "memvoy"), "--home", vectors, "search", q, "--match", mode, "--json"];
          const warm = series();
          for (let i = 0; i < 3; i++) run(argv, warm);
          for (let i = 0; i < SEMANTIC_REPS; i++) {
            run(argv, asked);
            run([...argv, "--local"], local);
          }
        }
        semanticRows.push({ mode, asked, local });
      }
    });
  } finally {
    rmSync(vectors, { recursive: true, force: true });
  }
  const ratio = (a: number[], b: number[]) => {
    const x = summarize(a).p50;
    const y = summarize(b).p50;
    return { value: `${fmtMs(x)} / ${fmtMs(y)} = ${(x / y).toFixed(2)}x`, ok: x / y <= 1.3 };
  };
  const head = ratio(memvoy.wall, limit.wall);
  rows.push({
    name: "`search --json` whole process, compiled, 1M archived home, 4 selective queries: p50 memvoy / same-runtime limit (open, window SQL, JSON)",
    value: head.value,
    target: "<= 1.3x",
    ok: head.ok,
  });
  rows.push({
    name: "`search --json`, same runs: p50 memvoy / limit that also runs the recent tier's substring scan",
    value: ratio(memvoy.wall, withRecent.wall).value,
  });
  const statements = QUERIES.map((q) => traces.get(q)!.count).join(", ");
  rows.push({
    name: `\`search --json\`, same runs: p50 memvoy / a program replaying memvoy's own SQL statements (${statements} a query: open, read scope, windows, substring walks, page), compiled the same way`,
    value: ratio(memvoy.wall, replay.wall).value,
  });
  rows.push({
    name: "`search --json`, same runs: p50 memvoy / the limit printing through process.stdout (as it printed before)",
    value: ratio(memvoy.wall, viaStream.wall).value,
  });
  const asked = ratio(viaDaemon.wall, limitBeside.wall);
  rows.push({
    name: "`search --json` whole process with the daemon running for the home (it answers; the command does not open the home), same queries: p50 memvoy / limit, interleaved",
    value: asked.value,
    target: "<= 1.3x",
    ok: asked.ok,
  });
  for (const { mode, asked, local } of semanticRows) {
    const x = summarize(asked.wall).p50;
    const y = summarize(local.wall).p50;
    rows.push({
      name: `\`search --match ${mode} --json\` whole process, ${quick ? "2,000" : "10,000"} msgs with vectors, ${SEMANTIC_QUERIES.length} queries: p50 with the daemon running / --local`,
      value: `${fmtMs(x)} / ${fmtMs(y)} (${(y / x).toFixed(1)}x faster)`,
    });
  }
  if (memvoy.cpu.length && limit.cpu.length && withRecent.cpu.length && viaStream.cpu.length && replay.cpu.length) {
    rows.push({
      name: "`search --json` whole process, same runs in CPU time (user + system): p50 memvoy / limit",
      value: ratio(memvoy.cpu, limit.cpu).value,
    });
    rows.push({
      name: "`search --json`, same runs in CPU time: p50 memvoy / limit with the recent substring scan",
      value: ratio(memvoy.cpu, withRecent.cpu).value,
    });
    rows.push({
      name: "`search --json`, same runs in CPU time: p50 memvoy / the replay of its own SQL statements",
      value: ratio(memvoy.cpu, replay.cpu).value,
    });
    rows.push({
      name: "`search --json`, same runs in CPU time: p50 memvoy / the limit printing through process.stdout",
      value: ratio(memvoy.cpu, viaStream.cpu).value,
    });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
emitRows(rows);
