// Fill a home through the real write path (HomeMemory.add, large batches per session, sessions in turn).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openMemory } from "../../src/app/open-memory.ts";
import { sessionStream } from "./corpus.ts";
import { sampleRss } from "./rss.ts";

/** Every generated message is dated inside the two years before this instant (UTC ns); search runs "now" = END. */
export const CORPUS_END_NS = 1_790_000_000n * 1_000_000_000n;
const SPAN_NS = 730n * 86_400n * 1_000_000_000n;

export interface HomeSpec {
  messages: number;
  sessions: number;
  /** Messages per add call. */
  batch: number;
  /** limits.max_history_bytes for config.toml; absent = the default (4 MiB). */
  maxHistoryBytes?: number;
}

export interface BuildStats {
  /** Time spent inside HomeMemory.add only. */
  addMs: number;
  /** CPU time (user + system) of this process inside HomeMemory.add only. */
  addCpuMs: number;
  /** Wall time including corpus generation. */
  wallMs: number;
  addCalls: number;
  compacted: number;
}

export const sessionName = (k: number) => `s${String(k).padStart(4, "0")}`;

export function writeBenchConfig(home: string, spec: HomeSpec): void {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  if (spec.maxHistoryBytes !== undefined) {
    writeFileSync(join(home, "config.toml"), `[limits]\nmax_history_bytes = ${spec.maxHistoryBytes}\n`, {
      mode: 0o600,
    });
  }
}

export function buildHome(home: string, spec: HomeSpec, progress?: (done: number) => void): BuildStats {
  writeBenchConfig(home, spec);
  // The embedding drain is background work (bench/semantic.ts measures it); here it would only race the timing.
  const api = openMemory({ home, env: {}, drain: "off" });
  const perSession = Math.ceil(spec.messages / spec.sessions);
  const step = SPAN_NS / BigInt(perSession);
  const start = CORPUS_END_NS - SPAN_NS;
  const stats: BuildStats = { addMs: 0, addCpuMs: 0, wallMs: 0, addCalls: 0, compacted: 0 };
  const wall = performance.now();
  let done = 0;
  const streams = Array.from({ length: spec.sessions }, (_, k) => sessionStream(k));
  try {
    for (let from = 0; from < perSession && done < spec.messages; from += spec.batch) {
      for (let k = 0; k < spec.sessions && done < spec.messages; k++) {
        const count = Math.min(spec.batch, perSession - from, spec.messages - done);
        const batch = Array.from({ length: count }, (_, i) => ({
          ...streams[k]!(),
          sendAt: start + BigInt(from + i) * step + (BigInt(k) * step) / BigInt(spec.sessions),
        }));
        const t = performance.now();
        const c = process.cpuUsage();
        const r = api.add(sessionName(k), batch);
        const used = process.cpuUsage(c);
        stats.addMs += performance.now() - t;
        stats.addCpuMs += (used.user + used.system) / 1000;
        stats.addCalls++;
        stats.compacted += r.compacted;
        done += count;
      }
      sampleRss();
      progress?.(done);
    }
  } finally {
    api.close();
  }
  stats.wallMs = performance.now() - wall;
  return stats;
}
