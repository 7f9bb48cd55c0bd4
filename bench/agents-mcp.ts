// MCP over stdio from the compiled binary: spawn -> tools/list answered (p50 of 20 spawns; target 150 ms),
// and chat_history search p50 on the 1M home through one running server.
// `bun bench/agents-mcp.ts [--quick]`
import { mkdtempSync, rmSync } from "node:fs";
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
function server(bin: string, home: string) {
  const proc = Bun.spawn([bin, "mcp", "--home", home], {
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

const rows: BenchRow[] = [];
const bin = await buildBinaryOnce();
const scratch = mkdtempSync(join(tmpdir(), "memvoy-bench-mcp-"));
try {
  const SPAWNS = 20;
  const times: number[] = [];
  for (let i = 0; i < SPAWNS; i++) {
    const t = performance.now();
    const s = server(bin, scratch);
    await s.request("initialize", INIT);
    s.notify("notifications/initialized");
    const list = await s.request("tools/list");
    times.push(performance.now() - t);
    if (list.result.tools.length !== 5) throw new Error("tools/list did not list the 5 tools");
    await s.close();
  }
  const p50 = summarize(times).p50;
  // The same binary's bare start (`--version`) in the same run: what spawning costs on this machine now.
  const bare: number[] = [];
  for (let i = 0; i < SPAWNS; i++) {
    const t = performance.now();
    Bun.spawnSync([bin, "--version"], { stdout: "ignore" });
    bare.push(performance.now() - t);
  }
  rows.push({
    name: `compiled binary: spawn -> --version exited, p50 of ${SPAWNS} (baseline)`,
    value: fmtMs(summarize(bare).p50),
  });
  rows.push({
    name: `MCP stdio, compiled binary: spawn -> tools/list answered, p50 of ${SPAWNS}`,
    value: fmtMs(p50),
    target: "<= 150 ms",
    ok: p50 <= 150,
  });

  const home = ensureHome(IMPORT_SPEC, rows);
  const s = server(bin, home);
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
} finally {
  rmSync(scratch, { recursive: true, force: true });
  removeTempDirs();
}
for (const r of rows) log(`${r.name}: ${r.value}`);
emitRows(rows);
