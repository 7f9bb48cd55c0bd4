#!/usr/bin/env bun
// memvoy entry point: --version without loading anything, then the daemon, the TUI or the CLI.
import pkg from "../package.json" with { type: "json" };

const argv = process.argv.slice(2);

// A closed stdout (`memvoy sessions | head -1`) ends the command quietly, as git and rg do.
const closedPipe = (err: NodeJS.ErrnoException) => {
  if (err?.code === "EPIPE") process.exit(0);
  throw err;
};
process.stdout.on("error", closedPipe);

const versionOnly =
  argv.length >= 1 &&
  argv.every((a) => a === "--version" || a === "-V" || a === "-v" || a === "--json") &&
  argv.some((a) => a !== "--json");
if (versionOnly) {
  process.stdout.write(
    argv.includes("--json") ? JSON.stringify({ version: pkg.version }, null, 2) + "\n" : `memvoy ${pkg.version}\n`,
  );
} else {
  const { runCli } = await import("./cli/main.ts");
  const code = await runCli(argv, pkg.version);
  process.exitCode = code;
}
