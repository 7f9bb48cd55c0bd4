// MCP over stdio from the compiled binary: spawn -> tools/list answered (p50 of 20 spawns; target 150 ms),
// interleaved with two contenders spawned the same way (the binary's `--version`, and a bare MCP SDK stdio
// server compiled like memvoy), and chat_history search p50 on the 1M home through one running server.
// `bun bench/agents-mcp.ts [--quick] [--rounds N] [--start-only]`
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildBinaryOnce, removeTempDirs } from "../test/fixture/binary.ts";
import { ensureHome } from "./lib/ensure-home.ts";
import { benchQueries } from "./lib/queries.ts";
import { emitRows, log, quick, type BenchRow } from "./lib/report.ts";
import { IMPORT_SPEC, countLabel } from "./lib/sizes.ts";
import { fmtMs, summarize } from "./lib/stats.ts";

const INIT = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } };

/** A stdio MCP server as an agent runs it; answers matched by id. */
function server(command: string[]) {
  const proc = Bun.spawn(command, {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "ignore",
    env: { PATH: "/usr/bin:/bin", HOME: tmpdir() },
  });
  const waiting = new Map<number, (v: any) => void>();
  let next = 1;
  void (async () => {
    let buf = "";
    const dec = new TextDecoder();
    for await (const chunk of proc.stdout) {
      buf += dec.decode(chunk, { stream: true });
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        const msg = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        waiting.get(msg.id)?.(msg);
      }
    }
  })();
  const send = (m: object) => {
    proc.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n");
    proc.stdin.flush();
  };
  return {
    proc,
    request(method: string, params?: object): Promise<any> {
      const id = next++;
      const p = new Promise((resolve) => waiting.set(id, resolve));
      send({ id, method, ...(params ? { params } : {}) });
      return p;
    },
    notify: (method: string) => send({ method }),
    async close() {
      proc.stdin.end();
      await proc.exited;
    },
  };
}

/** The bare SDK server, compiled with the options of build.ts. */
async function buildContender(dir: string): Promise<string> {
  const outfile = join(dir, "bare-mcp-server");
  const r = await Bun.build({
    entrypoints: [join(import.meta.dir, "lib/bare-mcp-server.ts")],
    target: "bun",
    format: "esm",
    bytecode: true,
    minify: true,
    compile: { outfile, autoloadDotenv: false, autoloadBunfig: false },
  });
  if (!r.success) throw new Error(r.logs.join("\n"));
  return outfile;
}

/** Spawn -> initialize answered, initialized, tools/list answered. */
async function timeToList(command: string[], tools: number): Promise<number> {
  const t = performance.now();
  const s = server(command);
  await s.request("initialize", INIT);
  s.notify("notifications/initialized");
  const list = await s.request("tools/list");
  const ms = performance.now() - t;
  if (list.result.tools.length !== tools) throw new Error(`tools/list did not list ${tools} tools`);
  await s.close();
  return ms;
}

/** chat_history search through one running server on the 1M home. */
async function searchBench(): Promise<void> {
  const home = ensureHome(IMPORT_SPEC, rows);
  const s = server([bin, "mcp", "--home", home]);
  await s.request("initialize", INIT);
  s.notify("notifications/initialized");
  const searchTimes: number[] = [];
  for (const q of benchQueries(IMPORT_SPEC.sessions)) {
    const args = { mode: "search", query: q.query, session: q.session, range: q.range, match: "keyword", limit: 10 };
    await s.request("tools/call", { name: "chat_history", arguments: args });
    for (let i = 0; i < (quick ? 2 : 5); i++) {
      const t = performance.now();
      const r = await s.request("tools/call", { name: "chat_history", arguments: args });
      searchTimes.push(performance.now() - t);
      if (r.result.isError) throw new Error(r.result.content[0].text);
    }
  }
  await s.close();
  rows.push({
    name: `MCP chat_history search (keyword, compact rows) on ${countLabel(IMPORT_SPEC.messages)}: p50`,
    value: fmtMs(summarize(searchTimes).p50),
  });
}

const rows: BenchRow[] = [];
const bin = await buildBinaryOnce();
const scratch = mkdtempSync(join(tmpdir(), "memvoy-bench-mcp-"));
const roundsArg = process.argv.indexOf("--rounds");
const ROUNDS = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 1;
try {
  const bare = await buildContender(scratch);
  const SPAWNS = 20;
  for (let round = 1; round <= ROUNDS; round++) {
    const load = loadavg()[0]!.toFixed(1);
    const mine: number[] = [];
    const sdk: number[] = [];
    const version: number[] = [];
    // Interleaved, so that the machine's load weighs on the three alike.
    for (let i = 0; i < SPAWNS; i++) {
      mine.push(await timeToList([bin, "mcp", "--home", scratch], 5));
      sdk.push(await timeToList([bare], 1));
      const t = performance.now();
      Bun.spawnSync([bin, "--version"], { stdout: "ignore" });
      version.push(performance.now() - t);
    }
    const [p50, sdkP50, versionP50] = [mine, sdk, version].map((x) => summarize(x).p50) as [number, number, number];
    const tag = ROUNDS > 1 ? ` (round ${round}, load ${load})` : ` (load ${load})`;
    rows.push({
      name: `MCP stdio, compiled binary: spawn -> tools/list answered, p50 of ${SPAWNS}${tag}`,
      value: `${fmtMs(p50)}; bare SDK server ${fmtMs(sdkP50)} (${(p50 / sdkP50).toFixed(2)}x); --version ${fmtMs(versionP50)}`,
      target: "<= 150 ms",
      ok: p50 <= 150,
    });
  }

  if (!process.argv.includes("--start-only")) await searchBench();
} finally {
  rmSync(scratch, { recursive: true, force: true });
  removeTempDirs();
}
for (const r of rows) log(`${r.name}: ${r.value}`);
emitRows(rows);
