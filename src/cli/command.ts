// The shape of one CLI command module, and the preamble every command shares: parse, --help, positionals, open, close.
import type { HomeMemory } from "../app/memory-api.ts";
import { openMemory } from "../app/open-memory.ts";
import type { SharedHome } from "../app/shared/shared-home.ts";
import { homePaths, resolveHome } from "../config/home.ts";
import { loadConfigCached } from "../config/load-cached.ts";
import type { Config } from "../config/schema.ts";
import { assertSessionId } from "../shared/session-id.ts";
import { writeOut } from "../shared/stdout.ts";
import { bool, expectPositionals, leadingOptions, parseArgs, type FlagSpecs, type Parsed } from "./args.ts";
import { CommandUsageError } from "./usage-errors.ts";

export interface CommandModule {
  usage: string;
  run(argv: readonly string[]): Promise<number>;
}

export interface CommandSpec {
  /** The command as named in errors: `add`, `errors search`. */
  name: string;
  usage: string;
  flags?: FlagSpecs;
  /** Required positionals, by name, then optional ones. */
  positionals?: string[];
  optional?: string[];
  /** The first positional, when given, is a session id: checked before the home is opened. */
  session?: boolean;
  /** Checks of the flags that must fail before the home is opened (or created). */
  check?: (p: Parsed, args: string[]) => void;
  /** It may read or write many rows (a JSONL stdin): the database keeps its large page cache. */
  bulk?: boolean;
}

/** The spec of a command whose one positional is a session id (checked before the home is opened). */
export function sessionSpec(
  name: string,
  usage: string,
  flags: FlagSpecs,
  extra: Partial<CommandSpec> = {},
): CommandSpec {
  return { name, usage, flags, positionals: ["SESSION"], session: true, ...extra };
}

export function openFromFlags(p: Parsed, command?: string, config?: Config, shortLived = false): HomeMemory {
  // A CLI writer hands embedding to a detached drain: it exits at once and never loads LanceDB.
  return openMemory({
    home: p.flags.home as string | undefined,
    drain: "detached",
    ...(command ? { command } : {}),
    ...(config ? { config } : {}),
    shortLived,
  });
}

/** `--help` text for a command, printed to stdout. */
export function printUsage(usage: string): number {
  writeOut(usage.trimEnd() + "\n");
  return 0;
}

/** Parse argv, answer --help, check the positionals, then run `body` with them. */
export async function runCommand(
  spec: CommandSpec,
  argv: readonly string[],
  body: (p: Parsed, args: string[]) => number | Promise<number>,
): Promise<number> {
  const p = parseArgs(argv, spec.flags ?? {}, spec.name);
  if (bool(p, "help")) return printUsage(spec.usage);
  const args =
    spec.positionals || spec.optional
      ? expectPositionals(p, spec.name, spec.positionals ?? [], spec.optional ?? [])
      : p.positionals;
  if (spec.session && args[0] !== undefined) assertSessionId(args[0]);
  spec.check?.(p, args);
  return body(p, args);
}

/** A command made of subcommands (`errors record`, `daemon status`): its own --help, and one spec per subcommand. */
export interface SubcommandsSpec {
  name: string;
  usage: string;
  subcommands: Record<string, CommandSpec>;
  /** Subcommands not offered in errors (internal ones). */
  hidden?: string[];
}

/**
 * The subcommand is the first argument that is no option (nor the value of --home, read as the entry point reads
 * it); the rest is run as `runCommand` runs a command, with that subcommand's spec.
 */
export async function runSubcommand(
  spec: SubcommandsSpec,
  argv: readonly string[],
  body: (sub: string, p: Parsed, args: string[]) => number | Promise<number>,
): Promise<number> {
  const at = leadingOptions(argv).command;
  const choices = Object.keys(spec.subcommands).filter((s) => !spec.hidden?.includes(s));
  if (at < 0) {
    if (argv.includes("--help") || argv.includes("-h")) return printUsage(spec.usage);
    throw new CommandUsageError({ problem: "missing-subcommand", command: spec.name, choices });
  }
  const sub = argv[at]!;
  const subSpec = Object.hasOwn(spec.subcommands, sub) ? spec.subcommands[sub] : undefined;
  if (!subSpec)
    throw new CommandUsageError({ problem: "unknown-subcommand", command: spec.name, subcommand: sub, choices });
  return runCommand(subSpec, [...argv.slice(0, at), ...argv.slice(at + 1)], (p, args) => body(sub, p, args));
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
    usingAnyHome(p, spec.name, (api) => body(api, p, args), spec.bulk !== true),
  );
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
): Promise<T> {
  const home = p.flags.home as string | undefined;
  const config = loaded ?? loadConfigCached(homePaths(resolveHome(home, process.env)).config, process.env);
  if (!config.archive.url.trim()) return using(openFromFlags(p, command, config, shortLived), body);
  const { openSharedHome } = await import("../app/shared/open-shared.ts");
  const api = await openSharedHome({ home, config });
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
