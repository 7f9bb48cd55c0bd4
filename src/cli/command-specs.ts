// What each command accepts, read from its help text (the one source for --help, completions and the man page).
import { COMMAND_NAMES, loadCommand, mainHelp } from "./main.ts";

export type FlagValue = "none" | "session" | "dir" | "file" | "any" | string[];

export interface CommandSpec {
  name: string;
  /** The one-line summary from the main help. */
  summary: string;
  usage: string;
  /** Subcommands with a --help of their own, by name. */
  subcommandUsages: Record<string, string>;
  subcommands: string[];
  flags: Map<string, FlagValue>;
  /** The flags of each subcommand with a --help of its own (errors list takes no --fix), globals included. */
  subcommandFlags: Record<string, Map<string, FlagValue>>;
  /** The first positional argument is a session id. */
  sessionArg: boolean;
  /** Every positional argument is a session id (export SESSION...). */
  sessionArgs: boolean;
}

export const GLOBAL_FLAGS: ReadonlyMap<string, FlagValue> = new Map<string, FlagValue>([
  ["--home", "dir"],
  ["--json", "none"],
  ["--help", "none"],
]);
export const TOP_FLAGS: ReadonlyMap<string, FlagValue> = new Map<string, FlagValue>([
  ...GLOBAL_FLAGS,
  ["--version", "none"],
  ["--daemon", "none"],
  ["--verbose", "none"],
]);

function valueKind(flag: string, token: string | undefined): FlagValue {
  if (!token) return "none";
  if (/^[a-z0-9-]+(\|[a-z0-9-]+)+$/.test(token)) return token.split("|");
  if (!/^[A-Z][A-Z_]*$/.test(token)) return "none";
  if (token === "SESSION" || flag === "--session") return "session";
  if (token === "DIR") return "dir";
  if (token === "FILE" || token === "PATH") return "file";
  return "any";
}

/**
 * Flags a help text declares: in its usage lines (up to the first blank line) and at the start of its option
 * lines; flags merely mentioned in prose do not count. A value shown anywhere wins.
 */
export function flagsOf(usage: string): Map<string, FlagValue> {
  const flags = new Map<string, FlagValue>();
  const text = usage.trim();
  const blank = text.indexOf("\n\n");
  const synopsis = blank < 0 ? text : text.slice(0, blank);
  const optionLines = text
    .split("\n")
    .filter((l) => /^\s{2,}(?:-[A-Za-z], )?--[a-z]/.test(l))
    .map((l) => l.trim().split(/\s{2,}/)[0]!);
  for (const m of [synopsis, ...optionLines]
    .join("\n")
    .matchAll(/(?<![\w-])(--[a-z][a-z-]*)(?:[ =]([A-Za-z0-9][A-Za-z0-9|_.-]*))?/g)) {
    const kind = valueKind(m[1]!, m[2]);
    const prev = flags.get(m[1]!);
    if (prev === undefined || prev === "none") flags.set(m[1]!, kind);
  }
  return flags;
}

/** Every command's one-line summary, from the main help's command list (on the next line when the first is full). */
function mainEntries(version: string): Map<string, string> {
  const out = new Map<string, string>();
  const text = mainHelp(version);
  const lines = text.slice(text.indexOf("Commands:"), text.indexOf("\nDaemon:")).split("\n");
  for (const [i, line] of lines.entries()) {
    const m = /^ {2}([a-z][a-z-]*)(?:.*?\s{2,}(\S.*)|.*)$/.exec(line);
    if (m) out.set(m[1]!, m[2] ?? /^ {30,}(\S.*)$/.exec(lines[i + 1] ?? "")?.[1] ?? "");
  }
  return out;
}

/**
 * Sub-commands a command's help text shows on its usage lines: `memvoy errors sweep`, `memvoy config show|path|check`
 * (internal ones, like `daemon work`, are not shown there).
 */
export function subcommandsOf(name: string, usage: string): string[] {
  const out = new Set<string>();
  for (const m of usage.matchAll(new RegExp(`^(?:Usage:)?\\s*memvoy ${name} ([a-z]+(?:\\|[a-z]+)*)(?!\\S)`, "gm")))
    for (const sub of m[1]!.split("|")) out.add(sub);
  return [...out];
}

/** Every command's spec, in the main help's order. Loads each command module (their help texts). */
export async function commandSpecs(version: string): Promise<CommandSpec[]> {
  const entries = mainEntries(version);
  const names = [...entries.keys()].filter((n) => COMMAND_NAMES.includes(n));
  for (const n of COMMAND_NAMES) if (!names.includes(n) && !n.startsWith("_")) names.push(n);
  const specs: CommandSpec[] = [];
  for (const name of names) {
    const mod = await loadCommand(name);
    if (!mod) continue;
    const flags = flagsOf(mod.usage);
    // A subcommand's own help may name a flag's values the overview leaves out (errors list --outcome).
    for (const sub of Object.values(mod.subcommandUsages ?? {}))
      for (const [f, k] of flagsOf(sub))
        if (!flags.has(f) || flags.get(f) === "none" || flags.get(f) === "any") flags.set(f, k);
    for (const [f, k] of GLOBAL_FLAGS) if (!flags.has(f)) flags.set(f, k);
    flags.delete("--daemon");
    const subcommandFlags: Record<string, Map<string, FlagValue>> = {};
    for (const [sub, text] of Object.entries(mod.subcommandUsages ?? {})) {
      const own = flagsOf(text);
      // The values another help names (errors list --outcome resolved|failed|abandoned) hold for this one too.
      for (const [f, k] of own) if (k === "any" && Array.isArray(flags.get(f))) own.set(f, flags.get(f)!);
      for (const [f, k] of GLOBAL_FLAGS) if (!own.has(f)) own.set(f, k);
      subcommandFlags[sub] = own;
    }
    const sessionArg = new RegExp(`memvoy ${name} \\[?SESSION\\b`).test(mod.usage);
    const sessionArgs = new RegExp(`memvoy ${name} \\[?SESSION\\.\\.\\.`).test(mod.usage);
    specs.push({
      name,
      summary: entries.get(name) ?? "",
      usage: mod.usage,
      subcommandUsages: mod.subcommandUsages ?? {},
      subcommands: [...subcommandsOf(name, mod.usage), ...(mod.argumentChoices ?? [])],
      flags,
      subcommandFlags,
      sessionArg,
      sessionArgs,
    });
  }
  const help = specs.find((s) => s.name === "help");
  if (help) help.subcommands = specs.map((s) => s.name);
  return specs;
}
