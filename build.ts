// Compiles src/index.ts into the standalone binary dist/memvoy, with memvoy.1 and completions/ beside it:
// bun build.ts [--outfile PATH] [--entry PATH] [--release [--gzip-level N]] [--no-compile]
// --release also packs dist/memvoy-VERSION-OS-ARCH.tar.gz (+ .sha256); --no-compile reuses an existing binary.
import { statSync } from "node:fs";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { makeRelease, writeDocs } from "./scripts/release-files.ts";
import { configFingerprint } from "./src/config/config-fingerprint.ts";
import { earlyAnswers } from "./src/mcp/early-answers.ts";

const { values } = parseArgs({
  options: {
    outfile: { type: "string", default: "dist/memvoy" },
    entry: { type: "string", default: "src/index.ts" },
    release: { type: "boolean", default: false },
    "no-compile": { type: "boolean", default: false },
    // gzip level of the release tarball (1 is quick, for tests).
    "gzip-level": { type: "string", default: "6" },
  },
});
const outfile = values.outfile;

const started = performance.now();
if (!values["no-compile"]) await compile();
await writeDocs(dirname(outfile));
if (values.release) console.log(`packed ${await makeRelease(outfile, dirname(outfile), Number(values["gzip-level"]))}`);

async function compile(): Promise<void> {
  const result = await Bun.build({
    entrypoints: [values.entry],
    target: "bun",
    // ESM + bytecode gives the fastest startup (JSC skips parsing at run time).
    format: "esm",
    bytecode: true,
    // One chunk per lazily imported module group: a command loads only its own code, and only the
    // built-in modules (node:crypto, node:zlib, bun:sql, child_process...) that code imports. In one
    // chunk every import of a built-in is hoisted to the top and runs at start, whatever the command.
    splitting: true,
    minify: true,
    // Only blessed's Terminal widget needs pty.js/term.js, and LanceDB's OpenAI
    // embedding function (unused) needs openai.
    external: ["pty.js", "term.js", "openai"],
    // Taken here, not at run time: the binary has no source files to hash (src/config/load-cached.ts), and
    // answers an agent's start-up before it loads the MCP SDK (src/mcp/mcp-stdio.ts).
    define: {
      MEMVOY_CONFIG_FINGERPRINT: JSON.stringify(configFingerprint()),
      MEMVOY_MCP_EARLY_ANSWERS: JSON.stringify(await earlyAnswers()),
    },
    compile: {
      outfile,
      // The binary runs in users' directories: don't pick up their .env or bunfig.toml.
      autoloadDotenv: false,
      autoloadBunfig: false,
      // A one-shot command runs most of its code once: compiling it costs more than the interpreter saves
      // (`search --json` took 3-15% less wall time, bench/RESULTS.md). The TUI, the daemon and the MCP server
      // restore the usual policy (src/shared/jit-policy.ts).
      jitPolicy: 10,
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
}
