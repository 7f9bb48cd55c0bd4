// memvoy export [SESSION…|--all] [--since TIME] [--until TIME] [--format jsonl|md] [--output FILE]
import { existsSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { ExportSession } from "../../app/import-api.ts";
import { openAtomicStream } from "../../shared/atomic-stream.ts";
import { CommandUsageError } from "../usage-errors.ts";
import { nowNs } from "../../shared/time.ts";
import { resolveFilter } from "../../shared/time-filter.ts";
import { bool, str, type Parsed } from "../args.ts";
import { withAnyHome, type CommandSpec } from "../command.ts";
import { plural, printJson } from "../output.ts";
import { streamOut } from "../../shared/stdout.ts";
import { sessionMarkdown } from "../export-markdown.ts";
import { untilde } from "../../shared/user-home.ts";

export const usage = `
Usage: memvoy export SESSION... | --all [--since TIME] [--until TIME] [--format jsonl|md] [--output FILE]

Write sessions in memvoy's export format (JSONL, one object a line: for each session, sorted by id, a
{"type":"session",...} line then its messages {"type":"message","id","session","role","content","sendAt"})
or as Markdown for people. \`memvoy import jsonl FILE\` reads the JSONL back exactly: export, import into
an empty home, export again gives the same bytes. Summaries and error memory are not included.
On a shared archive ([archive] url) the sessions are read from the archive: every host's messages.

  --all            every session (else the sessions named)
  --since TIME     only messages sent at or after TIME
  --until TIME     only messages sent up to the end of TIME (09:30:15: that second; 09:30: that
                   minute; a date alone: that day)
                   TIME as for search and history: RFC 3339 (2026-05-01T09:30:00Z), a local date or
                   time ("2026-05-01", "2026-05-01 09:30"), today, yesterday, or a relative form
                   counted back from now: 30m, 12h, 3d, 2w, 1y
  --format F       jsonl (default) or md
  --output FILE    write FILE (0600, atomically: it appears whole or not at all) instead of stdout (- is stdout);
                   a FIFO, a device or /dev/stdout is written as the export comes, a link's file is replaced
  --json           with --output: print {"output", "sessions", "messages"}; on stdout the stream is the output
`;

/** --since and --until read as search and history read them: since inclusive, until exclusive. */
function timeBounds(p: Parsed): { since?: bigint; until?: bigint } {
  const f = resolveFilter({ since: str(p, "since"), until: str(p, "until") }, nowNs());
  return { since: f.since, until: f.until };
}

/** --output as given, a leading ~ read as the user's home (the shell leaves --output=~/x as it is). */
function outputPath(p: Parsed): string | undefined {
  const output = str(p, "output");
  return output === undefined ? undefined : untilde(output);
}

const spec: CommandSpec = {
  name: "export",
  usage,
  createsNoHome: true,
  flags: {
    all: { type: "boolean" },
    since: { type: "string" },
    until: { type: "string" },
    format: { type: "string" },
    output: { type: "string", short: "o" },
  },
  session: true,
  check: (p, args) => {
    const all = bool(p, "all");
    if (all === args.length > 0)
      throw new CommandUsageError({
        problem: "either-or",
        command: "export",
        one: "SESSION names",
        other: "--all",
        given: all ? "both" : "neither",
      });
    const format = str(p, "format") ?? "jsonl";
    if (format !== "jsonl" && format !== "md")
      throw new CommandUsageError({
        problem: "flag-choice",
        command: "export",
        flag: "--format",
        choices: ["jsonl", "md"],
        got: format,
      });
    timeBounds(p);
    const output = outputPath(p);
    if (output === undefined || output === "-") return;
    if (output === "")
      throw new CommandUsageError({ problem: "flag-needs-value", command: "export", flag: "--output" });
    if (!existsSync(dirname(resolve(output))))
      throw new CommandUsageError({
        problem: "no-such-path",
        command: "export",
        flag: "--output",
        path: dirname(resolve(output)),
      });
    if (existsSync(output) && statSync(output).isDirectory())
      throw new CommandUsageError({ problem: "path-is-folder", command: "export", flag: "--output", path: output });
  },
};

export function run(argv: readonly string[]): Promise<number> {
  return withAnyHome(spec, argv, async (api, p, args) => {
    const all = bool(p, "all");
    const list = api.imports.exportSessions({
      sessions: all ? undefined : args,
      ...timeBounds(p),
    });
    const render =
      str(p, "format") === "md" ? sessionMarkdown : (s: ExportSession) => `${api.imports.exportLines(s).join("\n")}\n`;
    const output = outputPath(p);
    if (output === undefined || output === "-") {
      // On stdout (also `--output -`, as `import jsonl -` reads stdin) the stream is the output (the one exception
      // to "--json prints one document").
      await streamOut(list, render);
      return 0;
    }
    let sessions = 0;
    let messages = 0;
    const out = openAtomicStream(output);
    // A stop (Ctrl-C, SIGTERM) takes the temp file along: it holds the messages so far, hidden beside the output.
    const onInt = () => stopped(130);
    const onTerm = () => stopped(143);
    const stopped = (code: number) => {
      out.discard();
      process.exit(code);
    };
    process.on("SIGINT", onInt);
    process.on("SIGTERM", onTerm);
    try {
      for await (const s of list) {
        out.write(render(s));
        if (!s.continues) sessions++;
        messages += s.messages.length;
        await new Promise((resolve) => setImmediate(resolve)); // a signal is handled between pages
      }
      out.commit();
    } catch (err) {
      out.discard();
      throw err;
    } finally {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
    }
    if (bool(p, "json")) printJson({ output, format: str(p, "format") ?? "jsonl", sessions, messages });
    else process.stderr.write(`exported ${plural(sessions, "session")}, ${plural(messages, "message")} to ${output}\n`);
    return 0;
  });
}
