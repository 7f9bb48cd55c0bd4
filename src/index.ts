#!/usr/bin/env bun
// memvoy entry point: --version without loading anything, then the daemon, the TUI or the CLI.
import pkg from "../package.json" with { type: "json" };

const argv = process.argv.slice(2);

if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V" || argv[0] === "-v")) {
  process.stdout.write(`memvoy ${pkg.version}\n`);
} else {
  const { runCli } = await import("./cli/main.ts");
  const code = await runCli(argv, pkg.version);
  process.exitCode = code;
}
