// Error-memory recall on the frozen paraphrase sets: each sighting in other words is searched among all
// target and distractor records; top-1 accuracy and empty-result rate per split, and the share of
// unrelated queries (test/error-memory/unrelated-queries.ts) that return a record. Set 1
// (test/error-memory/paraphrase-set.ts) has a dev part (tuned on) and a test part; set 2
// (paraphrase-set-2.ts) is held out whole: written and committed before any tuning on it.
// bun bench/error-paraphrases.ts [--json] [--split dev|test|held-out] [--verbose]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { HomeMemory } from "../src/app/memory-api.ts";
import { openMemory } from "../src/app/open-memory.ts";
import {
  SET_DISTRACTORS,
  SET_PAIRS,
  SET_RECORDS,
  type SetPair,
  type SetRecord,
} from "../test/error-memory/paraphrase-set.ts";
import { SET2_DISTRACTORS, SET2_PAIRS, SET2_RECORDS } from "../test/error-memory/paraphrase-set-2.ts";
import { UNRELATED_QUERIES } from "../test/error-memory/unrelated-queries.ts";

const { values } = parseArgs({
  options: {
    json: { type: "boolean", default: false },
    split: { type: "string" },
    verbose: { type: "boolean", default: false },
    quick: { type: "boolean", default: false },
    fresh: { type: "boolean", default: false },
  },
});

interface Split {
  name: "dev" | "test" | "held-out";
  records: SetRecord[];
  pairs: SetPair[];
}
const SPLITS: Split[] = [
  { name: "dev", records: [...SET_RECORDS, ...SET_DISTRACTORS], pairs: SET_PAIRS.filter((p) => p.split === "dev") },
  { name: "test", records: [...SET_RECORDS, ...SET_DISTRACTORS], pairs: SET_PAIRS.filter((p) => p.split === "test") },
  { name: "held-out", records: [...SET2_RECORDS, ...SET2_DISTRACTORS], pairs: SET2_PAIRS },
];

/** A fresh home holding `records`, and the record id of each key. */
async function homeWith(records: readonly SetRecord[]) {
  const dir = mkdtempSync(join(tmpdir(), "memvoy-err-para-"));
  const api = openMemory({ home: dir, env: {} });
  const ids = new Map<string, string>();
  for (const { key, ...rec } of records) {
    const r = await api.recordError(rec);
    if (r.merged) throw new Error(`record ${key} merged into another`);
    ids.set(key, r.record.id);
  }
  return {
    api,
    ids,
    [Symbol.dispose]() {
      api.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function measure(api: HomeMemory, ids: Map<string, string>, split: Split) {
  let top1 = 0;
  let empty = 0;
  for (const p of split.pairs) {
    const r = await api.searchErrors({ query: p.query });
    const ok = r.hits[0]?.record.id === ids.get(p.expect);
    if (ok) top1++;
    if (r.hits.length === 0) empty++;
    if (values.verbose && !ok) {
      const rank = r.hits.findIndex((h) => h.record.id === ids.get(p.expect));
      process.stderr.write(
        `${split.name} MISS ${p.expect} (rank ${rank < 0 ? "-" : rank + 1}, ${r.hits.length} hits; first: ${r.hits[0]?.record.error.slice(0, 60).replace(/\n/g, " ") ?? "none"})\n`,
      );
    }
  }
  const n = split.pairs.length;
  return { n, records: split.records.length, top1: round(top1 / n), empty: round(empty / n) };
}

const round = (x: number) => Math.round(x * 1000) / 1000;
const out: Record<string, Awaited<ReturnType<typeof measure>>> = {};
let unrelated: { n: number; withHit: number } | undefined;
for (const split of SPLITS) {
  if (values.split && values.split !== split.name) continue;
  using home = await homeWith(split.records);
  out[split.name] = await measure(home.api, home.ids, split);
  if (split.name !== "held-out" && !unrelated) {
    let answered = 0;
    for (const query of UNRELATED_QUERIES) {
      const r = await home.api.searchErrors({ query });
      if (r.hits.length > 0) {
        answered++;
        if (values.verbose) process.stderr.write(`unrelated HIT "${query}": ${r.hits[0]!.record.error.slice(0, 60)}\n`);
      }
    }
    unrelated = { n: UNRELATED_QUERIES.length, withHit: round(answered / UNRELATED_QUERIES.length) };
  }
}
if (values.json) process.stdout.write(JSON.stringify({ ...out, unrelated }) + "\n");
else {
  for (const [split, r] of Object.entries(out))
    console.log(`error paraphrases ${split}: top-1 ${r.top1} (n ${r.n}), empty ${r.empty}, among ${r.records} records`);
  if (unrelated) console.log(`unrelated queries returning a record: ${unrelated.withHit} (n ${unrelated.n})`);
}
