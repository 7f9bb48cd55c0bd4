#!/usr/bin/env bun
// memvoy entry point: --version without loading anything, then the daemon, the TUI or the CLI.
import pkg from "../package.json" with { type: "json" };

// What this program and the processes it starts (the drain, the daemon's workers) create is private from the
// start, LanceDB's files included. The library (lib.ts) leaves its host's umask alone: see private-modes.ts.
process.umask(0o077);

const argv = process.argv.slice(2);

/** Only --version (or -v/-V) and the global options (--json, --home DIR), which it ignores. */
function asksVersionOnly(args: readonly string[]): boolean {
  let version = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--version" || a === "-V" || a === "-v") version = true;
    else if (a === "--home") {
      // An empty or missing value is left to the CLI, which refuses it.
      if (!args[++i]) return false;
    } else if (a.startsWith("--home=")) {
      if (a === "--home=") return false;
    } else if (a !== "--json") return false;
  }
  return version;
}

const versionOnly = asksVersionOnly(argv);
if (versionOnly) {
  const { writeOut } = await import("./shared/stdout.ts");
  const json = argv.includes("--json");
  try {
    writeOut(json ? JSON.stringify({ version: pkg.version }, null, 2) + "\n" : `memvoy ${pkg.version}\n`);
  } catch (err) {
    // stdout cannot be written (a full disk, /dev/full): one line on stderr, as every command says it.
    const { reportError } = await import("./cli/format-error.ts");
    process.exitCode = reportError(err, json);
  }
} else {
  const { runCli } = await import("./cli/main.ts");
  const code = await runCli(argv, pkg.version);
  process.exitCode = code;
  const { hasAbandonedWork } = await import("./shared/abandoned-work.ts");
  if (hasAbandonedWork()) {
    // A call the command stopped waiting for (an object store that never answers) would keep the process alive.
    const { stdoutStream } = await import("./shared/stdout.ts");
    await new Promise<void>((resolve) => stdoutStream().write("", () => resolve()));
    process.exit(code);
  }
}
