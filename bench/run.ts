// `bun run bench [--quick] [--fresh] [NAME...]`: runs each script of SCRIPTS (or of a group) in its own process and prints one table.
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ROWS_PREFIX, type BenchRow } from "./lib/report.ts";

/** The benchmark scripts, in order. Add yours here: it prints one `BENCH_ROWS` line (see lib/report.ts). */
const SCRIPTS = [
  "import.ts",
  "import-sources.ts",
  "add.ts",
  "keyword.ts",
  "sparse-words.ts",
  "recent-ranges.ts",
  "agent-home.ts",
  "agent-loop.ts",
  "cli-search.ts",
  "semantic.ts",
  "vectors-s3.ts",
  "locomo.ts",
  "off-topic-home.ts",
  "summary.ts",
  "errors.ts",
  "daemon.ts",
  "tui.ts",
  "agents-http.ts",
  "agents-mcp.ts",
  "live.ts",
  "archive-pg.ts",
  "import-shared.ts",
];

/**
 * Names that run several scripts. `keyword`: every row of the search-speed targets (README, Benchmarks), the
 * keyword contenders first; `keyword.ts` runs that script alone.
 */
const GROUPS: Record<string, string[]> = {
  keyword: [
    "keyword.ts",
    "sparse-words.ts",
    "recent-ranges.ts",
    "cli-search.ts",
    "semantic.ts",
    "locomo.ts",
    "tui.ts",
    "add.ts",
  ],
};

const root = resolve(import.meta.dir, "..");
const passThrough = process.argv.slice(2).filter((a) => a.startsWith("--"));
const only = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const wanted = new Set(only.flatMap((o) => GROUPS[o] ?? [o, `${o}.ts`]));
// In the order asked (a group's, in its own order).
const chosen = only.length ? [...wanted].filter((s) => SCRIPTS.includes(s)) : SCRIPTS;
const command = `bun run bench${process.argv.length > 2 ? " " + process.argv.slice(2).join(" ") : ""}`;
const cpus = navigator.hardwareConcurrency;
console.log(`$ ${command}   (bun ${Bun.version}, ${cpus} cores, ${process.platform}-${process.arch})`);

const table: (BenchRow & { script: string })[] = [];
let failed = 0;
for (const script of chosen) {
  const argv = ["bun", join("bench", script), ...passThrough];
  console.log(`\n$ ${argv.join(" ")}`);
  const t = performance.now();
  const proc = Bun.spawn(argv, { cwd: root, stdout: "pipe", stderr: "inherit" });
  const out = await new Response(proc.stdout).text();
  const code = await proc.exited;
  let got = 0;
  for (const line of out.split("\n")) {
    if (line.startsWith(ROWS_PREFIX)) {
      for (const r of JSON.parse(line.slice(ROWS_PREFIX.length)) as BenchRow[]) {
        table.push({ ...r, script });
        got++;
      }
    } else if (line.trim()) console.log(line);
  }
  console.log(`  (${((performance.now() - t) / 1000).toFixed(1)} s)`);
  if (code !== 0 || got === 0) {
    failed++;
    table.push({ script, name: `${script} failed (exit ${code})`, value: "-", ok: false });
  }
}

// The targets are set for the full sizes: a --quick run (which checks that the scripts work) shows a missed one
// without alarm, since its small homes are not what the target speaks of.
const quickRun = passThrough.includes("--quick");
const met = (r: BenchRow) =>
  r.target === undefined && r.ok === undefined
    ? ""
    : r.ok
      ? "yes"
      : quickRun && r.target !== undefined
        ? "no (--quick sizes)"
        : "**no**";

const lines = [
  `Command: \`${command}\` · bun ${Bun.version} · ${cpus} cores · ${new Date().toISOString()}`,
  "",
  "| script | measure | value | target | met |",
  "|---|---|---|---|---|",
  ...table.map((r) => `| ${r.script} | ${r.name} | ${r.value} | ${r.target ?? ""} | ${met(r)} |`),
];
console.log("\n" + lines.join("\n"));
mkdirSync(join(root, ".bench-out"), { recursive: true });
writeFileSync(join(root, ".bench-out", "results.md"), lines.join("\n") + "\n");
process.exit(failed ? 1 : 0);
