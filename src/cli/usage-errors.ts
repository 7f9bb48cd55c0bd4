// The CLI's own errors: a command line that cannot be run (exit 2), and stdin that cannot be read as input.
import { namedError } from "../shared/errors.ts";

type CommandUsage =
  | { problem: "missing-command" }
  | { problem: "unknown-command"; command: string; near?: string }
  | { problem: "unknown-global-option"; option: string; near?: string }
  | { problem: "dumb-terminal" }
  | { problem: "empty-home" }
  | { problem: "home-needs-folder"; got?: string }
  | { problem: "missing-subcommand"; command: string; choices: string[] }
  | { problem: "unknown-subcommand"; command: string; subcommand: string; choices: string[]; instead?: string }
  | { problem: "unknown-option"; command: string; option: string; hint?: string; near?: string }
  | { problem: "option-before-subcommand"; command: string; option: string }
  | { problem: "flag-takes-no-value"; command: string; flag: string }
  | { problem: "flag-needs-value"; command: string; flag: string }
  | { problem: "flag-not-integer"; command: string; flag: string; got: string }
  | { problem: "flag-repeated"; command: string; flag: string }
  | { problem: "flag-required"; command: string; flag: string; seeHelp: boolean }
  | { problem: "flag-rule"; command: string; flag: string; rule: string }
  | { problem: "flags-need"; command: string; flags: string[]; needs: string }
  | { problem: "missing-argument"; command: string; argument: string; choices?: readonly string[] }
  | { problem: "unexpected-argument"; command: string; argument: string }
  | { problem: "unknown-value"; command: string; what: string; value: string }
  | { problem: "no-input"; command: string; give: string; seeHelp: boolean }
  | { problem: "stdin-is-terminal"; command: string; startedBy: string }
  | { problem: "unknown-choice"; command: string; what: string; value: string; choices: readonly string[] }
  | { problem: "flag-choice"; command: string; flag: string; choices: readonly string[]; got: string }
  | { problem: "needs-path"; command: string; argument: string; why: string }
  | { problem: "takes-no-argument"; command: string; argument: string; why: string }
  | { problem: "no-such-path"; command: string; path: string; flag?: string }
  | { problem: "source-not-found"; command: string; paths: string[]; override: string }
  | { problem: "path-is-folder"; command: string; flag: string; path: string }
  | { problem: "path-is-stream"; command: string; path: string }
  | { problem: "either-or"; command: string; one: string; other: string; given: "both" | "neither" };

const meant = (near: string | undefined) => (near === undefined ? "" : `: did you mean ${near}?`);

function oneOf(choices: readonly string[]): string {
  return choices.length < 2 ? choices.join("") : `${choices.slice(0, -1).join(", ")} or ${choices.at(-1)}`;
}

function describeUsage(d: CommandUsage): string {
  const help = (command: string) => `(see memvoy ${command} --help)`;
  switch (d.problem) {
    case "missing-command":
      return "missing command (see memvoy --help)";
    case "unknown-command":
      return `unknown command ${JSON.stringify(d.command)}${meant(d.near)} (see memvoy --help)`;
    case "unknown-global-option":
      return `unknown option ${d.option}${meant(d.near)} (see memvoy --help)`;
    case "empty-home":
      return "--home is empty: name a folder, or leave --home out for the default home (see memvoy --help)";
    case "home-needs-folder":
      return d.got === undefined
        ? "--home needs a folder (see memvoy --help)"
        : `--home needs a folder, not the option ${d.got} (a folder whose name starts with -: --home ./${d.got})`;
    case "dumb-terminal":
      return "the terminal UI cannot run with TERM=dumb (no cursor movement); run it as  TERM=xterm-256color memvoy  or use the commands (memvoy --help)";
    case "missing-subcommand":
      return `${d.command}: missing subcommand: use ${oneOf(d.choices)} ${help(d.command)}`;
    case "unknown-subcommand":
      return `${d.command}: unknown subcommand ${JSON.stringify(d.subcommand)}: use ${oneOf(d.choices)}${d.instead ? `; ${d.instead}` : ""}`;
    case "unknown-option":
      return `${d.command}: unknown option ${d.option}${meant(d.near)} (see memvoy ${d.command} --help${d.hint ?? ""})`;
    case "option-before-subcommand":
      return `${d.command}: ${d.option} goes after the subcommand: memvoy ${d.command} SUBCOMMAND ${d.option} ... ${help(d.command)}`;
    case "flag-takes-no-value":
      return `${d.command}: ${d.flag} takes no value`;
    case "flag-needs-value":
      return `${d.command}: ${d.flag} needs a value`;
    case "flag-not-integer":
      return `${d.command}: ${d.flag} must be a whole number, got ${JSON.stringify(d.got)}`;
    case "flag-repeated":
      return `${d.command}: ${d.flag} is given twice with different values: give it once (it takes one value)`;
    case "flag-required":
      return `${d.command}: ${d.flag} is required${d.seeHelp ? ` ${help(d.command)}` : ""}`;
    case "flag-rule":
      return `${d.command}: ${d.flag} must be ${d.rule}`;
    case "flags-need":
      return `${d.command}: ${d.flags.join(" and ")} ${d.flags.length > 1 ? "need" : "needs"} ${d.needs}`;
    case "missing-argument":
      return `${d.command}: missing ${d.argument}${d.choices ? `: one of ${oneOf(d.choices)}` : ""} ${help(d.command)}`;
    case "unexpected-argument":
      return `${d.command}: unexpected argument ${JSON.stringify(d.argument)}`;
    case "unknown-value":
      return `${d.command}: unknown ${d.what} ${JSON.stringify(d.value)}`;
    case "no-input":
      return `${d.command}: give ${d.give}${d.seeHelp ? ` ${help(d.command)}` : ""}`;
    case "stdin-is-terminal":
      return `${d.command}: stdin is a terminal; ${d.startedBy} starts this command ${help(d.command)}`;
    case "unknown-choice":
      return `${d.command}: unknown ${d.what} ${JSON.stringify(d.value)}: use ${oneOf(d.choices)}`;
    case "flag-choice":
      return `${d.command}: ${d.flag} must be ${oneOf(d.choices)}, got ${JSON.stringify(d.got)}`;
    case "needs-path":
      return `${d.command}: give the ${d.argument} to read (${d.why})`;
    case "takes-no-argument":
      return `${d.command}: takes no ${d.argument} (${d.why})`;
    case "no-such-path":
      return d.flag
        ? `${d.command}: no such folder for ${d.flag}: ${d.path}`
        : `${d.command}: no such file or folder: ${d.path}`;
    case "source-not-found":
      return `${d.command}: not found at its default location (${d.paths.join(", ")}): give PATH, or set ${d.override}`;
    case "path-is-folder":
      return `${d.command}: ${d.flag} ${d.path} is a folder; name a file`;
    case "path-is-stream":
      return `${d.command}: ${d.path} is a pipe or device, not a file or folder; save it to a file and give that`;
    case "either-or":
      return d.given === "both"
        ? `${d.command}: give ${d.one} or ${d.other}, not both`
        : `${d.command}: give ${d.one} or ${d.other} ${help(d.command)}`;
  }
}

/** A command line that cannot be run: the command, the flag or argument at fault, and what was expected. */
export const CommandUsageError = namedError<CommandUsage>("CommandUsageError", "usage", describeUsage);
export type CommandUsageError = InstanceType<typeof CommandUsageError>;

/** A command-line argument (`argument 2`, `--content`) whose bytes are not UTF-8: refused, nothing was written. */
export const ArgumentEncodingError = namedError<{ command: string; argument: string }>(
  "ArgumentEncodingError",
  "input",
  (d) => `${d.command}: ${d.argument} is not valid UTF-8; nothing was written`,
);
export type ArgumentEncodingError = InstanceType<typeof ArgumentEncodingError>;

/** A long `add` from stdin stored its first lines, then failed (`cause`, in describeError's words): what is stored and how to resume. */
export const PartialAddError = namedError<{ session: string; stored: number; lastLine: number; cause: string }>(
  "PartialAddError",
  "runtime",
  (d) =>
    `stored ${d.stored} message(s) in ${d.session} (stdin lines 1-${d.lastLine}), then failed: ${d.cause}; the lines after ${d.lastLine} were not stored (resume with: tail -n +${d.lastLine + 1})`,
);
export type PartialAddError = InstanceType<typeof PartialAddError>;

/** stdin held nothing to add, bytes that are not UTF-8 (refused rather than replaced), or is a folder; nothing was written. */
export const StdinInputError = namedError<{ command: string; problem: "empty" | "not-utf8" | "folder" }>(
  "StdinInputError",
  "input",
  (d) =>
    d.problem === "empty"
      ? `${d.command}: stdin held no messages`
      : d.problem === "folder"
        ? `${d.command}: stdin is a folder, not a file; nothing was written`
        : `${d.command}: stdin is not valid UTF-8; nothing was written`,
);
export type StdinInputError = InstanceType<typeof StdinInputError>;
