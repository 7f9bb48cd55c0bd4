// The loopback HTTP API against the library in the same run: add p50 and keyword search p50 through
// connectMemory (the server in its own process, as the daemon serves it) vs openMemory in this process,
// and keyword searches per second with 8 concurrent clients on the 1M home. Target: overhead <= 1 ms at p50.
// `bun bench/agents-http.ts [--quick]`
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectMemory, type MemoryApi } from "../src/lib.ts";
import { LocalMemoryApi } from "../src/app/api/local-memory-api.ts";
import { openMemory as openHome } from "../src/app/open-memory.ts";
import { ensureHome } from "./lib/ensure-home.ts";
import { benchQueries } from "./lib/queries.ts";
import { emitRows, log, quick, type BenchRow } from "./lib/report.ts";
import { IMPORT_SPEC, countLabel } from "./lib/sizes.ts";
import { fmtMs, summarize } from "./lib/stats.ts";

const TOKEN = "bench-token-0123456789abcdefghijklmnop";

// Child mode: serve a home over HTTP (port 0) and print the URL.
if (process.argv[2] === "--serve") {
  const { startHttpServer } = await import("../src/http/http-server.ts");
  const api = new LocalMemoryApi(openHome({ home: process.argv[3]!, env: {}, drain: "off" }));
  const server = startHttpServer({ api, port: 0, token: TOKEN, maxBodyBytes: 8 << 20, version: "bench" });
  process.stdout.write(server.url + "\n");
  process.stdin.on("end", () => process.exit(0));
  process.stdin.resume();
} else {
  await main();
}

/** The library side opens the home as the server does (no background embedding in either). */
function library(home: string): MemoryApi {
  return new LocalMemoryApi(openHome({ home, env: {}, drain: "off" }));
}

async function serve(home: string): Promise<{ url: string; stop(): void }> {
  const proc = Bun.spawn(["bun", import.meta.path, "--serve", home], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = proc.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the server child exited");
    text += new TextDecoder().decode(value);
  }
  return {
    url: text.trim(),
    stop: () => {
      proc.stdin.end();
      proc.kill();
    },
  };
}

async function timeAdds(api: MemoryApi, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await api.add(`bench-${i % 10}`, {
      role: i % 2 ? "assistant" : "user",
      content: `message ${i} about the deploy pipeline and its rollback plan`,
    });
    times.push(performance.now() - t);
  }
  return times;
}

/**
 * Keyword searches through each API, interleaved query by query and rep by rep (the order alternating), after
 * two warm-up passes of every query through each: both processes search with warm code and caches, as a server
 * that has run a while does. Times per API, in its order.
 */
async function timeSearches(apis: readonly MemoryApi[], reps: number): Promise<number[][]> {
  const times = apis.map((): number[] => []);
  const queries = benchQueries(IMPORT_SPEC.sessions).map((q) => ({
    query: q.query,
    session: q.session,
    range: q.range,
    match: "keyword" as const,
    limit: 10,
  }));
  for (let pass = 0; pass < 2; pass++) for (const o of queries) for (const api of apis) await api.search(o);
  let turn = 0;
  for (const o of queries)
    for (let i = 0; i < reps; i++, turn++)
      for (let j = 0; j < apis.length; j++) {
        const k = (turn + j) % apis.length;
        const t = performance.now();
        await apis[k]!.search(o);
        times[k]!.push(performance.now() - t);
      }
  return times;
}

async function main(): Promise<void> {
  const rows: BenchRow[] = [];
  const ADDS = quick ? 100 : 1000;
  const overhead = (name: string, lib: number[], http: number[]) => {
    const l = summarize(lib).p50;
    const h = summarize(http).p50;
    rows.push({ name: `${name} p50: library`, value: fmtMs(l) });
    rows.push({ name: `${name} p50: HTTP`, value: fmtMs(h) });
    rows.push({ name: `${name} p50: HTTP overhead`, value: fmtMs(h - l), target: "<= 1 ms", ok: h - l <= 1 });
  };

  // add: two fresh homes, one through the library, one through the API
  const dirs = [0, 1].map(() => mkdtempSync(join(tmpdir(), "memvoy-bench-http-")));
  try {
    const lib = library(dirs[0]!);
    const libAdds = await timeAdds(lib, ADDS);
    await lib.close();
    const server = await serve(dirs[1]!);
    const http = connectMemory({ url: server.url, token: TOKEN });
    const httpAdds = await timeAdds(http, ADDS);
    server.stop();
    overhead(`add (${ADDS} single messages)`, libAdds, httpAdds);
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }

  // keyword search on the big home
  const home = ensureHome(IMPORT_SPEC, rows);
  const n = countLabel(IMPORT_SPEC.messages);
  const reps = quick ? 2 : 5;
  const lib = library(home);
  const server = await serve(home);
  try {
    const http = connectMemory({ url: server.url, token: TOKEN });
    const [libSearch, httpSearch] = await timeSearches([lib, http], reps);
    overhead(`keyword search on ${n}`, libSearch!, httpSearch!);
    const seconds = quick ? 2 : 10;
    const queries = benchQueries(IMPORT_SPEC.sessions);
    let done = 0;
    const until = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: 8 }, async (_, c) => {
        for (let i = c; performance.now() < until; i++) {
          const q = queries[i % queries.length]!;
          await http.search({ query: q.query, session: q.session, range: q.range, match: "keyword", limit: 10 });
          done++;
        }
      }),
    );
    rows.push({
      name: `keyword search on ${n}, 8 concurrent HTTP clients`,
      value: `${Math.round(done / seconds)} req/s`,
    });
  } finally {
    server.stop();
    await lib.close();
  }
  for (const r of rows) log(`${r.name}: ${r.value}`);
  emitRows(rows);
}
