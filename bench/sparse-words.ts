// Words in few messages or none, made of common trigrams, over 1M all-recent messages (the default-limit home
// of bench/keyword.ts): the generated corpus's own words with a suffix it never adds (`branch` + `er`), the
// worst case of the recent tier's substring walk, whose trigrams select many messages that do not hold the
// word. memvoy (MemoryApi.search in-process) interleaved word by word with rg over the JSONL export.
// bun bench/sparse-words.ts [--quick]
import { join } from "node:path";
import { openMemory } from "../src/app/open-memory.ts";
import { CORPUS_END_NS } from "./lib/build-home.ts";
import { EXPORT_FILE } from "./lib/build-cli.ts";
import { CONTENT } from "./lib/corpus.ts";
import { ensureHome } from "./lib/ensure-home.ts";
import { rgCommand } from "./lib/queries.ts";
import { emitRows, log, quick, type BenchRow } from "./lib/report.ts";
import { ARCHIVED_SPEC, countLabel, IMPORT_SPEC } from "./lib/sizes.ts";
import { CONTENT_WORDS } from "./lib/vocabulary.ts";
import { fmtMs, percentile, summarize } from "./lib/stats.ts";

const REPS = quick ? 1 : 3;
const WORDS = quick ? 8 : 40;
const rows: BenchRow[] = [];
// The archived home holds the same messages, exported as JSONL for rg.
const exportFile = join(ensureHome(ARCHIVED_SPEC, rows, { exportJsonl: true }), EXPORT_FILE);
const home = ensureHome(IMPORT_SPEC, rows);
const hasRg = Bun.which("rg") !== null;
if (!hasRg) log("sparse-words: rg is not on PATH (Debian package ripgrep): the rg comparison is skipped");

/** Every 5th of the corpus's first content words with a suffix, skipping those the corpus holds as words. */
function sparseWords(): string[] {
  const known = new Set(CONTENT);
  const all = CONTENT_WORDS.slice(0, 60).flatMap((w) => ["s", "ing", "ed", "er"].map((s) => w + s));
  return all
    .filter((w) => !known.has(w))
    .filter((_, i) => i % 5 === 0)
    .slice(0, WORDS);
}

const api = openMemory({ home, env: {}, now: () => CORPUS_END_NS, drain: "off" });
const memvoy: number[] = [];
const rg: number[] = [];
const ratios: { word: string; ratio: number }[] = [];
try {
  for (const word of sparseWords()) {
    await api.search({ query: word }); // the word's row lists read once, as for every contender
    const runs: number[] = [];
    for (let i = 0; i < REPS; i++) {
      const t = performance.now();
      await api.search({ query: word });
      runs.push(performance.now() - t);
    }
    const m = summarize(runs).p50;
    memvoy.push(m);
    if (!hasRg) continue;
    const t = performance.now();
    const r = Bun.spawnSync(["sh", "-c", rgCommand({ group: "selective", query: word }, exportFile)!]);
    if (r.exitCode !== 0 && r.exitCode !== 1) throw new Error(`rg failed (${r.exitCode}): ${r.stderr}`);
    const ms = performance.now() - t;
    rg.push(ms);
    ratios.push({ word, ratio: ms / m });
  }
} finally {
  api.close();
}
const where = `${countLabel(IMPORT_SPEC.messages)} msgs, default limits (all recent)`;
const sorted = [...memvoy].sort((a, b) => a - b);
const p50 = percentile(sorted, 50);
rows.push({
  name: `keyword, ${where}: ${memvoy.length} words in few messages or none (corpus words + s/ing/ed/er): memvoy p50 / p90 / max (each word's median of ${REPS})`,
  value: `${fmtMs(p50)} / ${fmtMs(percentile(sorted, 90))} / ${fmtMs(sorted.at(-1)!)}`,
});
if (hasRg) {
  const worst = ratios.reduce((a, b) => (b.ratio < a.ratio ? b : a));
  rows.push({
    name: `keyword, ${where}, the same words: rg over the JSONL export p50; rg / memvoy at p50, and for the word where memvoy is slowest against rg`,
    value: `${fmtMs(summarize(rg).p50)}; ${(summarize(rg).p50 / p50).toFixed(0)}x, ${worst.ratio.toFixed(1)}x ("${worst.word}")`,
    target: "every word faster than rg",
    ok: worst.ratio >= 1,
  });
}
emitRows(rows);
