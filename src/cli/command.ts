// Opening the home for a command, and closing it after; the command preamble itself is in run-command.ts.
import type { HomeMemory } from "../app/memory-api.ts";
import { openMemory } from "../app/open-memory.ts";
import type { SharedHome } from "../app/shared/shared-home.ts";
import { homePaths, resolveHome } from "../config/home.ts";
import { loadConfigCached } from "../config/load-cached.ts";
import type { Config } from "../config/schema.ts";
import type { Parsed } from "./args.ts";
import { runCommand, type CommandSpec } from "./run-command.ts";

export {
  printUsage,
  runCommand,
  runSubcommand,
  sessionSpec,
  type CommandModule,
  type CommandSpec,
  type SubcommandsSpec,
} from "./run-command.ts";

export function openFromFlags(
  p: Parsed,
  command?: string,
  config?: Config,
  shortLived = false,
  readOnly = false,
): HomeMemory {
  // A CLI writer hands embedding to a detached drain: it exits at once and never loads LanceDB.
  return openMemory({
    home: p.flags.home as string | undefined,
    drain: "detached",
    ...(command ? { command } : {}),
    ...(config ? { config } : {}),
    shortLived,
    readOnly,
  });
}

/** `runCommand` with the home's HomeMemory open for the body, and closed after it whatever happens. */
export function withMemory(
  spec: CommandSpec,
  argv: readonly string[],
  body: (api: HomeMemory, p: Parsed, args: string[]) => number | Promise<number>,
  open: (p: Parsed) => HomeMemory = (p) => openFromFlags(p, spec.name),
): Promise<number> {
  return runCommand(spec, argv, (p, args) => using(open(p), (api) => body(api, p, args)));
}

/** A home as the commands that also run in shared mode use it (their calls are awaited). */
export type AnyHome = HomeMemory | SharedHome;

/**
 * `withMemory` for a command that also runs in shared mode: with an archive URL configured, the body gets
 * the shared memory (PostgreSQL and the shared vectors) instead of the home's own stores.
 */
export function withAnyHome(
  spec: CommandSpec,
  argv: readonly string[],
  body: (api: AnyHome, p: Parsed, args: string[]) => number | Promise<number>,
): Promise<number> {
  return runCommand(spec, argv, (p, args) =>
    usingAnyHome(p, spec.name, (api) => body(api, p, args), spec.bulk !== true, undefined, spec.createsNoHome === true),
  );
}

/** The config of the home the command names (--home, else the environment's), read before the home is opened. */
export function commandConfig(p: Parsed): Config {
  return loadConfigCached(homePaths(resolveHome(p.flags.home as string | undefined, process.env)).config, process.env);
}

/**
 * Run `body` with the home open (the shared memory when an archive URL is configured) and close it after.
 * config.toml is read once; shared mode's code (PostgreSQL, the shared vectors) loads only when configured.
 * `shortLived`: the command reads and writes a few rows (see OpenDatabaseOptions.shortLived).
 */
export async function usingAnyHome<T>(
  p: Parsed,
  command: string,
  body: (api: AnyHome) => T | Promise<T>,
  shortLived = true,
  /** The home's config, when the caller has loaded it already. */
  loaded?: Config,
  /** The command creates no home that does not exist (see CommandSpec.createsNoHome). */
  createsNoHome = false,
): Promise<T> {
  const home = p.flags.home as string | undefined;
  const config = loaded ?? commandConfig(p);
  if (!config.archive.url.trim()) return using(openFromFlags(p, command, config, shortLived, createsNoHome), body);
  const { openSharedHome } = await import("../app/shared/open-shared.ts");
  const api = await openSharedHome({ home, config, connections: 1, readOnly: createsNoHome });
  try {
    return await body(api);
  } finally {
    await api.close();
  }
}

/** Run `body` with an open HomeMemory and close it after, whatever happens. */
export async function using<T>(api: HomeMemory, body: (api: HomeMemory) => T | Promise<T>): Promise<T> {
  try {
    return await body(api);
  } finally {
    api.close();
  }
}

/** Run `work` with Ctrl-C wired to its signal: the first asks it to stop (after `notice`), a second exits at once (130). */
export async function withInterrupt<T>(work: (signal: AbortSignal) => Promise<T>, notice?: string): Promise<T> {
  const abort = new AbortController();
  const onSigint = () => {
    if (abort.signal.aborted) process.exit(130);
    if (notice) process.stderr.write(notice);
    abort.abort();
  };
  process.on("SIGINT", onSigint);
  try {
    return await work(abort.signal);
  } finally {
    process.off("SIGINT", onSigint);
  }
}
