// The shape of one CLI command module, and opening the HomeMemory for it.
import type { HomeMemory } from "../app/memory-api.ts";
import { openMemory } from "../app/open-memory.ts";
import type { Parsed } from "./args.ts";

export interface CommandModule {
  usage: string;
  run(argv: readonly string[]): Promise<number>;
}

export function openFromFlags(p: Parsed): HomeMemory {
  // A CLI writer hands embedding to a detached drain: it exits at once and never loads LanceDB.
  return openMemory({ home: p.flags.home as string | undefined, drain: "detached" });
}

/** `--help` text for a command, printed to stdout. */
export function printUsage(usage: string): number {
  process.stdout.write(usage.trimEnd() + "\n");
  return 0;
}
