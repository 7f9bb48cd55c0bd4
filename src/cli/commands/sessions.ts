// memvoy sessions: id, message count, last activity, summary present.
import { nsToLocalSeconds } from "../../shared/time.ts";
import { sessionJson, sortSessions } from "../../app/api/json-shapes.ts";
import { bool, expectPositionals, parseArgs, str } from "../args.ts";
import { openFromFlags, printUsage } from "../command.ts";
import { bold, dim, printJson, println } from "../output.ts";
import { UsageError } from "../../shared/errors.ts";

export const usage = `
Usage: memvoy sessions [--sort recent|name] [--json]

List sessions: id, number of messages, last activity and whether a summary exists.
`;

export async function run(argv: readonly string[]): Promise<number> {
  const p = parseArgs(argv, { sort: { type: "string" } }, "sessions");
  if (bool(p, "help")) return printUsage(usage);
  expectPositionals(p, "sessions", []);
  const sort = str(p, "sort") ?? "recent";
  if (sort !== "recent" && sort !== "name") throw new UsageError(`sessions: --sort must be recent or name`);
  const api = openFromFlags(p);
  try {
    const list = api.sessions();
    sortSessions(list, sort);
    if (bool(p, "json")) {
      printJson(list.map(sessionJson));
      return 0;
    }
    if (list.length === 0) {
      println(`no sessions in ${api.home} yet: add one with  memvoy add demo --role user --content "hello"`);
      return 0;
    }
    const w = Math.max(7, ...list.map((s) => s.id.length));
    println(bold(`${"SESSION".padEnd(w)}  ${"MESSAGES".padStart(8)}  LAST ACTIVITY        SUMMARY`));
    for (const s of list) {
      const when = s.lastActivity ? nsToLocalSeconds(s.lastActivity) : dim("-".padEnd(19));
      println(`${s.id.padEnd(w)}  ${String(s.messages).padStart(8)}  ${when}  ${s.hasSummary ? "yes" : dim("no")}`);
    }
    return 0;
  } finally {
    api.close();
  }
}
