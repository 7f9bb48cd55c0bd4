// The shape of one CLI command module and the preamble every command shares: parse, --help, positionals.
// Nothing here opens a home (command.ts does), so a command that may not need to loads no storage.
import { assertSessionId } from "../shared/session-id.ts";
import { writeOut } from "../shared/stdout.ts";
import { bool, expectPositionals, leadingOptions, parseArgs, type FlagSpecs, type Parsed } from "./args.ts";
import { CommandUsageError } from "./usage-errors.ts";

export interface CommandModule {
  usage: string;
  /** Subcommands with a --help of their own (errors record...), by name. */
  subcommandUsages?: Record<string, string>;
  /** The values of a first argument that is not a sub-command (import's SOURCE), for completion. */
  argumentChoices?: readonly string[];
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
  /**
   * The first positional, when given, is a session id; with no positionals declared (a list of sessions), every
   * one is. Checked before the home is opened.
   */
  session?: boolean;
  /** Checks of the flags that must fail before the home is opened (or created). */
  check?: (p: Parsed, args: string[]) => void;
  /** It may read or write many rows (a JSONL stdin): the database keeps its large page cache. */
  bulk?: boolean;
  /**
   * It only reads, or changes nothing on an empty home (an unknown id or session is refused, nothing is due): a
   * home that does not exist is answered as an empty one and is not created; on a shared archive this host's
   * caches are then left unwritten.
   */
  createsNoHome?: boolean;
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

/** Help text printed to stdout; with --json, as the one document {"help": text}. */
export function printUsage(usage: string, json = false): number {
  const text = usage.trimEnd() + "\n";
  writeOut(json ? JSON.stringify({ help: text.replace(/^\n+/, "") }, null, 2) + "\n" : text);
  return 0;
}

/** Parse argv, answer --help, check the positionals, then run `body` with them. */
export async function runCommand(
  spec: CommandSpec,
  argv: readonly string[],
  body: (p: Parsed, args: string[]) => number | Promise<number>,
): Promise<number> {
  const p = parseArgs(argv, spec.flags ?? {}, spec.name);
  if (bool(p, "help")) return printUsage(spec.usage, bool(p, "json"));
  const declared = spec.positionals !== undefined || spec.optional !== undefined;
  const args = declared ? expectPositionals(p, spec.name, spec.positionals ?? [], spec.optional ?? []) : p.positionals;
  if (spec.session) for (const id of declared ? args.slice(0, 1) : args) assertSessionId(id);
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
  /** Words people try that are no subcommand, each with what to do instead (added to the error). */
  instead?: Record<string, string>;
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
  const lead = leadingOptions(argv);
  const at = lead.command;
  const choices = Object.keys(spec.subcommands).filter((s) => !spec.hidden?.includes(s));
  // An option before the subcommand word would have its value taken for the subcommand (errors --limit 5 list).
  if (lead.unknown !== undefined) {
    const name = lead.unknown.replace(/^--?/, "").split("=")[0]!;
    const known = Object.values(spec.subcommands).some(
      (s) => s.flags && (Object.hasOwn(s.flags, name) || Object.values(s.flags).some((f) => f.short === name)),
    );
    throw new CommandUsageError(
      known
        ? { problem: "option-before-subcommand", command: spec.name, option: lead.unknown }
        : { problem: "unknown-option", command: spec.name, option: lead.unknown },
    );
  }
  if (at < 0) {
    if (argv.includes("--help") || argv.includes("-h")) return printUsage(spec.usage, argv.includes("--json"));
    throw new CommandUsageError({ problem: "missing-subcommand", command: spec.name, choices });
  }
  const sub = argv[at]!;
  const subSpec = Object.hasOwn(spec.subcommands, sub) ? spec.subcommands[sub] : undefined;
  if (!subSpec)
    throw new CommandUsageError({
      problem: "unknown-subcommand",
      command: spec.name,
      subcommand: sub,
      choices,
      instead: spec.instead && Object.hasOwn(spec.instead, sub) ? spec.instead[sub] : undefined,
    });
  return runCommand(subSpec, [...argv.slice(0, at), ...argv.slice(at + 1)], (p, args) => body(sub, p, args));
}
