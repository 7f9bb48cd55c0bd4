// Error-memory recall on the frozen paraphrase set (test/error-memory/paraphrase-set.ts): each sighting in
// other words is searched among all target and distractor records; top-1 accuracy and empty-result rate
// per split, and the share of unrelated queries (test/error-memory/unrelated-queries.ts) that return a record.
// bun bench/error-paraphrases.ts [--json] [--split dev|test] [--verbose]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openMemory } from "../src/app/open-memory.ts";
import { SET_DISTRACTORS, SET_PAIRS, SET_RECORDS } from "../test/error-memory/paraphrase-set.ts";
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

const home = mkdtempSync(join(tmpdir(), "memvoy-err-para-"));
const api = openMemory({ home, env: {} });
try {
  const ids = new Map<string, string>();
  for (const { key, ...rec } of [...SET_RECORDS, ...SET_DISTRACTORS]) {
    const r = await api.recordError(rec);
    if (r.merged) throw new Error(`record ${key} merged into another`);
    ids.set(key, r.record.id);
  }
  const out: Record<string, { n: number; top1: number; empty: number }> = {};
  for (const split of ["dev", "test"] as const) {
    if (values.split && values.split !== split) continue;
    const pairs = SET_PAIRS.filter((p) => p.split === split);
    let top1 = 0;
    let empty = 0;
    for (const p of pairs) {
      const r = await api.searchErrors({ query: p.query });
      const ok = r.hits[0]?.record.id === ids.get(p.expect);
      if (ok) top1++;
      if (r.hits.length === 0) empty++;
      if (values.verbose && !ok) {
        const rank = r.hits.findIndex((h) => h.record.id === ids.get(p.expect));
        process.stderr.write(
          `${split} MISS ${p.expect} (rank ${rank < 0 ? "-" : rank + 1}, ${r.hits.length} hits; first: ${r.hits[0]?.record.error.slice(0, 60).replace(/\n/g, " ") ?? "none"})\n`,
        );
      }
    }
    out[split] = {
      n: pairs.length,
      top1: Math.round((top1 / pairs.length) * 1000) / 1000,
      empty: Math.round((empty / pairs.length) * 1000) / 1000,
    };
  }
  let answered = 0;
  for (const query of UNRELATED_QUERIES) {
    const r = await api.searchErrors({ query });
    if (r.hits.length > 0) {
      answered++;
      if (values.verbose) process.stderr.write(`unrelated HIT "${query}": ${r.hits[0]!.record.error.slice(0, 60)}\n`);
    }
  }
  const unrelated = {
    n: UNRELATED_QUERIES.length,
    withHit: Math.round((answered / UNRELATED_QUERIES.length) * 1000) / 1000,
  };
  const records = SET_RECORDS.length + SET_DISTRACTORS.length;
  if (values.json) process.stdout.write(JSON.stringify({ records, ...out, unrelated }) + "\n");
  else {
    for (const [split, r] of Object.entries(out))
      console.log(`error paraphrases ${split}: top-1 ${r.top1} (n ${r.n}), empty ${r.empty}, among ${records} records`);
    console.log(`unrelated queries returning a record: ${unrelated.withHit} (n ${unrelated.n})`);
  }
} finally {
  api.close();
  rmSync(home, { recursive: true, force: true });
}
