// A small argv parser: declared flags only, values typed, unknown flags and missing values are usage errors.
import { ArgumentEncodingError, CommandUsageError } from "./usage-errors.ts";
import { readFileSync } from "node:fs";
import { nearestName } from "../shared/nearest-name.ts";

export type FlagType = "string" | "boolean" | "number";
export interface FlagSpec {
  type: FlagType;
  short?: string;
  /** May be given several times (values collected). */
  multiple?: boolean;
}
export type FlagSpecs = Record<string, FlagSpec>;

export interface Parsed {
  flags: Record<string, string | boolean | number | string[] | undefined>;
  positionals: string[];
}

export const GLOBAL_FLAGS: FlagSpecs = {
  home: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  verbose: { type: "boolean" },
};

export function parseArgs(argv: readonly string[], specs: FlagSpecs, command: string): Parsed {
  const all: FlagSpecs = { ...GLOBAL_FLAGS, ...specs };
  const byShort = new Map(Object.entries(all).flatMap(([k, s]) => (s.short ? [[s.short, k] as const] : [])));
  const flags: Parsed["flags"] = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    let name: string | undefined;
    let inline: string | undefined;
    if (arg.startsWith("--") && arg.length > 2) {
      const eq = arg.indexOf("=");
      name = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
      inline = eq > 0 ? arg.slice(eq + 1) : undefined;
    } else if (/^-[A-Za-z]$/.test(arg)) {
      name = byShort.get(arg.slice(1));
      if (!name)
        throw new CommandUsageError({ problem: "unknown-option", command, option: arg, hint: dashHint(command, arg) });
    } else {
      if (arg.includes("\uFFFD") && argIsInvalidUtf8(arg))
        throw new ArgumentEncodingError({ command, argument: `argument ${positionals.length + 1}` });
      positionals.push(arg);
      continue;
    }
    const spec = all[name];
    if (!spec) {
      const near = nearestName(name, Object.keys(all));
      throw new CommandUsageError({
        problem: "unknown-option",
        command,
        option: `--${name}`,
        // a misspelt flag is named; only text that is no flag's misspelling is told to go after --
        ...(near ? { near: `--${near}` } : { hint: dashHint(command, arg) }),
      });
    }
    let value: string | boolean | number;
    if (spec.type === "boolean") {
      if (inline !== undefined)
        throw new CommandUsageError({ problem: "flag-takes-no-value", command, flag: `--${name}` });
      value = true;
    } else {
      const raw = inline ?? argv[++i];
      if (raw === undefined) throw new CommandUsageError({ problem: "flag-needs-value", command, flag: `--${name}` });
      if (name === "home" && inline === undefined) refuseOptionAsHome(raw);
      if (spec.type === "number") {
        if (!/^-?\d+$/.test(raw))
          throw new CommandUsageError({ problem: "flag-not-integer", command, flag: `--${name}`, got: raw });
        value = Number(raw);
      } else {
        if (raw.includes("\uFFFD") && argIsInvalidUtf8(raw))
          throw new ArgumentEncodingError({ command, argument: `--${name}` });
        value = raw;
      }
    }
    if (name === "home") refuseEmptyHome(value as string);
    if (spec.multiple) ((flags[name] ??= []) as string[]).push(String(value));
    else {
      // The last of two values would win unseen (--limit 3 --limit 5, a wrapper's --home and the user's own).
      const before = flags[name];
      if (spec.type !== "boolean" && before !== undefined && before !== value)
        throw new CommandUsageError({ problem: "flag-repeated", command, flag: `--${name}` });
      flags[name] = value;
    }
  }
  return { flags, positionals };
}

/**
 * The runtime decodes argv leniently (a bad byte becomes U+FFFD), while stdin is refused when it is not
 * UTF-8. Look at the raw bytes (/proc/self/cmdline on Linux) so both paths refuse the same input.
 */
function argIsInvalidUtf8(decoded: string): boolean {
  let raw: Buffer;
  try {
    raw = readFileSync("/proc/self/cmdline");
  } catch {
    return false;
  }
  const strict = new TextDecoder("utf-8", { fatal: true });
  const lenient = new TextDecoder("utf-8");
  let start = 0;
  for (let i = 0; i <= raw.length; i++) {
    if (i < raw.length && raw[i] !== 0) continue;
    const bytes = raw.subarray(start, i);
    start = i + 1;
    if (lenient.decode(bytes) !== decoded) continue;
    try {
      strict.decode(bytes);
    } catch {
      return true;
    }
  }
  return false;
}

/** Text that starts with "-" (a search query, a message) goes after "--". */
function dashHint(command: string, arg: string): string {
  return command === "search" ? `; a query that starts with - goes after --: memvoy search -- ${arg}` : "";
}

export const str = (p: Parsed, k: string) => p.flags[k] as string | undefined;
export const num = (p: Parsed, k: string) => p.flags[k] as number | undefined;
export const bool = (p: Parsed, k: string) => p.flags[k] === true;

export function expectPositionals(p: Parsed, command: string, names: string[], optional: string[] = []): string[] {
  if (p.positionals.length < names.length)
    throw new CommandUsageError({ problem: "missing-argument", command, argument: names[p.positionals.length]! });
  if (p.positionals.length > names.length + optional.length) {
    throw new CommandUsageError({
      problem: "unexpected-argument",
      command,
      argument: p.positionals[names.length + optional.length]!,
    });
  }
  return p.positionals;
}

/**
 * `--home --json sessions` would make a home named "--json" in the current folder: an option after --home is
 * refused (./-x names such a folder; --home=-x is taken as written).
 */
function refuseOptionAsHome(value: string | undefined): void {
  if (value === undefined) throw new CommandUsageError({ problem: "home-needs-folder" });
  if (value.startsWith("-")) throw new CommandUsageError({ problem: "home-needs-folder", got: value });
}

/** An explicitly empty --home would mean the default home, silently: refused before anything is opened. */
function refuseEmptyHome(value: string): void {
  if (value === "") throw new CommandUsageError({ problem: "empty-home" });
}

export interface LeadingOptions {
  /** Index of the command word, or -1: the first argument that is neither an option nor the value of --home. */
  command: number;
  /** The --home value given before the command word. */
  home?: string;
  /** `--daemon` stands before the command word. */
  daemon: boolean;
  /** The first option before the command word that is no global option (a typo such as --hme). */
  unknown?: string;
}

/** Options that may stand before the command word (--home, with its value, is read apart). */
export const LEADING = new Set(["--json", "--verbose", "--help", "-h", "--daemon", "--version", "-v", "-V"]);

/** The options before the command word, read the one way every entry point reads --home. */
export function leadingOptions(argv: readonly string[]): LeadingOptions {
  const out: LeadingOptions = { command: -1, daemon: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--home" || arg.startsWith("--home=")) {
      if (arg === "--home") {
        refuseOptionAsHome(argv[i + 1]);
        out.home = argv[++i]!;
      } else out.home = arg.slice("--home=".length);
      refuseEmptyHome(out.home);
    } else if (arg === "--daemon") out.daemon = true;
    else if (!arg.startsWith("-")) {
      out.command = i;
      break;
    } else if (!LEADING.has(arg)) out.unknown ??= arg;
  }
  return out;
}
