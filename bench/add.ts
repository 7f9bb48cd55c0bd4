// A single add through the library into a session whose history.json is ~1 MiB: latency percentiles.
import { rmSync, statSync } from "node:fs";
import { openMemory } from "../src/app/open-memory.ts";
import { sessionStream } from "./lib/corpus.ts";
import { scratchDir } from "./lib/home-cache.ts";
import { emitRows, log, quick } from "./lib/report.ts";
import { fmtMiB, peakRssBytes } from "./lib/rss.ts";
import { fmtMs, summarize } from "./lib/stats.ts";

const TARGET_P50_MS = 2;
const HISTORY_BYTES = 1024 * 1024;
const SAMPLES = quick ? 50 : 400;

const home = scratchDir("add");
const api = openMemory({ home, env: {}, drain: "off" }); // the embedding drain is measured by bench/semantic.ts
const next = sessionStream(42);
const session = "big";
try {
  // Fill history.json to ~1 MiB in a few large batches (default limits: nothing is compacted).
  let bytes = 0;
  while (bytes < HISTORY_BYTES) {
    api.add(session, Array.from({ length: 500 }, next));
    bytes = statSync(api.paths.history(session)).size;
  }
  log(`add: history.json ${(bytes / 1024).toFixed(0)} KiB; timing ${SAMPLES} single adds`);
  for (let i = 0; i < 20; i++) api.add(session, next()); // warm-up
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const m = next();
    const t = performance.now();
    api.add(session, m);
    times.push(performance.now() - t);
  }
  const s = summarize(times);
  const final = statSync(api.paths.history(session)).size;
  const label = `single add, history.json ${fmtMiB(bytes)}-${fmtMiB(final)}`;
  emitRows([
    { name: `${label}: p50`, value: fmtMs(s.p50), target: `<= ${TARGET_P50_MS} ms`, ok: s.p50 <= TARGET_P50_MS },
    { name: `${label}: p95 / max`, value: `${fmtMs(s.p95)} / ${fmtMs(s.max)}` },
    { name: `single add: peak RSS`, value: fmtMiB(peakRssBytes()) },
  ]);
} finally {
  api.close();
  rmSync(home, { recursive: true, force: true });
}
