// memvoy reset SESSION [--all]: clear history + archive + vectors; the summary survives unless --all.
import { assertSessionId } from "../../shared/session-id.ts";
import { bool, expectPositionals, parseArgs } from "../args.ts";
import { openFromFlags, printUsage } from "../command.ts";
import { printJson, println } from "../output.ts";

export const usage = `
Usage: memvoy reset SESSION [--all] [--json]

Clear the session's history.json, its archived messages and its vectors.
summary.json and .summary_cursor survive, so the rolling summary carries on;
--all deletes them too. Error memory is never touched.
`;

export async function run(argv: readonly string[]): Promise<number> {
  const p = parseArgs(argv, { all: { type: "boolean" } }, "reset");
  if (bool(p, "help")) return printUsage(usage);
  const [session] = expectPositionals(p, "reset", ["SESSION"]);
  assertSessionId(session);
  const api = openFromFlags(p);
  try {
    const r = api.reset(session!, { all: bool(p, "all") });
    if (bool(p, "json")) printJson(r);
    else println(`reset ${session}: removed ${r.messagesRemoved} message(s)${bool(p, "all") ? (r.summaryRemoved ? " and the summary" : "") : "; the summary was kept"}`);
    return 0;
  } finally {
    api.close();
  }
}
