// memvoy import SOURCE [PATH…] [--since TIME] [--dry-run] [--keep-secrets] [--watch] [--json]
import { existsSync, rmSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { constants as osConstants } from "node:os";
import type { ImportTarget } from "../../app/import-target.ts";
import { createOnWrite } from "../../app/create-on-write.ts";
import { holdsHome, openMemory } from "../../app/open-memory.ts";
import { openSharedHome, sharedArchiveUrl } from "../../app/shared/open-shared.ts";
import { homePaths, resolveHome } from "../../config/home.ts";
import { loadConfig } from "../../config/load.ts";
import { importJsonlFiles, importJsonlStream } from "../../import/import-jsonl.ts";
import { newReport, type SourceReport } from "../../import/import-report.ts";
import { importSource, type ImportOptions, type ImportProgress } from "../../import/run-import.ts";
import {
  defaultLocation,
  isSourceName,
  readsNoFile,
  sourceByName,
  SOURCE_NAMES,
} from "../../import/source-registry.ts";
import { CommandUsageError } from "../usage-errors.ts";
import { MAX_TIMER_MS, nowNs } from "../../shared/time.ts";
import { resolveFilter } from "../../shared/time-filter.ts";
import { makeTempFolder } from "../../shared/folder-made.ts";
import { writeOut } from "../../shared/stdout.ts";
import { bool, num, str, type Parsed } from "../args.ts";
import { openFromFlags, runCommand, type CommandSpec } from "../command.ts";
import { plural, printJson, println } from "../output.ts";
import { lineText } from "../../shared/terminal-text.ts";
import { meter, progressLine, redrawsInPlace } from "../progress.ts";

export const usage = `
Usage: memvoy import SOURCE [PATH...] [--since TIME] [--dry-run] [--keep-secrets] [--watch] [--json]

Bring in the conversations other tools keep on disk. Without PATH the source's default location is read.
Each source session becomes one memvoy session (<prefix>-<source id>) with its title, source and project.
Re-running adds nothing; only what is new since the last run is read.
A source with nothing at its default location is an error (exit 2), except with --watch.

Sources (default location; environment override):
  claude-code   ~/.claude/projects and ~/.config/claude/projects ($CLAUDE_CONFIG_DIR/projects): transcripts
                and sub-agent transcripts
  codex         ~/.codex/sessions and archived_sessions ($CODEX_HOME): rollouts, also .jsonl.zst and .json
  opencode      ~/.local/share/opencode/opencode.db ($XDG_DATA_HOME, $OPENCODE_DB; read-only) and legacy storage/
  gemini        ~/.gemini/tmp/*/chats ($GEMINI_CLI_HOME): JSONL chats ($set, $rewindTo) and legacy JSON;
                /chat save checkpoints (tmp/*/checkpoint-<tag>.json)
  aider         .aider.chat.history.md files given as PATH (no default location)
  chatgpt       an export zip, conversations.json or conversations-NNN.json given as PATH (no default)
  jsonl         memvoy's own export format (memvoy export) given as PATH, or - for stdin (also read
                when no PATH is given and stdin is not a terminal); never redacted
  auto          every source found at its default location

User and assistant text is imported with each record's own time; tool calls, tool results, thinking,
injected reminders and command wrappers are not. Secrets are redacted unless --keep-secrets.
A malformed line is skipped and reported as file:line; a file not in the format is reported and the
import goes on; the exit code is 1 when any file failed.

On a shared archive ([archive] url or MEMVOY_ARCHIVE_URL) the messages go into the archive, each session
under its lock: the archive decides what is new (ids, removed messages), so importing the same source
from several hosts adds each message once. This host's session files are rewritten from the archive;
the vectors are made by the shared drain (a daemon, or the next semantic search).

  --since TIME     only messages sent at or after TIME (RFC 3339, a local date or time, today, yesterday,
                   or a relative form: 30m, 12h, 3d, 2w, 1y)
  --dry-run        read and count, write nothing
  --keep-secrets   do not redact secrets from imported text
  --watch          import again every --interval seconds (default 60) until interrupted
  --interval N     seconds between passes with --watch
  --json           one JSON report (with --watch: one JSON line per pass)
`;

const SOURCES = [...SOURCE_NAMES, "jsonl", "auto"];
export const argumentChoices = SOURCES;

const spec: CommandSpec = {
  name: "import",
  usage,
  flags: {
    since: { type: "string" },
    "dry-run": { type: "boolean" },
    "keep-secrets": { type: "boolean" },
    watch: { type: "boolean" },
    interval: { type: "number" },
  },
  check: (p, args) => {
    const [source, ...paths] = args;
    const command = "import";
    if (source === undefined)
      throw new CommandUsageError({ problem: "missing-argument", command, argument: "SOURCE", choices: SOURCES });
    if (!isSourceName(source) && source !== "jsonl" && source !== "auto")
      throw new CommandUsageError({
        problem: "unknown-choice",
        command,
        what: "source",
        value: source,
        choices: SOURCES,
      });
    const stdin = source === "jsonl" && fromStdin(paths);
    if (stdin) {
      if (paths.length > 1)
        throw new CommandUsageError({
          problem: "takes-no-argument",
          command: "import jsonl",
          argument: "other PATH",
          why: "- reads stdin",
        });
      if (bool(p, "watch"))
        throw new CommandUsageError({
          problem: "flag-rule",
          command: "import jsonl",
          flag: "--watch",
          rule: "used with files, not - (stdin)",
        });
    } else if ((source === "jsonl" || source === "aider" || source === "chatgpt") && paths.length === 0) {
      const why = "it has no default location";
      throw new CommandUsageError({ problem: "needs-path", command: `import ${source}`, argument: "PATH", why });
    }
    // A named source with nothing at its default location: said, rather than a report of 0 files. --watch waits for it.
    const where = isSourceName(source) && paths.length === 0 ? defaultLocation(source, process.env) : undefined;
    if (where && !bool(p, "watch") && !where.paths.some((w) => existsSync(w)))
      throw new CommandUsageError({ problem: "source-not-found", command: `import ${source}`, ...where });
    if (source === "auto" && paths.length > 0)
      throw new CommandUsageError({
        problem: "takes-no-argument",
        command: "import auto",
        argument: "PATH",
        why: "it reads every source's default location",
      });
    for (const path of stdin ? [] : paths) {
      if (!existsSync(path)) throw new CommandUsageError({ problem: "no-such-path", command, path });
      // An export is one file; the other sources read folders.
      const st = statSync(path);
      if (source === "jsonl" && st.isDirectory())
        throw new CommandUsageError({ problem: "path-is-folder", command: "import jsonl", flag: "PATH", path });
      // Only an export is read as a stream; the other sources read files again at an offset, or as databases and zips.
      if (source !== "jsonl" && !st.isFile() && !st.isDirectory())
        throw new CommandUsageError({ problem: "path-is-stream", command: `import ${source}`, path });
      // A pipe is read once: a later pass would wait for a writer that never comes.
      if (source === "jsonl" && !st.isFile() && bool(p, "watch"))
        throw new CommandUsageError({
          problem: "flag-rule",
          command: "import jsonl",
          flag: "--watch",
          rule: "used with files, not a pipe or device",
        });
    }
    // A pass at an interval is what --watch makes: alone, --interval would run once and say nothing of it.
    if (num(p, "interval") !== undefined && !bool(p, "watch"))
      throw new CommandUsageError({
        problem: "flags-need",
        command: `import ${source}`,
        flags: ["--interval"],
        needs: "--watch",
      });
    if ((num(p, "interval") ?? 60) < 1)
      throw new CommandUsageError({ problem: "flag-rule", command, flag: "--interval", rule: "at least 1 second" });
    sinceFlag(str(p, "since"));
  },
};

/** Run `body` with the import's home, and close it after whatever happens. */
async function closing<T extends ImportTarget & { close(): void }>(
  api: T,
  body: (api: T) => Promise<number>,
): Promise<number> {
  try {
    return await body(api);
  } finally {
    api.close();
  }
}

/** The import finds no file to read, so it writes nothing (--watch waits for files to come). */
function findsNothing(p: Parsed, [source, ...paths]: string[]): boolean {
  return !bool(p, "watch") && readsNoFile(source!, paths, process.env);
}

/** `import jsonl -`, or `import jsonl` with no PATH and stdin not a terminal: the export is read from stdin. */
function fromStdin(paths: readonly string[]): boolean {
  return paths.includes("-") || (paths.length === 0 && !process.stdin.isTTY);
}

/** --since read as search, history and export read it. */
function sinceFlag(text: string | undefined): bigint | undefined {
  return text === undefined ? undefined : resolveFilter({ since: text }, nowNs()).since;
}

export async function run(argv: readonly string[]): Promise<number> {
  let scratch: string | undefined;
  // A dry run into a home that does not exist yet leaves it so: it is counted against an empty scratch home.
  const open = (p: Parsed, args: string[]) => {
    const paths = homePaths(resolveHome(str(p, "home")));
    // An import that finds no file to read writes nothing: a home that does not exist is read as an empty one.
    if (!holdsHome(paths) && findsNothing(p, args)) return openFromFlags(p, "import", undefined, false, true);
    // Nor does one whose files hold nothing to store (an empty file, another tool's): the home is made at the first write.
    if (!holdsHome(paths) && !bool(p, "dry-run"))
      return createOnWrite(openFromFlags(p, "import", undefined, false, true), () => openFromFlags(p, "import"));
    if (!bool(p, "dry-run") || existsSync(paths.db)) return openFromFlags(p, "import");
    scratch = makeTempFolder("memvoy-dry-run-");
    return openMemory({ home: scratch, drain: "off", config: loadConfig(paths.config), command: "import" });
  };
  try {
    return await runCommand(spec, argv, async (p, args) => {
      // On a shared archive the import writes there (a dry run counts against it); else into the home.
      if (sharedArchiveUrl({ home: str(p, "home") }) === undefined)
        return closing(open(p, args), (api) => importCommand(api, p, args));
      // Nor is a home created there (it would hold only caches) but by the first message stored.
      const readOnly = !holdsHome(homePaths(resolveHome(str(p, "home"))));
      const api = await openSharedHome({ home: str(p, "home"), connections: 1, readOnly });
      try {
        return await importCommand(api, p, args);
      } finally {
        await api.close();
      }
    });
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

async function importCommand(api: ImportTarget, p: Parsed, [source, ...paths]: string[]): Promise<number> {
  const json = bool(p, "json");
  const stdin = source === "jsonl" && fromStdin(paths);
  const opts: ImportOptions = {
    paths: stdin ? [] : paths.map((x) => resolve(x)),
    since: sinceFlag(str(p, "since")),
    dryRun: bool(p, "dry-run"),
    keepSecrets: bool(p, "keep-secrets"),
  };
  if (!bool(p, "watch")) {
    const stop = stopOnSignal();
    let reports: SourceReport[];
    try {
      reports = stdin
        ? [await importJsonlStream(api, Bun.stdin.stream(), { ...opts, signal: stop.signal })]
        : await pass(api, source!, { ...opts, signal: stop.signal }, json);
    } catch (err) {
      if (!stop.signal.aborted) throw err;
      return stoppedBy(stop.by!);
    } finally {
      stop.off();
    }
    endIfUnwritable(api);
    if (json) printJson({ sources: reports });
    else for (const r of reports) printReport(r);
    return reports.some((r) => r.failed.length > 0) ? 1 : 0;
  }
  return watch(api, source!, opts, json, (num(p, "interval") ?? 60) * 1000);
}

/**
 * Ctrl-C, SIGTERM or SIGHUP during an import: the first stops it after the write under way (killed mid-write, it
 * left a temp file of the session's text for the next writer to clear); a second ends it at once.
 */
function stopOnSignal() {
  const abort = new AbortController();
  const stop = { signal: abort.signal, by: undefined as NodeJS.Signals | undefined, off: () => {} };
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stop.by) process.exit(128 + (osConstants.signals[signal] ?? 0));
    stop.by = signal;
    abort.abort(new Error(`stopped by ${signal}`));
  };
  for (const signal of signals) process.on(signal, onSignal);
  stop.off = () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
  return stop;
}

/** Say that a signal stopped the import after the write under way; its exit code (128 + the signal number). */
function stoppedBy(signal: NodeJS.Signals): number {
  process.stderr.write(
    `memvoy: import stopped by ${signal} after the write under way: what it stored stays, and running it again adds the rest\n`,
  );
  return 128 + (osConstants.signals[signal] ?? 0);
}

/**
 * --watch: a pass every interval until SIGINT, SIGTERM or SIGHUP; with --json one line per pass. A signal between
 * passes ends it (exit 0); one during a pass stops that pass after the write under way, as it stops a single import.
 */
async function watch(
  api: ImportTarget,
  source: string,
  opts: ImportOptions,
  json: boolean,
  intervalMs: number,
): Promise<number> {
  const stop = stopOnSignal();
  const wake = Promise.withResolvers<void>();
  stop.signal.addEventListener("abort", () => wake.resolve());
  try {
    while (!stop.signal.aborted) {
      // A home deleted or replaced meanwhile ends the watch in one line, rather than a failed file every pass.
      api.checkInPlace?.();
      let reports: Report[];
      try {
        reports = await pass(api, source, { ...opts, signal: stop.signal }, json);
      } catch (err) {
        if (!stop.signal.aborted) throw err;
        return stoppedBy(stop.by!);
      }
      endIfUnwritable(api);
      if (json) writeOut(`${JSON.stringify({ at: new Date().toISOString(), sources: reports })}\n`);
      else
        for (const r of reports)
          if (r.messages.added > 0 || r.failed.length > 0 || r.messages.removed > 0 || r.messages.extended > 0)
            printReport(r);
      for (let left = intervalMs; left > 0 && !stop.signal.aborted; left -= MAX_TIMER_MS) await nap(left, wake.promise);
    }
    return 0;
  } finally {
    stop.off();
  }
}

/** A home that could not be created at the first write ends the import in its one line (exit 2), not a failure a file. */
function endIfUnwritable(api: ImportTarget): void {
  const err = api.cannotWrite?.();
  if (err !== undefined) throw err;
}

/**
 * Wait `ms` (at most MAX_TIMER_MS), or until `wake` resolves; the timer is cleared either way, so that a stop
 * exits at once rather than when the interval would have ended.
 */
async function nap(ms: number, wake: Promise<void>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const slept = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.min(ms, MAX_TIMER_MS));
  });
  try {
    await Promise.race([slept, wake]);
  } finally {
    clearTimeout(timer);
  }
}

type Report = SourceReport;

async function pass(api: ImportTarget, source: string, opts: ImportOptions, json: boolean): Promise<Report[]> {
  const bar = !json && redrawsInPlace(process.stderr) ? progressLine(process.stderr) : undefined;
  // The index build at the end of a large pass is a new phase: shown at once, whatever the redraw interval.
  let indexing = false;
  const o: ImportOptions = {
    ...opts,
    onProgress: bar
      ? (e) => {
          const phase = e.indexing !== undefined;
          bar.update(progressLabel(e), e.messages, phase !== indexing);
          indexing = phase;
        }
      : undefined,
  };
  try {
    if (source === "jsonl") return [await importJsonlFiles(api, opts.paths ?? [], o)];
    if (source !== "auto") return [await importSource(api, sourceByName(api, source as never), o)];
    const out: Report[] = [];
    for (const name of SOURCE_NAMES) {
      const src = sourceByName(api, name);
      const where = src.defaultPaths(process.env);
      if (where === undefined) {
        out.push({
          ...emptyReport(name, o),
          note: "skipped: no default location (give PATH: memvoy import " + name + " PATH)",
        });
        continue;
      }
      if (!where.some((w) => existsSync(w))) {
        out.push({ ...emptyReport(name, o), paths: where, note: "not found" });
        continue;
      }
      out.push({ ...(await importSource(api, src, o)), note: "found" });
    }
    return out;
  } finally {
    bar?.done();
  }
}

/**
 * `claude-code [#####.....] 12/40 files, 3100 messages` (while a file is read: `0/1 files, read 412.0 of 1024.0 MiB,
 * 0 messages`), then the build: `... indexing text for substring search [##...] 10%`. */
function progressLabel(e: ImportProgress): string {
  if (!e.indexing) {
    const reading = e.fileBytes ? `, read ${mib(e.fileBytes.done)} of ${mib(e.fileBytes.total)} MiB` : "";
    return `${e.source} ${meter(e.filesDone + (e.fileShare ?? 0), e.files)} ${e.filesDone}/${e.files} files${reading}, ${e.messages} messages`;
  }
  const { done, total } = e.indexing;
  return `${e.source} indexing text for substring search ${meter(done, total)} ${percent(done, total)}, ${e.messages} messages`;
}

/** Bytes as MiB with one decimal. */
const mib = (bytes: number) => (bytes / (1024 * 1024)).toFixed(1);

const percent = (done: number, total: number) =>
  `${total > 0 ? Math.floor((100 * Math.min(done, total)) / total) : 100}%`;

function emptyReport(source: string, o: ImportOptions): Report {
  return newReport(source, [], o.dryRun === true);
}

/** The report as text: file names (a source's, which anyone may have named) reach the terminal through lineText. */
function printReport(r: Report): void {
  if (r.note && r.note !== "found") {
    println(lineText(`${r.source}: ${r.note}${r.paths.length > 0 ? ` (${r.paths.join(", ")})` : ""}`));
    return;
  }
  const verb = r.dryRun ? "would add" : "added";
  const parts = [
    `${plural(r.files.found, "file")} (${r.files.unchanged} unchanged${r.files.failed > 0 ? `, ${r.files.failed} failed` : ""})`,
    plural(r.sessions, "session"),
    `${verb} ${plural(r.messages.added, "message")}${r.messages.existing > 0 ? ` (${r.messages.existing} already present)` : ""}`,
  ];
  if (r.messages.extended > 0)
    parts.push(
      `${r.dryRun ? "would extend" : "extended"} ${plural(r.messages.extended, "streamed reply", "streamed replies")}`,
    );
  if (r.messages.removed > 0)
    parts.push(
      `${r.dryRun ? "would remove" : "removed"} ${plural(r.messages.removed, "message")} gone from the source`,
    );
  if (r.notRemoved > 0) parts.push(`${plural(r.notRemoved, "message")} gone from the source left in place`);
  if (r.messages.tombstoned > 0) parts.push(`${plural(r.messages.tombstoned, "removed message")} kept out`);
  if (r.redacted > 0) parts.push(`secrets redacted in ${plural(r.redacted, "message")}`);
  if (r.skippedCount > 0) parts.push(`${plural(r.skippedCount, "record")} skipped`);
  println(`${r.source}: ${parts.join(", ")}`);
  for (const s of r.skipped.slice(0, 20))
    process.stderr.write(
      `  ${lineText(`skipped ${s.file}${s.line !== undefined ? `:${s.line}` : ""}: ${s.reason}`)}\n`,
    );
  if (r.skippedCount > 20) process.stderr.write(`  ... and ${r.skippedCount - 20} more skipped (see --json)\n`);
  for (const f of r.failed)
    process.stderr.write(
      `  ${lineText(`failed ${f.reason.startsWith(f.file) ? f.reason : `${f.file}: ${f.reason}`}`)}\n`,
    );
}
