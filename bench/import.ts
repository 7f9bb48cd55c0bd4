// Batch import into an empty home through MemoryApi.add (large batches per session): messages per second. Then
// what the substring index costs that write path, same run, on a smaller workload: the index written inline (as
// `add` does), deferred and never built, and deferred then built afterwards in steps of 10,000 rows (what a
// large import pass does, src/memory/imports/deferred-index.ts).
import { Database } from "bun:sqlite";
import { readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { openMemory } from "../src/app/open-memory.ts";
import { buildTrigram, deferTrigram } from "../src/storage/sqlite/substring-index-build.ts";
import { buildHome, type HomeSpec } from "./lib/build-home.ts";
import { adoptIntoCache, isCached, scratchDir } from "./lib/home-cache.ts";
import { emitRows, log } from "./lib/report.ts";
import { fmtMiB, peakRssBytes } from "./lib/rss.ts";
import { countLabel, homeName, IMPORT_SPEC } from "./lib/sizes.ts";
import { fmtInt } from "./lib/stats.ts";

const TARGET = 20_000;
const spec = IMPORT_SPEC;
const dir = scratchDir("import");
log(
  `import: ${fmtInt(spec.messages)} messages, ${spec.sessions} sessions, ${spec.batch} per add, default limits -> ${dir}`,
);
const stats = buildHome(dir, spec, (done) => log(`  ${fmtInt(done)} messages`));
const rate = spec.messages / (stats.addMs / 1000);

const dbBytes = readdirSync(join(dir, ".store"))
  .filter((f) => f.startsWith("history.db"))
  .reduce((n, f) => n + statSync(join(dir, ".store", f)).size, 0);
const historyBytes = readdirSync(join(dir, "sessions")).reduce(
  (n, s) => n + statSync(join(dir, "sessions", s, "history.json")).size,
  0,
);

const name = homeName(spec);
if (!isCached(name))
  adoptIntoCache(name, dir); // the keyword benchmark reuses it
else await import("node:fs").then((fs) => fs.rmSync(dir, { recursive: true, force: true }));

/** The same write path on `small`: messages per second with the index inline or deferred, and the build afterwards. */
async function indexCost(small: HomeSpec) {
  const run = async (defer: boolean) => {
    const home = scratchDir(`import-index-${defer ? "deferred" : "inline"}`);
    openMemory({ home, env: {}, drain: "off" }).close();
    const db = new Database(join(home, ".store", "history.db"), { safeIntegers: true });
    try {
      if (defer) db.transaction(() => deferTrigram(db)).immediate();
      const s = buildHome(home, small);
      const t = performance.now();
      if (defer) await buildTrigram(db, { batch: 10_000 });
      return { rate: small.messages / (s.addMs / 1000), addS: s.addMs / 1000, buildS: (performance.now() - t) / 1000 };
    } finally {
      db.close();
      rmSync(home, { recursive: true, force: true });
    }
  };
  const deferred = await run(true);
  const inline = await run(false);
  return { inline, deferred };
}
const small: HomeSpec = {
  messages: Math.min(200_000, spec.messages),
  sessions: Math.min(200, spec.sessions),
  batch: spec.batch,
};
log(`import: the substring index's cost, ${fmtInt(small.messages)} messages: deferred, then inline`);
const cost = await indexCost(small);

const label = `import ${countLabel(spec.messages)} msgs, ${spec.sessions} sessions, ${spec.batch}/add`;
emitRows([
  { name: label, value: `${fmtInt(rate)} msg/s`, target: `>= ${fmtInt(TARGET)} msg/s`, ok: rate >= TARGET },
  {
    name: `${label}: wall time incl. corpus generation`,
    value: `${(stats.wallMs / 1000).toFixed(1)} s (add: ${(stats.addMs / 1000).toFixed(1)} s)`,
  },
  { name: `${label}: history.db (+wal) / history.json total`, value: `${fmtMiB(dbBytes)} / ${fmtMiB(historyBytes)}` },
  { name: `${label}: peak RSS`, value: fmtMiB(peakRssBytes()) },
  {
    name: `the substring index on the same path, ${countLabel(small.messages)} msgs, ${small.sessions} sessions, ${small.batch}/add: written inline / deferred (not built) / deferred, then built in steps of 10,000`,
    value: `${fmtInt(cost.inline.rate)} / ${fmtInt(cost.deferred.rate)} msg/s (${(cost.deferred.rate / cost.inline.rate).toFixed(2)}x) / ${fmtInt(small.messages / (cost.deferred.addS + cost.deferred.buildS))} msg/s (build ${cost.deferred.buildS.toFixed(1)} s)`,
  },
]);
