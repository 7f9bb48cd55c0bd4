// memvoy sessions: id, message count, last activity, summary present.
import { resolve } from "node:path";
import { lineText } from "../../shared/terminal-text.ts";
import { untilde } from "../../shared/user-home.ts";
import { nsToLocalSeconds } from "../../shared/time.ts";
import { sessionJson, sortSessions } from "../../app/api/json-shapes.ts";
import { invocation, quoteArg } from "../../app/invocation.ts";
import { bool, str } from "../args.ts";
import { withAnyHome, type CommandSpec } from "../command.ts";
import { bold, dim, printJson, println } from "../output.ts";
import { CommandUsageError } from "../usage-errors.ts";

export const usage = `
Usage: memvoy sessions [--sort recent|name] [--source NAME] [--project DIR] [--json]

List sessions: id, number of messages, last activity and whether a summary exists; for imported
sessions also the source and the title.

  --sort S         recent (default: the most recently active first) or name
  --source NAME    only sessions imported from NAME (claude-code, codex, opencode, gemini, aider, chatgpt,
                   jsonl; any case); when none match, the sources this home holds are named
  --project DIR    only sessions whose project (cwd or repository) is DIR or lies under it; a relative
                   DIR (., ../shop) is read from the current folder
`;

const spec: CommandSpec = {
  name: "sessions",
  usage,
  createsNoHome: true,
  flags: { sort: { type: "string" }, source: { type: "string" }, project: { type: "string" } },
  positionals: [],
  check: (p) => {
    if (!["recent", "name"].includes(str(p, "sort") ?? "recent"))
      throw new CommandUsageError({
        problem: "flag-rule",
        command: "sessions",
        flag: "--sort",
        rule: "recent or name",
      });
  },
};

export function run(argv: readonly string[]): Promise<number> {
  return withAnyHome(spec, argv, async (api, p) => {
    const sort = str(p, "sort") ?? "recent";
    const source = str(p, "source");
    const typed = str(p, "project");
    const given = typed === undefined ? undefined : untilde(typed);
    // As typed, and as a folder from here (., ../shop, a path with .. in it): projects are absolute folders,
    // or another tool's own name for one (a hash), matched as typed.
    const projects = given === undefined ? undefined : [...new Set([given.replace(/\/+$/, ""), resolve(given)])];
    const under = (dir: string, project: string) => dir === project || dir.startsWith(`${project}/`);
    const all = await api.sessions();
    // Sources are matched whatever their case: Claude-Code finds claude-code.
    const wanted = source?.toLowerCase();
    const list = all.filter(
      (s) =>
        (wanted === undefined || s.source?.toLowerCase() === wanted) &&
        (projects === undefined || (s.project !== undefined && projects.some((project) => under(s.project!, project)))),
    );
    sortSessions(list, sort as "recent" | "name");
    if (bool(p, "json")) {
      printJson(list.map(sessionJson));
      return 0;
    }
    if (list.length === 0 && (source !== undefined || projects !== undefined)) {
      println(`no sessions match${source !== undefined ? sourcesNote(all) : ""}`);
      return 0;
    }
    if (list.length === 0) {
      println(
        `no sessions in ${api.home} yet: add one with  ${invocation()} --home ${quoteArg(api.home)} add demo --role user --content "hello"`,
      );
      return 0;
    }
    const w = Math.max(7, ...list.map((s) => s.id.length));
    const imported = list.some((s) => s.source !== undefined);
    const extra = imported ? `  ${"SOURCE".padEnd(11)}  TITLE` : "";
    println(bold(`${"SESSION".padEnd(w)}  ${"MESSAGES".padStart(8)}  LAST ACTIVITY        SUMMARY${extra}`));
    for (const s of list) {
      const when = s.lastActivity ? nsToLocalSeconds(s.lastActivity) : dim("-".padEnd(19));
      const more = imported ? `  ${oneLine(s.source ?? "-").padEnd(11)}  ${oneLine(s.title ?? "")}` : "";
      println(
        `${s.id.padEnd(w)}  ${String(s.messages).padStart(8)}  ${when}  ${(s.hasSummary ? "yes" : dim("no")).padEnd(s.hasSummary ? 7 : 7 + dim("").length)}${more}`.trimEnd(),
      );
    }
    return 0;
  });
}

/** What --source could have named: the sources of this home's sessions, or that none was imported. */
function sourcesNote(all: readonly { source?: string }[]): string {
  const names = [...new Set(all.flatMap((s) => (s.source === undefined ? [] : [oneLine(s.source)])))].sort();
  return names.length === 0 ? " (no session here was imported)" : ` (sources here: ${names.join(", ")})`;
}

/** A title or a source on one table line: escape sequences and control characters out, long ones cut. */
function oneLine(text: string, max = 60): string {
  const t = lineText(text).replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}
