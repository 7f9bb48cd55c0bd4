// Batch import into an empty home through MemoryApi.add (large batches per session): messages per second.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { buildHome } from "./lib/build-home.ts";
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

const label = `import ${countLabel(spec.messages)} msgs, ${spec.sessions} sessions, ${spec.batch}/add`;
emitRows([
  { name: label, value: `${fmtInt(rate)} msg/s`, target: `>= ${fmtInt(TARGET)} msg/s`, ok: rate >= TARGET },
  {
    name: `${label}: wall time incl. corpus generation`,
    value: `${(stats.wallMs / 1000).toFixed(1)} s (add: ${(stats.addMs / 1000).toFixed(1)} s)`,
  },
  { name: `${label}: history.db (+wal) / history.json total`, value: `${fmtMiB(dbBytes)} / ${fmtMiB(historyBytes)}` },
  { name: `${label}: peak RSS`, value: fmtMiB(peakRssBytes()) },
]);
