// Error memory at 1,000 records: record time, search latency (library and the `memvoy errors search`
// process), and how often a reworded error finds its fix first (test/error-memory/fixture.ts among distractors).
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openMemory } from "../src/app/open-memory.ts";
import { HARD_PARAPHRASES, PARAPHRASES, RECORDS, type Paraphrase } from "../test/error-memory/fixture.ts";

// Self-contained, so it runs alone (`bun bench/errors.ts [--quick]`) or from bench/run.ts (the BENCH_ROWS line).
interface BenchRow {
  name: string;
  value: string;
}
const quick = process.argv.includes("--quick");
const log = (line: string) => process.stderr.write(line + "\n");
const emitRows = (rows: BenchRow[]) => process.stdout.write("BENCH_ROWS " + JSON.stringify(rows) + "\n");
const fmtMs = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2)) + " ms";
function summarize(ms: readonly number[]): { n: number; p50: number; p95: number } {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
  return { n: s.length, p50: at(50), p95: at(95) };
}

const TOTAL = 1000;
const CLI_RUNS = quick ? 3 : 10;
const root = resolve(import.meta.dir, "..");

const TOOLS = ["git", "npm", "docker", "psql", "pytest", "curl", "kubectl", "ssh", "pip", "cargo", "tsc", "terraform"];
const VERBS = ["open", "read", "write", "resolve", "load", "parse", "connect to", "create", "delete", "update"];
const NOUNS = [
  "config file",
  "module",
  "table",
  "bucket",
  "volume",
  "secret",
  "service",
  "queue",
  "topic",
  "branch",
  "image",
  "package",
];
const REASONS = [
  "permission denied",
  "not found",
  "operation timed out",
  "already exists",
  "invalid format",
  "connection reset by peer",
  "quota exceeded",
  "unsupported version",
  "checksum mismatch",
  "lock held by another process",
];

/** Distinct distractors that share the fixture's vocabulary (permission denied, not found, lock…). */
function distractors(n: number): { tool: string; error: string; fix: string; outcome: "resolved" | "failed" }[] {
  const out: { tool: string; error: string; fix: string; outcome: "resolved" | "failed" }[] = [];
  for (let i = 0; out.length < n; i++) {
    const tool = TOOLS[i % TOOLS.length]!;
    const verb = VERBS[Math.floor(i / TOOLS.length) % VERBS.length]!;
    const noun = NOUNS[Math.floor(i / (TOOLS.length * VERBS.length)) % NOUNS.length]!;
    const reason = REASONS[(i * 7) % REASONS.length]!;
    out.push({
      tool,
      error: `${tool}: error: cannot ${verb} ${noun} 'item-${i}': ${reason} (code ${100 + (i % 50)})`,
      fix: `checked the ${noun} settings and retried the ${verb} step`,
      outcome: i % 5 === 0 ? "failed" : "resolved",
    });
  }
  return out;
}

const home = mkdtempSync(join(tmpdir(), "memvoy-bench-errors-"));
const rows: BenchRow[] = [];
try {
  const api = openMemory({ home, env: {} });
  const ids = new Map<string, string>();
  const recordMs: number[] = [];
  for (const { key, ...rec } of RECORDS) {
    const t = performance.now();
    ids.set(key, (await api.recordError(rec)).record.id);
    recordMs.push(performance.now() - t);
  }
  for (const rec of distractors(TOTAL - RECORDS.length)) {
    const t = performance.now();
    await api.recordError(rec);
    recordMs.push(performance.now() - t);
  }
  const total = api.listErrors().total;
  log(`recorded ${total} error records`);
  const rec = summarize(recordMs);
  rows.push({
    name: `errors record (builtin embedder, ${total} records)`,
    value: `p50 ${fmtMs(rec.p50)}, p95 ${fmtMs(rec.p95)}`,
  });

  const quality = async (set: Paraphrase[], withTool: boolean) => {
    let first = 0;
    const ms: number[] = [];
    for (const p of set) {
      const t = performance.now();
      const r = await api.searchErrors({ query: p.query, tool: withTool ? p.tool : undefined });
      ms.push(performance.now() - t);
      if (r.hits[0]?.record.id === ids.get(p.expect)) first++;
    }
    return { first, ms };
  };
  await api.searchErrors({ query: "warm-up" });
  const runs = [
    { label: "reworded errors", set: PARAPHRASES, tool: false },
    { label: "reworded errors, --tool", set: PARAPHRASES, tool: true },
    { label: "descriptions (hard)", set: HARD_PARAPHRASES, tool: false },
    { label: "descriptions (hard), --tool", set: HARD_PARAPHRASES, tool: true },
  ];
  const searchMs: number[] = [];
  for (const r of runs) {
    const q = await quality(r.set, r.tool);
    searchMs.push(...q.ms);
    rows.push({ name: `fix found first: ${r.label}, among ${total}`, value: `${q.first}/${r.set.length}` });
  }
  const s = summarize(searchMs);
  rows.push({
    name: `errors search in-process, ${total} records (${s.n} queries)`,
    value: `p50 ${fmtMs(s.p50)}, p95 ${fmtMs(s.p95)}`,
  });
  api.close();

  // The daemon's port is picked by the system; the commands have the same environment (the daemon is asked only
  // when its config, MEMVOY_* overrides included, is theirs).
  const env = { PATH: process.env.PATH!, HOME: tmpdir(), MEMVOY_HTTP_PORT: "0" };
  /** Wall times of CLI_RUNS commands, the i-th run with `args(i)`; each must exit 0 and pass `ok` on its JSON. */
  const timeCli = async (args: (i: number) => string[], ok: (json: never) => boolean): Promise<number[]> => {
    const ms: number[] = [];
    for (let i = 0; i < CLI_RUNS; i++) {
      const t = performance.now();
      const proc = Bun.spawn(["bun", join(root, "src/index.ts"), "--home", home, ...args(i), "--json"], {
        stdout: "pipe",
        stderr: "pipe",
        env,
      });
      const out = await new Response(proc.stdout).text();
      if ((await proc.exited) !== 0 || !ok(JSON.parse(out) as never))
        throw new Error(`memvoy ${args(i).join(" ")} failed: ${out}`);
      ms.push(performance.now() - t);
    }
    return ms;
  };
  const cliRuns = () =>
    timeCli(
      (i) => ["errors", "search", PARAPHRASES[i % PARAPHRASES.length]!.query],
      (r: { hits: unknown[] }) => r.hits.length > 0,
    );
  // Each removal takes a record of its own: the local round, the daemon's first round and its timed round.
  const spare = openMemory({ home, env: {}, drain: "off" });
  const removable = spare.listErrors({ limit: 3 * CLI_RUNS }).records.map((r) => r.id);
  spare.close();
  const rmRuns = () =>
    timeCli(
      () => ["errors", "rm", removable.shift()!],
      (r: { removed: { id: string } }) => typeof r.removed.id === "string",
    );
  const c = summarize(await cliRuns());
  rows.push({
    name: `memvoy errors search process (bun src/index.ts), ${total} records`,
    value: `p50 ${fmtMs(c.p50)}, p95 ${fmtMs(c.p95)}`,
  });
  const rm = summarize(await rmRuns());
  rows.push({
    name: "memvoy errors rm process (bun src/index.ts)",
    value: `p50 ${fmtMs(rm.p50)}, p95 ${fmtMs(rm.p95)}`,
  });

  // With the daemon running, the command asks it; its worker keeps LanceDB and the embedder loaded between
  // calls (a first round, whose first call starts the worker, is not counted).
  const daemon = Bun.spawn(["bun", join(root, "src/index.ts"), "--daemon", "--home", home], {
    stdout: "ignore",
    stderr: "ignore",
    env,
  });
  try {
    const httpFile = join(home, "http.json");
    for (const start = performance.now(); !existsSync(httpFile); await Bun.sleep(20))
      if (performance.now() - start > 30_000) throw new Error("the daemon did not start");
    await cliRuns();
    await rmRuns();
    // The commands asked the daemon only if its worker ran them (a stamp of another config would search here).
    if (!readFileSync(join(home, "daemon.log"), "utf8").includes("job=api"))
      throw new Error("the commands did not ask the daemon");
    const d = summarize(await cliRuns());
    rows.push({
      name: `memvoy errors search process asking the daemon (bun src/index.ts), ${total} records`,
      value: `p50 ${fmtMs(d.p50)}, p95 ${fmtMs(d.p95)}`,
    });
    const dr = summarize(await rmRuns());
    rows.push({
      name: "memvoy errors rm process asking the daemon (bun src/index.ts)",
      value: `p50 ${fmtMs(dr.p50)}, p95 ${fmtMs(dr.p95)}`,
    });
  } finally {
    daemon.kill("SIGTERM");
    await daemon.exited;
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}
for (const r of rows) log(`${r.name}: ${r.value}`);
emitRows(rows);
