// memvoy errors record|search|list|show|rm|sweep: the cross-session error memory.
import type { ErrorRecord } from "../../app/memory-api.ts";
import { CommandUsageError } from "../usage-errors.ts";
import { stdinText } from "../stdin-text.ts";
import { checkErrorRecord } from "../../app/wire-input.ts";
import { nsToLocalSeconds, parseTime } from "../../shared/time.ts";
import { bool, num, str, type FlagSpecs, type Parsed } from "../args.ts";
import { runSubcommand, usingAnyHome, type AnyHome, type CommandSpec, type SubcommandsSpec } from "../command.ts";
import { bold, cyan, dim, printJson, println } from "../output.ts";
import { lineText, terminalText } from "../../shared/terminal-text.ts";
import { errorJson, errorSearchJson } from "../../app/api/json-shapes.ts";
import type { ErrorRecordJson, RecordErrorResultJson, RemoveErrorResultJson } from "../../app/api/json-types.ts";
import type { RecordErrorInput, SearchErrorsInput } from "../../app/api/memory-api.ts";
import { homePaths, resolveHome } from "../../config/home.ts";
import { loadConfigCached } from "../../config/load-cached.ts";
import { askHomeDaemon, rmErrorCall, type DaemonCall } from "../ask-daemon.ts";
import type { Config } from "../../config/schema.ts";

export const usage = `
Usage: memvoy errors record --tool T --error TEXT --fix TEXT [--cause TEXT] [--outcome O] [--keywords a,b] [--local]
       memvoy errors search "<error text>" [--tool T [--other-tools]] [--limit N] [--local]
       memvoy errors list [--tool T] [--outcome O] [--limit N]
       memvoy errors show ID
       memvoy errors rm ID [--local]
       memvoy errors sweep
       (each also takes --json; memvoy errors SUBCOMMAND --help for details)

Error memory: tool errors and what fixed them (or what was tried), shared by every
session. Reset and rm of a session never touch it. A record lives error_memory.ttl_days
(default 90) days; every search that returns it restarts that time.

  record   store an error and its fix. Recording the same tool with the same error
           again (numbers, paths, ids, hex and quoted parts aside) updates that record:
           newest text, fix and outcome, one more occurrence, TTL restarted.
           Secrets (API keys and tokens, bearer headers, passwords in URLs, private
           keys) are redacted before anything is stored or embedded.
  search   the records most like an error text: keyword and semantic matches in one
           ranking; the same tool first, then resolved before failed/abandoned.
           No match prints nothing on stdout, a note on stderr (with --json: "hits": []).
  list     live records, most recently recorded first.
  show     one record in full. IDs are short hex; any unique prefix works, as with git.
  rm       delete one record.
  sweep    delete expired records now (the daemon does this every hour). On a shared
           archive it sweeps every host's records.
`;

/** Each subcommand's --help (also in the man page). */
export const subcommandUsages: Record<string, string> = {
  record: `
Usage: memvoy errors record --tool T --error TEXT --fix TEXT [--cause TEXT] [--outcome O] [--keywords a,b]
                           [--local] [--json]

Store a tool error and its fix. The same tool + error signature (the error with numbers,
paths, ids, hex and quoted parts normalised away) updates the existing record instead:
it keeps the newest text, fix and outcome, counts one more occurrence and restarts the TTL.
Secrets are redacted from every field before anything is stored or embedded.

  --tool T        the tool whose call failed (e.g. git, npm, a function name)
  --error TEXT    what was seen; "-" reads it from stdin
  --fix TEXT      what resolved it, or what was tried; "-" reads it from stdin
  --cause TEXT    why it happened (optional; "-" reads it from stdin). stdin gives one field
  --outcome O     resolved (default), failed (the approach is proven not to work)
                  or abandoned (gave up after several approaches)
  --keywords a,b  extra words to find it by (comma separated; may repeat)
  --local         store it from this process. By default, when the daemon runs for the
                  home (same memvoy, same config), it stores it: its worker has the vector
                  store and the embedder loaded. The record is the same either way
`,
  search: `
Usage: memvoy errors search "<error text>" [--tool T [--other-tools]] [--limit N] [--local] [--json]

Find the fixes recorded for errors like this one, in any session. Keyword matches (over
error, cause, fix and keywords) and semantic matches (the error text's embedding) are
combined into one ranking; the same tool comes first, then resolved before failed and
abandoned. Every record returned has its TTL restarted. "-" reads the text from stdin.
No match prints nothing on stdout (with --json: "hits": []).

  --tool T        only records of tool T
  --other-tools   with --tool: also other tools' records, after T's
  --limit N       at most N records (1-100, default 5)
  --local         search in this process. By default, when the daemon runs for the home
                  (same memvoy, same config), it answers: its index is open, and its worker
                  has the vectors and the embedder loaded. The records are the same either way
`,
  list: `
Usage: memvoy errors list [--tool T] [--outcome resolved|failed|abandoned] [--limit N] [--json]

Live error records, most recently recorded first (default limit 50). Listing is no hit:
TTLs are unchanged.
`,
  show: `
Usage: memvoy errors show ID [--json]

One error record in full. Any unique prefix of the id works. Reading is no hit: the TTL
is unchanged.
`,
  rm: `
Usage: memvoy errors rm ID [--local] [--json]

Delete one error record (and its vector). Any unique prefix of the id works.

Options:
  --local         delete it from this process. By default, when the daemon runs for the home
                  (same memvoy, same config), it deletes it: its worker has the vector store
                  loaded. The record and its vector are removed either way
`,
  sweep: `
Usage: memvoy errors sweep [--json]

Delete every expired error record and its vector now, and compact the vector table.
The daemon does this every hour; expired records are never returned in the meantime.
`,
};

const SPECS: Record<string, FlagSpecs> = {
  record: {
    tool: { type: "string" },
    error: { type: "string" },
    fix: { type: "string" },
    cause: { type: "string" },
    outcome: { type: "string" },
    keywords: { type: "string", multiple: true },
    local: { type: "boolean" },
  },
  search: {
    tool: { type: "string" },
    "other-tools": { type: "boolean" },
    limit: { type: "number", short: "n" },
    local: { type: "boolean" },
  },
  list: { tool: { type: "string" }, outcome: { type: "string" }, limit: { type: "number", short: "n" } },
  show: {},
  rm: { local: { type: "boolean" } },
  sweep: {},
};
/** Usage checks that need no home, so a bad command line opens nothing. */
const CHECKS: Record<string, Partial<CommandSpec>> = {
  record: {
    positionals: [],
    check(p) {
      for (const f of ["tool", "error", "fix"])
        if (str(p, f) === undefined)
          throw new CommandUsageError({
            problem: "flag-required",
            command: "errors record",
            flag: `--${f}`,
            seeHelp: true,
          });
      const piped = STDIN_FIELDS.filter((f) => str(p, f) === "-");
      if (piped.length > 1)
        throw new CommandUsageError({
          problem: "either-or",
          command: "errors record",
          one: `--${piped[0]} -`,
          other: `--${piped[1]} -`,
          given: "both",
        });
    },
  },
  search: {
    check(p) {
      const command = "errors search";
      if (p.positionals.length === 0)
        throw new CommandUsageError({ problem: "missing-argument", command, argument: "the error text" });
      if (bool(p, "other-tools") && str(p, "tool") === undefined)
        throw new CommandUsageError({ problem: "flags-need", command, flags: ["--other-tools"], needs: "--tool" });
    },
  },
  list: { positionals: [] },
  show: { positionals: ["ID"] },
  rm: { positionals: ["ID"] },
  sweep: { positionals: [] },
};

const COMMAND: SubcommandsSpec = {
  name: "errors",
  usage,
  subcommands: Object.fromEntries(
    Object.entries(SPECS).map(([sub, flags]) => [
      sub,
      { name: `errors ${sub}`, usage: subcommandUsages[sub]!, flags, ...CHECKS[sub] },
    ]),
  ),
};

export function run(argv: readonly string[]): Promise<number> {
  return runSubcommand(COMMAND, argv, async (sub, p) => {
    const stdin = readsStdin(sub, p) ? await stdinText(`errors ${sub}`) : undefined;
    if (sub === "search") return search(p, stdin);
    if (sub === "record") return record(p, stdin);
    if (sub === "rm") return rm(p);
    return usingAnyHome(p, `errors ${sub}`, (api) => COMMANDS[sub]!(api, p, stdin), true, undefined, true);
  });
}

/** The record fields that take "-" for stdin (one of them at a time). */
const STDIN_FIELDS = ["error", "fix", "cause"] as const;

/** `--error -`, `--fix -` or `--cause -` (record) or the one argument `-` (search): the text comes from stdin. */
function readsStdin(sub: string, p: Parsed): boolean {
  if (sub === "record") return STDIN_FIELDS.some((f) => str(p, f) === "-");
  return sub === "search" && p.positionals.length === 1 && p.positionals[0] === "-";
}

type Runner = (api: AnyHome, p: Parsed, stdin: string | undefined) => Promise<number>;

const COMMANDS: Record<string, Runner> = {
  async list(api, p) {
    const r = await api.listErrors({
      tool: str(p, "tool"),
      outcome: str(p, "outcome") as ErrorRecord["outcome"] | undefined,
      limit: num(p, "limit"),
    });
    if (bool(p, "json")) {
      printJson({ records: r.records.map(errorJson), total: r.total });
      return 0;
    }
    for (const rec of r.records) {
      const firstLine = rec.error.split("\n").find((l) => l.trim() !== "") ?? "";
      println(
        `${bold(rec.id)}  ${cyan(rec.tool)} ${dim(`${rec.outcome} · ${plural(rec.hits, "hit")} · expires ${nsToLocalSeconds(rec.expiresAt).slice(0, 10)}`)}  ${clip(lineText(firstLine), 90)}`,
      );
    }
    if (r.total > r.records.length)
      process.stderr.write(`memvoy: ${r.total - r.records.length} more; use --limit ${r.total}\n`);
    if (r.total === 0) process.stderr.write("memvoy: no error records\n");
    return 0;
  },

  async show(api, p) {
    const rec = errorJson(await api.getError(p.positionals[0]!));
    if (bool(p, "json")) printJson(rec);
    else printRecord(rec, `keywords: ${rec.keywords.join(", ") || "-"}`);
    return 0;
  },

  async sweep(api, p) {
    const r = await api.sweepErrors();
    if (bool(p, "json")) printJson(r);
    else {
      notes(r.notes);
      println(`removed ${r.removed} expired error record(s)`);
    }
    return 0;
  },
};

/**
 * The daemon's answer to a call when it runs for the home (unless --local), else `local`'s in this process; `here`
 * says what the command does when the daemon does not answer in time.
 */
async function daemonOrLocal<T>(
  p: Parsed,
  command: string,
  call: DaemonCall,
  local: (api: AnyHome) => Promise<T>,
  here: string,
  createsNoHome = false,
): Promise<T> {
  let config: Config | undefined;
  if (!bool(p, "local")) {
    const paths = homePaths(resolveHome(p.flags.home as string | undefined, process.env));
    config = loadConfigCached(paths.config, process.env);
    const answered = await askHomeDaemon<T>(paths, config, call, here);
    if (answered !== undefined) return answered;
  }
  return usingAnyHome(p, command, local, true, config, createsNoHome);
}

/** `errors record`: stored by the daemon when it runs for the home (unless --local), else by this process. */
async function record(p: Parsed, stdin: string | undefined): Promise<number> {
  const field = (name: (typeof STDIN_FIELDS)[number]) => {
    const given = str(p, name);
    return given === "-" ? stdin : given;
  };
  const input: RecordErrorInput = {
    tool: str(p, "tool")!,
    error: field("error")!,
    fix: field("fix")!,
    cause: field("cause"),
    outcome: str(p, "outcome") as ErrorRecordJson["outcome"] | undefined,
    keywords: p.flags.keywords as string[] | undefined,
  };
  checkErrorRecord(input); // a refused record creates no home
  const r = await daemonOrLocal(
    p,
    "errors record",
    { route: "/v1/errors", body: input },
    async (api): Promise<RecordErrorResultJson> => {
      const r = await api.recordError(input);
      return { record: errorJson(r.record), merged: r.merged, redacted: r.redacted, notes: r.notes };
    },
    "recording here",
  );
  if (bool(p, "json")) {
    printJson(r);
    return 0;
  }
  notes(r.notes);
  if (r.redacted.length > 0) process.stderr.write(`memvoy: redacted before storing: ${r.redacted.join(", ")}\n`);
  const rec = r.record;
  println(
    r.merged
      ? `updated ${bold(rec.id)} (${rec.tool}, ${rec.outcome}): the same error, seen ${rec.occurrences} times`
      : `recorded ${bold(rec.id)} (${rec.tool}, ${rec.outcome})`,
  );
  return 0;
}

/** `errors search`: the daemon's answer when it runs for the home (unless --local), else this process's. */
async function search(p: Parsed, stdin: string | undefined): Promise<number> {
  const input: SearchErrorsInput = {
    query: stdin ?? p.positionals.join(" "),
    tool: str(p, "tool"),
    limit: num(p, "limit"),
    otherTools: bool(p, "other-tools") || undefined,
  };
  const r = await daemonOrLocal(
    p,
    "errors search",
    { route: "/v1/errors/search", body: input },
    async (api) => errorSearchJson(input.tool, await api.searchErrors(input)),
    "searching here",
    true,
  );
  if (bool(p, "json")) {
    printJson(r);
    return 0;
  }
  notes(r.notes);
  if (r.hits.length === 0) process.stderr.write("memvoy: no error record matches\n");
  for (const h of r.hits) {
    printRecord(h, `score ${h.score.toFixed(2)} · ${h.matchedBy.join("+")}`, 6);
    println();
  }
  return 0;
}

/** `errors rm`: removed by the daemon when it runs for the home (unless --local), else by this process. */
async function rm(p: Parsed): Promise<number> {
  const id = p.positionals[0]!;
  const r = await daemonOrLocal(
    p,
    "errors rm",
    rmErrorCall(id),
    async (api): Promise<RemoveErrorResultJson> => {
      const r = await api.removeError(id);
      return { removed: errorJson(r.removed), notes: r.notes };
    },
    "removing here",
    true,
  );
  if (bool(p, "json")) {
    printJson(r);
    return 0;
  }
  notes(r.notes);
  println(`removed ${r.removed.id} (${r.removed.tool})`);
  return 0;
}

function notes(list: readonly string[]): void {
  for (const n of list) process.stderr.write(`memvoy: ${n}\n`);
}

function clip(text: string, max: number): string {
  return text.length > max ? text.slice(0, max - 1) + "…" : text;
}

function indent(label: string, text: string, maxLines?: number): string {
  let lines = terminalText(text).split("\n");
  // A cut error keeps its last lines too: a Python traceback names the exception on its last line.
  if (maxLines !== undefined && lines.length > maxLines + 1) {
    const hidden = lines.length - maxLines;
    lines = [...lines.slice(0, maxLines - 2), `… ${plural(hidden, "more line")}`, ...lines.slice(-2)];
  }
  const pad = " ".repeat(label.length + 3);
  return `  ${dim(label)} ${lines.join("\n" + pad)}`;
}

/** A record as the API gives it (the daemon's answer or this process's, in one shape). */
function printRecord(rec: ErrorRecordJson, extra: string, maxErrorLines?: number): void {
  const at = (time: string) => nsToLocalSeconds(parseTime(time)!);
  const expires = at(rec.expiresAt);
  const last = rec.lastHitAt !== null ? ` · last hit ${at(rec.lastHitAt)}` : "";
  println(
    `${bold(rec.id)}  ${cyan(rec.tool)} ${dim(`${rec.outcome} · seen ${rec.occurrences}× · ${plural(rec.hits, "hit")}${last} · expires ${expires} · ${extra}`)}`,
  );
  println(indent("error:", rec.error, maxErrorLines));
  if (rec.cause !== null) println(indent("cause:", rec.cause));
  println(indent("fix:  ", rec.fix));
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
