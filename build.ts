// Compiles src/index.ts into the standalone binary dist/memvoy: bun build.ts [--outfile PATH] [--entry PATH]
import { statSync } from "node:fs";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    outfile: { type: "string", default: "dist/memvoy" },
    entry: { type: "string", default: "src/index.ts" },
  },
});
const outfile = values.outfile;

const started = performance.now();
const result = await Bun.build({
  entrypoints: [values.entry],
  target: "bun",
  // ESM + bytecode gives the fastest startup (JSC skips parsing at run time).
  format: "esm",
  bytecode: true,
  minify: true,
  // Only blessed's Terminal widget needs pty.js/term.js, and LanceDB's OpenAI
  // embedding function (unused) needs openai.
  external: ["pty.js", "term.js", "openai"],
  compile: {
    outfile,
    // The binary runs in users' directories: don't pick up their .env or bunfig.toml.
    autoloadDotenv: false,
    autoloadBunfig: false,
  },
});

if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
for (const log of result.logs) console.warn(log);

const mib = (statSync(outfile).size / 1024 / 1024).toFixed(1);
const secs = ((performance.now() - started) / 1000).toFixed(1);
console.log(`built ${outfile} (${mib} MiB) in ${secs}s`);
