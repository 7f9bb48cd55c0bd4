// `bun run bench import-sources`: a generated Claude Code projects folder (2 GiB) and Codex sessions folder
// (1 GiB) imported into an empty home; the first import's rate against bench/import.ts's workload (MemoryApi.add)
// run in the same process, re-runs with nothing new, and a fifth of the Claude Code corpus imported with the
// substring index deferred to the pass's end and written inline. --quick: 40 MiB and 20 MiB.
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { openMemory } from "../src/app/open-memory.ts";
import { importSource } from "../src/import/run-import.ts";
import { BULK_IMPORT } from "../src/memory/imports/deferred-index.ts";
import { sourceByName } from "../src/import/source-registry.ts";
import { buildHome } from "./lib/build-home.ts";
import { rng, sessionStream } from "./lib/corpus.ts";
import { scratchDir } from "./lib/home-cache.ts";
import { emitRows, log, quick } from "./lib/report.ts";
import { fmtMiB, peakRssBytes } from "./lib/rss.ts";
import { fmtInt } from "./lib/stats.ts";
import { IMPORT_SPEC } from "./lib/sizes.ts";

const MiB = 1024 * 1024;
const CC_BYTES = (quick ? 40 : 2048) * MiB;
const CODEX_BYTES = (quick ? 20 : 1024) * MiB;
const TURNS_PER_SESSION = 200;
const T0 = Date.UTC(2026, 0, 1);

const dir = scratchDir("import-sources");
const src = join(dir, "src");

/** Tool output: the bulk of real transcripts (file reads, command output). */
function toolOutput(next: () => number, text: () => string): string {
  const n = 2 + Math.floor(next() * 10);
  let out = "";
  for (let i = 0; i < n; i++) out += `${String(i + 1).padStart(4)}\t${text()}\n`;
  return out;
}

interface Writer {
  write(line: string): void;
  close(): void;
  bytes: number;
}

function writer(path: string): Writer {
  const fd = openSync(path, "w");
  let buf: string[] = [];
  let len = 0;
  const w: Writer = {
    bytes: 0,
    write(line) {
      buf.push(line, "\n");
      len += line.length + 1;
      w.bytes += Buffer.byteLength(line) + 1;
      if (len > 1 << 20) {
        writeSync(fd, buf.join(""));
        buf = [];
        len = 0;
      }
    },
    close() {
      writeSync(fd, buf.join(""));
      closeSync(fd);
    },
  };
  return w;
}

const mix = { cc: new Map<string, number>(), codex: new Map<string, number>() };
const count = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

function generateClaude(root: string, budget: number): { messages: number; sessions: number } {
  let total = 0;
  let messages = 0;
  let s = 0;
  while (total < budget) {
    const id = `00000000-0000-4000-8000-${String(s).padStart(12, "0")}`;
    const folder = join(root, "projects", `-home-dev-p${s % 20}`);
    mkdirSync(folder, { recursive: true });
    const w = writer(join(folder, `${id}.jsonl`));
    const text = sessionStream(s);
    const next = rng(s + 11);
    const say = () => text().content;
    const base = {
      sessionId: id,
      cwd: `/home/dev/p${s % 20}`,
      version: "2.1.3",
      gitBranch: "main",
      isSidechain: false,
      userType: "external",
    };
    let parent: string | null = null;
    let t = T0 + s * 3_600_000;
    const rec = (o: Record<string, unknown>, kind: string) => {
      const uuid = `u-${s}-${mix.cc.size}-${total}-${w.bytes}`;
      w.write(
        JSON.stringify({ ...base, ...o, uuid, parentUuid: parent, timestamp: new Date((t += 1500)).toISOString() }),
      );
      count(mix.cc, kind);
      parent = uuid;
    };
    for (let turn = 0; turn < TURNS_PER_SESSION; turn++) {
      if (turn % 10 === 0) {
        w.write(
          JSON.stringify({
            type: "file-history-snapshot",
            messageId: `m${turn}`,
            snapshot: { trackedFileBackups: {} },
          }),
        );
        count(mix.cc, "file-history-snapshot");
      }
      rec({ type: "user", message: { role: "user", content: say() } }, "user prompt");
      const mid = `msg_${s}_${turn}`;
      rec(
        {
          type: "assistant",
          requestId: `req_${s}_${turn}`,
          message: {
            id: mid,
            role: "assistant",
            model: "claude-sonnet-4-5",
            content: [
              { type: "thinking", thinking: say() },
              { type: "text", text: say() },
            ],
          },
        },
        "assistant text (streamed part 1)",
      );
      rec(
        {
          type: "assistant",
          requestId: `req_${s}_${turn}`,
          message: {
            id: mid,
            role: "assistant",
            model: "claude-sonnet-4-5",
            content: [
              { type: "tool_use", id: `toolu_${s}_${turn}`, name: "Read", input: { file_path: `/src/f${turn}.ts` } },
            ],
          },
        },
        "assistant tool_use (streamed part 2)",
      );
      rec(
        {
          type: "user",
          message: {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: `toolu_${s}_${turn}`, content: toolOutput(next, say) }],
          },
          toolUseResult: { stdout: "", stderr: "", interrupted: false },
        },
        "tool result",
      );
      rec({ type: "progress", data: { type: "hook_progress" } }, "progress");
      messages += 2;
    }
    w.close();
    total += w.bytes;
    s++;
  }
  return { messages, sessions: s };
}

function generateCodex(root: string, budget: number): { messages: number; sessions: number } {
  let total = 0;
  let messages = 0;
  let s = 0;
  while (total < budget) {
    const id = `0199${String(s).padStart(4, "0")}-0000-7000-8000-000000000000`;
    const day = join(root, "sessions", "2026", "01", String((s % 28) + 1).padStart(2, "0"));
    mkdirSync(day, { recursive: true });
    const w = writer(join(day, `rollout-2026-01-01T00-00-00-${id}.jsonl`));
    const text = sessionStream(100_000 + s);
    const next = rng(s + 29);
    const say = () => text().content;
    let t = T0 + s * 3_600_000;
    const line = (type: string, payload: Record<string, unknown>, kind: string) => {
      w.write(JSON.stringify({ timestamp: new Date((t += 1000)).toISOString(), type, payload }));
      count(mix.codex, kind);
    };
    line(
      "session_meta",
      { id, cwd: `/home/dev/c${s % 10}`, cli_version: "0.40.0", git: { branch: "main" } },
      "session_meta",
    );
    for (let turn = 0; turn < TURNS_PER_SESSION; turn++) {
      const prompt = say();
      line(
        "response_item",
        { type: "message", role: "user", content: [{ type: "input_text", text: prompt }] },
        "response_item message (user)",
      );
      line("event_msg", { type: "user_message", message: prompt }, "event_msg user_message");
      line("response_item", { type: "reasoning", summary: [{ type: "summary_text", text: say() }] }, "reasoning");
      line(
        "response_item",
        {
          type: "function_call",
          name: "shell",
          arguments: JSON.stringify({ command: ["cat", `f${turn}`] }),
          call_id: `c${turn}`,
        },
        "function_call",
      );
      line(
        "response_item",
        { type: "function_call_output", call_id: `c${turn}`, output: toolOutput(next, say) },
        "function_call_output",
      );
      line("event_msg", { type: "exec_command_end", call_id: `c${turn}`, exit_code: 0 }, "exec_command_end");
      const answer = say();
      line(
        "response_item",
        { type: "message", role: "assistant", content: [{ type: "output_text", text: answer }] },
        "response_item message (assistant)",
      );
      line("event_msg", { type: "agent_message", message: answer }, "event_msg agent_message");
      line("event_msg", { type: "token_count", info: null }, "token_count");
      messages += 2;
    }
    w.close();
    total += w.bytes;
    s++;
  }
  return { messages, sessions: s };
}

log(
  `import-sources: generating ${fmtMiB(CC_BYTES)} of Claude Code and ${fmtMiB(CODEX_BYTES)} of Codex transcripts in ${src}`,
);
const gen0 = performance.now();
const cc = generateClaude(join(src, "claude"), CC_BYTES);
const cx = generateCodex(join(src, "codex"), CODEX_BYTES);
log(
  `  generated in ${((performance.now() - gen0) / 1000).toFixed(1)} s: ${fmtInt(cc.messages)} + ${fmtInt(cx.messages)} messages`,
);

const cpuMs = (since?: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};

// The reference first: bench/import.ts's own workload (IMPORT_SPEC: sessions, messages per add), in this process.
log(`  reference: bench/import.ts's workload (${fmtInt(IMPORT_SPEC.messages)} messages, ${IMPORT_SPEC.batch} per add)`);
const refImport = buildHome(join(dir, "ref-import"), IMPORT_SPEC);
rmSync(join(dir, "ref-import"), { recursive: true, force: true });

const home = join(dir, "home");
const api = openMemory({ home, env: {}, drain: "off" });
const claude = { env: { CLAUDE_CONFIG_DIR: join(src, "claude") } };
const codex = { env: { CODEX_HOME: join(src, "codex") } };
const c0 = process.cpuUsage();
const t0 = performance.now();
const r1 = await importSource(api, sourceByName(api, "claude-code"), claude);
const t1 = performance.now();
const r2 = await importSource(api, sourceByName(api, "codex"), codex);
const t2 = performance.now();
const importCpu = cpuMs(c0);
const reruns: number[] = [];
let again = 0;
for (let i = 0; i < 3; i++) {
  const a0 = performance.now();
  const a1 = await importSource(api, sourceByName(api, "claude-code"), claude);
  const a2 = await importSource(api, sourceByName(api, "codex"), codex);
  reruns.push(performance.now() - a0);
  again += a1.messages.added + a2.messages.added;
}
api.close();
if (r1.messages.added !== cc.messages || r2.messages.added !== cx.messages || again !== 0) {
  throw new Error(
    `import-sources: expected ${cc.messages}+${cx.messages} messages, got ${r1.messages.added}+${r2.messages.added}, re-runs added ${again}`,
  );
}
const total = cc.messages + cx.messages;
const ccRate = cc.messages / ((t1 - t0) / 1000);
const cxRate = cx.messages / ((t2 - t1) / 1000);
const firstRate = total / ((t2 - t0) / 1000);
const firstCpuRate = total / (importCpu / 1000);

// A second reference after the import: the same messages through MemoryApi.add, one add per imported session.
const sameMessages = Math.min(total, quick ? 40_000 : 400_000);
const refSame = buildHome(join(dir, "ref-same"), {
  messages: sameMessages,
  sessions: Math.max(1, Math.round(sameMessages / (2 * TURNS_PER_SESSION))),
  batch: 2 * TURNS_PER_SESSION,
});

// A large pass defers the substring index to one build at its end (src/memory/imports/deferred-index.ts): the
// same pass with it written message by message instead, each into an empty home, a fifth of the Claude Code
// corpus (4 of its 20 project folders), deferred first. --quick lowers the threshold so that it defers at all.
const fifth = Array.from({ length: 4 }, (_, k) => join(src, "claude", "projects", `-home-dev-p${k}`));
const defaults = { ...BULK_IMPORT };
const passSeconds = async (after: number) => {
  BULK_IMPORT.after = after;
  const h = join(dir, `pass-${after}`);
  const a = openMemory({ home: h, env: {}, drain: "off" });
  try {
    const s0 = performance.now();
    const r = await importSource(a, sourceByName(a, "claude-code"), { paths: fifth });
    return { s: (performance.now() - s0) / 1000, added: r.messages.added };
  } finally {
    a.close();
    Object.assign(BULK_IMPORT, defaults);
    rmSync(h, { recursive: true, force: true });
  }
};
log("  the same pass with the substring index deferred, then written inline");
const deferred = await passSeconds(quick ? 1_000 : BULK_IMPORT.after);
const inline = await passSeconds(Number.POSITIVE_INFINITY);
rmSync(dir, { recursive: true, force: true });

const rate = (m: number, ms: number) => m / (ms / 1000);
const refRate = rate(IMPORT_SPEC.messages, refImport.addMs);
const refCpuRate = rate(IMPORT_SPEC.messages, refImport.addCpuMs);
const sameRate = rate(sameMessages, refSame.addMs);
const sameCpuRate = rate(sameMessages, refSame.addCpuMs);
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
const perGiB = (m: number, b: number) => fmtInt(m / (b / (1024 * MiB)));
const shape = (m: Map<string, number>) => [...m].map(([k, n]) => `${k} ${fmtInt(n)}`).join(", ");
emitRows([
  {
    name: `corpus: Claude Code ${fmtMiB(CC_BYTES)}`,
    value: `${fmtInt(cc.messages)} messages in ${fmtInt(cc.sessions)} sessions (${perGiB(cc.messages, CC_BYTES)} messages per GiB; 5 records a turn: prompt, 2 streamed assistant records, tool result, progress)`,
  },
  { name: "corpus: Claude Code record mix", value: shape(mix.cc) },
  {
    name: `corpus: Codex ${fmtMiB(CODEX_BYTES)}`,
    value: `${fmtInt(cx.messages)} messages in ${fmtInt(cx.sessions)} rollouts (${perGiB(cx.messages, CODEX_BYTES)} messages per GiB; 9 lines a turn)`,
  },
  { name: "corpus: Codex line mix", value: shape(mix.codex) },
  { name: "first import: Claude Code", value: `${fmtInt(ccRate)} msg/s (${((t1 - t0) / 1000).toFixed(1)} s)` },
  { name: "first import: Codex", value: `${fmtInt(cxRate)} msg/s (${((t2 - t1) / 1000).toFixed(1)} s)` },
  {
    name: `first import vs bench/import.ts's workload (${fmtInt(IMPORT_SPEC.messages)} messages, ${IMPORT_SPEC.batch}/add) in this run`,
    value: `${fmtInt(firstRate)} vs ${fmtInt(refRate)} msg/s (${ratio(firstRate, refRate)})`,
    target: ">= 0.8x",
    ok: firstRate >= 0.8 * refRate,
  },
  {
    name: "the same in CPU time (less sensitive to a loaded machine)",
    value: `${fmtInt(firstCpuRate)} vs ${fmtInt(refCpuRate)} msg/s of CPU (${ratio(firstCpuRate, refCpuRate)})`,
  },
  {
    name: `first import vs MemoryApi.add of ${fmtInt(sameMessages)} messages in sessions of the import's size, one add each`,
    value: `${fmtInt(firstRate)} vs ${fmtInt(sameRate)} msg/s (${ratio(firstRate, sameRate)}); CPU ${fmtInt(firstCpuRate)} vs ${fmtInt(sameCpuRate)} (${ratio(firstCpuRate, sameCpuRate)})`,
  },
  {
    name: `a pass of ${fmtInt(deferred.added)} Claude Code messages: substring index deferred to its end (after ${fmtInt(quick ? 1_000 : BULK_IMPORT.after)} messages) / written inline, each into an empty home`,
    value: `${deferred.s.toFixed(1)} s / ${inline.s.toFixed(1)} s (${(inline.s / deferred.s).toFixed(2)}x faster)`,
  },
  {
    name: "re-run with nothing new (both sources, worst of 3)",
    value: `${(Math.max(...reruns) / 1000).toFixed(2)} s`,
    target: "< 2 s",
    ok: Math.max(...reruns) < 2000,
  },
  { name: "import-sources: peak RSS", value: fmtMiB(peakRssBytes()) },
]);
