// CLI entry: global flags, --help, and lazy dispatch to one command module.
import { CommandUsageError } from "./usage-errors.ts";
import type { CommandModule } from "./command.ts";
import { LEADING, leadingOptions } from "./args.ts";
import { nearestName } from "../shared/nearest-name.ts";
import { stdoutStream } from "../shared/stdout.ts";
import { printUsage } from "./run-command.ts";

const COMMANDS: Record<string, () => Promise<CommandModule>> = {
  add: () => import("./commands/add.ts"),
  sessions: () => import("./commands/sessions.ts"),
  history: () => import("./commands/history.ts"),
  search: () => import("./commands/search.ts"),
  context: () => import("./commands/context.ts"),
  summary: () => import("./commands/summary.ts"),
  summarize: () => import("./commands/summarize.ts"),
  reset: () => import("./commands/reset.ts"),
  rm: () => import("./commands/rm.ts"),
  "rm-message": () => import("./commands/rm-message.ts"),
  doctor: () => import("./commands/doctor.ts"),
  config: () => import("./commands/config.ts"),
  reindex: () => import("./commands/reindex.ts"),
  daemon: () => import("./commands/daemon.ts"),
  errors: () => import("./commands/errors.ts"),
  demo: () => import("./commands/demo.ts"),
  stats: () => import("./commands/stats.ts"),
  completion: () => import("./commands/completion.ts"),
  __complete: () => import("./commands/complete-words.ts"),
  mcp: () => import("./commands/mcp.ts"),
  import: () => import("./commands/import.ts"),
  export: () => import("./commands/export.ts"),
  usage: () => import("./commands/usage.ts"),
  "migrate-archive": () => import("./commands/migrate-archive.ts"),
};

/** Every command name, for help, completions and the man page. */
export const COMMAND_NAMES = Object.keys(COMMANDS).filter((n) => !n.startsWith("_"));

/** A command's module (its usage text and run). */
export async function loadCommand(name: string): Promise<CommandModule | undefined> {
  const load = COMMANDS[name];
  return load ? await load() : undefined;
}

export function mainHelp(version: string): string {
  return `memvoy ${version}: the memory layer for AI agents

Usage: memvoy [COMMAND] [options]     (no command on a terminal: the terminal UI; otherwise this help)

Commands:
  add SESSION --role R [--content T]   append a message (stdin: text, or JSONL without --role)
  sessions                             list sessions: messages, last activity, summary
  history SESSION [--all]              the context window (last N) or every message; filters as search
  search QUERY [--session S] [--match keyword|semantic|hybrid] [--range 1d|7d|30d|1y|all] [--limit N]
               [--since TIME] [--until TIME] [--role user|assistant] [--sender NAME]
  context SESSION [--input TEXT]       the LLM-ready messages for the next turn
  summary SESSION                      the rolling summary, its cursor, last run and token usage
  summarize [SESSION]                  run Generate now (every due session when none is given)
  usage [--days N]                     LLM tokens by day, model and session; the daily token budget
  reset SESSION [--all]                clear history and archive; the summary survives unless --all
  rm SESSION                           remove the session entirely
  rm-message ID [--drop-summary]       remove one message everywhere (a secret pasted by mistake)
  doctor [--repair] [--migrate]        check the home; rebuild a corrupt history.json from the archive
                                       (on a shared archive: the server, schema, vectors, leases, caches)
  errors record|search|list|show|rm|sweep
                                       error memory: tool errors and their fixes, across sessions
  import SOURCE [PATH...]              bring in Claude Code, Codex, opencode, Gemini CLI, Aider, ChatGPT
                                       or memvoy JSONL history (import auto: every source found)
  export SESSION...|--all              write sessions as JSONL (import jsonl reads it back) or Markdown
  demo [--home DIR]                    create a demo home (no API key needed) and say how to open it
  config show|path|check               the effective config, its file, validation
  reindex [--pending]                  rebuild every vector with the configured embedder (resumable)
  daemon status|stop                   the background daemon: state of its jobs, its HTTP URL, or stop it
  mcp [--print-config CLIENT]          the MCP server over stdio, for agents (or their config snippet)
  stats                                messages and bytes per tier, vectors, errors, disk use, tokens
  migrate-archive                      copy this home's archive into the shared PostgreSQL archive
  completion bash|zsh|fish             print the shell completion script
  help [COMMAND]                       this help, or a command's

Daemon:
  --daemon [--verbose]                 run the daemon in the foreground (summaries, embeddings,
                                       error-memory sweep, maintenance); logs to <home>/daemon.log

Shared archive ([archive] url or MEMVOY_ARCHIVE_URL, with [vectors] uri): the commands above, the
terminal UI, the MCP server and the daemon run on PostgreSQL and the shared vectors
(docs/many-machines.md).

Global options:
  --home DIR     the home (default: $MEMVOY_HOME, else $XDG_CONFIG_HOME/memvoy, else ~/.config/memvoy)
  --json         print one JSON document on stdout
  -v, --version  print the version
  -h, --help     help for memvoy or a command (memvoy search --help)

Exit codes: 0 ok, 1 runtime failure, 2 usage, config or input error.
`;
}

/** The global option a mistyped one before the command most likely means (--hme: --home). */
function globalNear(option: string): { near?: string } {
  if (!option.startsWith("--")) return {};
  const names = ["home", ...[...LEADING].filter((o) => o.startsWith("--")).map((o) => o.slice(2))];
  const near = nearestName(option.slice(2).split("=")[0]!, names);
  return near ? { near: `--${near}` } : {};
}

/** An unknown command word, with the command it most likely misspells (serach: search). */
function unknownCommand(command: string): CommandUsageError {
  const near = nearestName(command, [...COMMAND_NAMES, "help"]);
  return new CommandUsageError({ problem: "unknown-command", command, ...(near ? { near } : {}) });
}

export async function runCli(argv: readonly string[], version: string): Promise<number> {
  const json = argv.includes("--json");
  try {
    const lead = leadingOptions(argv);
    if (lead.daemon) {
      const { runForeground } = await import("./commands/daemon.ts");
      return await runForeground(argv, version);
    }
    // Before the command word only the global options stand: a typo there would otherwise be skipped, and
    // its value taken for the command (memvoy --hme DIR sessions: unknown command "DIR").
    if (lead.unknown !== undefined)
      throw new CommandUsageError({
        problem: "unknown-global-option",
        option: lead.unknown,
        ...globalNear(lead.unknown),
      });
    const cmdIndex = lead.command;
    const command = cmdIndex >= 0 ? argv[cmdIndex] : undefined;
    if (command === undefined) {
      const { home } = lead;
      // `memvoy` or `memvoy --home DIR` alone opens the terminal UI.
      const homeOnly = argv.length === 0 || (home !== undefined && argv.length === (argv[0] === "--home" ? 2 : 1));
      if (homeOnly && process.stdin.isTTY && stdoutStream().isTTY) {
        if (process.env.TERM === "dumb") {
          throw new CommandUsageError({ problem: "dumb-terminal" });
        }
        const { runTui } = await import("../tui/run-tui.ts");
        const code = await runTui({ home });
        // Quit never waits for background work (a drain, a search, a model call): the terminal is already
        // given back, so end now instead of letting pending work hold the process open.
        await new Promise<void>((resolve) => stdoutStream().write("", () => resolve()));
        process.exit(code);
      }
      // Without the terminal UI, `memvoy` with only global options (--home DIR, --json) prints the help, as JSON with --json.
      const globalsOnly = argv.every(
        (a, i) =>
          a === "--json" ||
          a.startsWith("--home=") ||
          (a === "--home" && i + 1 < argv.length) ||
          argv[i - 1] === "--home",
      );
      if (argv.includes("--help") || argv.includes("-h") || homeOnly || globalsOnly)
        return printUsage(mainHelp(version), json);
      throw new CommandUsageError({ problem: "missing-command" });
    }
    if (command === "help") {
      // Words only: options and the value of --home (memvoy help --home DIR search).
      const rest = argv.slice(cmdIndex + 1).filter((a, i, all) => !a.startsWith("-") && all[i - 1] !== "--home");
      // help help: help is a command of the main help.
      if (rest.length === 0 || rest[0] === "help") return printUsage(mainHelp(version), json);
      const mod = await loadCommand(rest[0]!);
      if (!mod) throw unknownCommand(rest[0]!);
      // help errors record: the subcommand's own help, as memvoy errors record --help prints it.
      const sub = rest[1] !== undefined ? mod.subcommandUsages?.[rest[1]] : undefined;
      // A misspelt one is named, as memvoy errors recrod does, not answered with the command's overview.
      if (rest[1] !== undefined && mod.subcommandUsages && sub === undefined) {
        const choices = Object.keys(mod.subcommandUsages);
        throw new CommandUsageError({ problem: "unknown-subcommand", command: rest[0]!, subcommand: rest[1], choices });
      }
      return printUsage(sub ?? mod.usage, json);
    }
    const load = COMMANDS[command];
    if (!load) throw unknownCommand(command);
    const mod = await load();
    return await mod.run([...argv.slice(0, cmdIndex), ...argv.slice(cmdIndex + 1)]);
  } catch (err) {
    // stdout was closed by the reader (`| head -1`): nothing more to say, and nothing went wrong.
    if ((err as NodeJS.ErrnoException)?.code === "EPIPE") return 0;
    // Loaded for a failure only: describing an error (with secrets redacted) is no part of a command that works.
    const { reportError } = await import("./format-error.ts");
    return reportError(err, json);
  }
}
