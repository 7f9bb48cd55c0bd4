// The daemon at rest and at work: idle CPU and RSS once LanceDB is loaded (after draining the embedding
// queue), SIGTERM to exit, and keyword searches from another process while nightly maintenance runs.
// Targets: idle RSS <= 120 MB, idle CPU near zero, exit < 5 s, searches never wait long on maintenance.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openMemory } from "../src/lib.ts";

// bench/run.ts reads one `BENCH_ROWS <json>` line from stdout (the protocol of bench/lib/report.ts).
interface BenchRow {
  name: string;
  value: string;
  target?: string;
  ok?: boolean;
}
const emitRows = (rows: BenchRow[]) => process.stdout.write(`BENCH_ROWS ${JSON.stringify(rows)}\n`);
const log = (line: string) => process.stderr.write(line + "\n");
const quick = process.argv.includes("--quick");

const entry = resolve(import.meta.dir, "../src/index.ts");
const IDLE_MS = quick ? 3_000 : 15_000;
const MESSAGES = quick ? 2_000 : 20_000;
const TICKS_PER_SEC = 100; // USER_HZ on Linux

// Child mode: run the nightly maintenance on a home and print its report.
if (process.argv[2] === "--maintain-child") {
  const api = openMemory({ home: process.argv[3]!, env: {}, drain: "off" });
  const t = performance.now();
  const r = await api.maintain();
  process.stdout.write(JSON.stringify({ ms: performance.now() - t, archive: r.archive, vectors: r.vectors }) + "\n");
  api.close();
  process.exit(0);
}

function cpuTicks(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8");
  const rest = f.slice(f.lastIndexOf(")") + 2).split(" ");
  return Number(rest[11]) + Number(rest[12]);
}

function procKb(pid: number, field: string): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) : NaN;
}

function state(home: string): any {
  try {
    return JSON.parse(readFileSync(join(home, "daemon.state.json"), "utf8"));
  } catch {
    return undefined;
  }
}

async function until<T>(what: string, check: () => T | undefined, timeoutMs = 600_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;

const home = mkdtempSync(join(tmpdir(), "memvoy-bench-daemon-"));
try {
  const api = openMemory({ home, env: {}, drain: "off" });
  const words = ["deploy", "vault", "pipeline", "cluster", "rollback", "schema", "invoice", "latency", "cache", "token"];
  for (let i = 0; i < MESSAGES; i += 20) {
    api.add(
      `s${(i / 20) % 25}`,
      Array.from({ length: 20 }, (_, k) => ({
        role: k % 2 ? ("assistant" as const) : ("user" as const),
        content: `message ${i + k} about the ${words[(i + k) % 10]} ${words[(i * 7 + k) % 10]} step ${(i + k) % 97}`,
      })),
    );
  }
  api.close();
  log(`daemon bench: ${MESSAGES} messages in 25 sessions, queued for embedding (${home})`);

  const proc = Bun.spawn(["bun", entry, "--daemon", "--home", home], { env: { PATH: process.env.PATH!, HOME: tmpdir() }, stdout: "ignore", stderr: "inherit" });
  const t0 = performance.now();
  await until("the queue to drain", () => (/ 0 queued$/.test(state(home)?.jobs?.embeddings?.lastDetail ?? "") ? true : undefined));
  const drainMs = performance.now() - t0;
  const hwmMb = procKb(proc.pid, "VmHWM") / 1024;
  await Bun.sleep(2_000); // the idle window starts once the last burst has settled
  const a = cpuTicks(proc.pid);
  const w0 = performance.now();
  await Bun.sleep(IDLE_MS);
  const cpuPct = ((cpuTicks(proc.pid) - a) / TICKS_PER_SEC / ((performance.now() - w0) / 1000)) * 100;
  const rssMb = procKb(proc.pid, "VmRSS") / 1024;
  const anonMb = procKb(proc.pid, "RssAnon") / 1024;
  const s = performance.now();
  proc.kill("SIGTERM");
  const code = await proc.exited;
  const stopMs = performance.now() - s;

  // Maintenance in another process while this one searches: how long does a search wait?
  const reader = openMemory({ home, env: {}, drain: "off" });
  const baseline: number[] = [];
  for (let i = 0; i < 50; i++) {
    const t = performance.now();
    await reader.search({ query: words[i % 10]!, limit: 10 });
    baseline.push(performance.now() - t);
  }
  const child = Bun.spawn(["bun", import.meta.path, "--maintain-child", home], { stdout: "pipe", stderr: "inherit" });
  const during: number[] = [];
  let done = false;
  const report = new Response(child.stdout).text().finally(() => (done = true));
  while (!done) {
    const t = performance.now();
    await reader.search({ query: words[during.length % 10]!, limit: 10 });
    during.push(performance.now() - t);
    await Bun.sleep(1);
  }
  reader.close();
  const m = JSON.parse(await report);

  const rows: BenchRow[] = [
    { name: `daemon: start + drain ${MESSAGES} queued messages`, value: `${(drainMs / 1000).toFixed(1)} s` },
    { name: `daemon idle CPU over ${(IDLE_MS / 1000).toFixed(0)} s, LanceDB loaded`, value: `${cpuPct.toFixed(2)} %`, target: "<= 1 %", ok: cpuPct <= 1 },
    { name: "daemon idle RSS, LanceDB loaded (bun src/index.ts)", value: `${rssMb.toFixed(0)} MB (${anonMb.toFixed(0)} MB anonymous)`, target: "<= 120 MB", ok: rssMb <= 120 },
    { name: "daemon peak RSS while draining", value: `${hwmMb.toFixed(0)} MB` },
    { name: "daemon SIGTERM to exit", value: `${stopMs.toFixed(0)} ms (exit ${code})`, target: "< 5000 ms, exit 0", ok: stopMs < 5000 && code === 0 },
    {
      name: `nightly maintenance (${MESSAGES} messages): FTS merge steps, longest write`,
      value: `${(m.ms / 1000).toFixed(1)} s, ${m.archive.mergeSteps} steps, longest ${m.archive.longestStepMs.toFixed(0)} ms; vectors ${m.vectors.done ? `${m.vectors.ms} ms` : m.vectors.note}`,
    },
    {
      name: "keyword search p50 / max while maintenance runs (other process)",
      value: `${pct(during, 50).toFixed(1)} / ${Math.max(...during).toFixed(1)} ms over ${during.length} searches (idle p50 ${pct(baseline, 50).toFixed(1)} ms)`,
      target: "max < 500 ms",
      ok: Math.max(...during) < 500,
    },
  ];
  for (const r of rows) log(`${r.name}: ${r.value}${r.target ? ` (target ${r.target}: ${r.ok ? "ok" : "MISSED"})` : ""}`);
  emitRows(rows);
} finally {
  rmSync(home, { recursive: true, force: true });
}
