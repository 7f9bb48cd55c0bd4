// One-word searches over a time range (the last day, week, month and year) on 1M all-recent messages (the
// default-limit home of bench/keyword.ts), whose seqs are not in time order (the generator spreads every
// session over the whole year): the recent tier's substring walk finds candidates newest first by seq, so it
// cannot stop at a range's start, and a word with fewer matches in the range than the page needs walks every
// candidate of the tier. 40 of the corpus's words and 5 in no message, MemoryApi.search in-process, each
// word's median of 3. rg has no notion of a message's time (bench/lib/queries.ts): 7d, 30d and 1y have the
// absolute target of bench/keyword.ts's time ranges (p95 <= 40 ms); the last day is shown without one.
// bun bench/recent-ranges.ts [--quick]
import { openMemory } from "../src/app/open-memory.ts";
import type { SearchOptions } from "../src/search/search-types.ts";
import { CORPUS_END_NS } from "./lib/build-home.ts";
import { ensureHome } from "./lib/ensure-home.ts";
import { emitRows, quick, type BenchRow } from "./lib/report.ts";
import { countLabel, IMPORT_SPEC } from "./lib/sizes.ts";
import { CONTENT_WORDS } from "./lib/vocabulary.ts";
import { fmtMs, percentile, summarize } from "./lib/stats.ts";

// Three runs in --quick too: a serving process loads the recent text it holds once (tens of ms), which a single run
// would count as one word's time.
const REPS = 3;
const RANGES: NonNullable<SearchOptions["range"]>[] = ["1d", "7d", "30d", "1y"];
const words = [...new Set(CONTENT_WORDS)]
  .filter((_, i) => i % 3 === 0)
  .slice(0, quick ? 8 : 40)
  .concat(["servers", "users", "branchers", "queues", "tokens"].slice(0, quick ? 2 : 5));
const rows: BenchRow[] = [];
const home = ensureHome(IMPORT_SPEC, rows);
const api = openMemory({ home, env: {}, now: () => CORPUS_END_NS, drain: "off" });
const times = new Map<string, number[]>(RANGES.map((r) => [r, []]));
try {
  // Interleaved: each word over every range in turn, so that a slow minute weighs on all of them alike.
  for (const word of words)
    for (const range of RANGES) {
      await api.search({ query: word, range }); // the word's row lists read once
      const runs: number[] = [];
      for (let i = 0; i < REPS; i++) {
        const t = performance.now();
        await api.search({ query: word, range });
        runs.push(performance.now() - t);
      }
      times.get(range)!.push(summarize(runs).p50);
    }
} finally {
  api.close();
}
for (const range of RANGES) {
  const sorted = [...times.get(range)!].sort((a, b) => a - b);
  const p95 = percentile(sorted, 95);
  const row: BenchRow = {
    name: `keyword, ${countLabel(IMPORT_SPEC.messages)} msgs all recent, ${words.length} one-word queries over the last ${range}: p50 / p95 / max`,
    value: `${fmtMs(percentile(sorted, 50))} / ${fmtMs(p95)} / ${fmtMs(sorted.at(-1)!)}`,
  };
  rows.push(range === "1d" ? row : { ...row, target: "p95 <= 40 ms", ok: p95 <= 40 });
}
emitRows(rows);
