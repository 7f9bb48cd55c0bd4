
import { bool } from "../args.ts";
import { withMemory, type CommandSpec } from "../command.ts";
import { printJson, println } from "../output.ts";

export const usage = `
Usage: memvoy reset SESSION [--all] [--json]

Clear the session's history.json, its archived messages and its vectors.
summary.json and .summary_cursor survive, so the rolling summary carries on;
--all deletes them too. Error memory is never touched.
`;

const spec: CommandSpec = { name: "reset", usage, flags: { all: { type: "boolean" } }, positionals: ["SESSION"], session: true };

export function run(argv: readonly string[]): Promise<number> {
  return withMemory(spec, argv, (api, p, [session]) => {
    const r = api.reset(session!, { all: bool(p, "all") });
    if (bool(p, "json")) printJson(r);
    else println(`reset ${session}: removed ${r.messagesRemoved} message(s)${bool(p, "all") ? (r.summaryRemoved ? " and the summary" : "") : "; the summary was kept"}`);
    return 0;
  });
}
