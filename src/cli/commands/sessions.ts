// memvoy sessions: id, message count, last activity, summary present.
import { nsToLocalSeconds } from "../../shared/time.ts";
import { sessionJson, sortSessions } from "../../app/api/json-shapes.ts";
import { invocation, quoteArg } from "../../app/invocation.ts";
import { bool, str } from "../args.ts";
import { withMemory, type CommandSpec } from "../command.ts";
import { bold, dim, printJson, println } from "../output.ts";
import { CommandUsageError } from "../usage-errors.ts";

export const usage = `
Usage: memvoy sessions [--sort recent|name] [--json]

List sessions: id, number of messages, last activity and whether a summary exists.
`;

const spec: CommandSpec = {
  name: "sessions",
  usage,
  flags: { sort: { type: "string" } },
  positionals: [],
  check: (p) => {
    if (!["recent", "name"].includes(str(p, "sort") ?? "recent")) throw new CommandUsageError({ problem: "flag-rule", command: "sessions", flag: "--sort", rule: "recent or name" });
  },
};

export function run(argv: readonly string[]): Promise<number> {
  return withMemory(spec, argv, (api, p) => {
    const sort = str(p, "sort") ?? "recent";
    const list = api.sessions();
    sortSessions(list, sort as "recent" | "name");
    if (bool(p, "json")) {
      printJson(list.map(sessionJson));
      return 0;
    }
    if (list.length === 0) {
      println(`no sessions in ${api.home} yet: add one with  ${invocation()} --home ${quoteArg(api.home)} add demo --role user --content "hello"`);
      return 0;
    }
    const w = Math.max(7, ...list.map((s) => s.id.length));
    println(bold(`${"SESSION".padEnd(w)}  ${"MESSAGES".padStart(8)}  LAST ACTIVITY        SUMMARY`));
    for (const s of list) {
      const when = s.lastActivity ? nsToLocalSeconds(s.lastActivity) : dim("-".padEnd(19));
      println(`${s.id.padEnd(w)}  ${String(s.messages).padStart(8)}  ${when}  ${s.hasSummary ? "yes" : dim("no")}`);
    }
    return 0;
  });
}
