#!/usr/bin/env bun
// memvoy entry point: --version without loading anything, then the daemon, the TUI or the CLI.
import pkg from "../package.json" with { type: "json" };

const argv = process.argv.slice(2);

const versionOnly =
  argv.length >= 1 &&
  argv.every((a) => a === "--version" || a === "-V" || a === "-v" || a === "--json") &&
  argv.some((a) => a !== "--json");
if (versionOnly) {
  const { writeOut } = await import("./shared/stdout.ts");
  writeOut(
    argv.includes("--json") ? JSON.stringify({ version: pkg.version }, null, 2) + "\n" : `memvoy ${pkg.version}\n`,
  );
} else {
  const { runCli } = await import("./cli/main.ts");
  const code = await runCli(argv, pkg.version);
  process.exitCode = code;
}
