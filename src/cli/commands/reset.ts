// memvoy reset SESSION [--all]: clear history + archive + vectors; the summary survives unless --all.
import { existsSync } from "node:fs";
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
    const hadSummary = existsSync(api.paths.summary(session!));
    const r = api.reset(session!, { all: bool(p, "all") });
    await api.purgeDeleted();
    if (bool(p, "json")) printJson(r);
    else println(`reset ${session}: removed ${r.messagesRemoved} message(s)${resetSummaryNote(bool(p, "all"), r.summaryRemoved, hadSummary)}`);
    return 0;
  } finally {
    api.close();
  }
}

function resetSummaryNote(all: boolean, removed: boolean, had: boolean): string {
  if (all) return removed ? " and the summary" : "";
  return had ? "; the summary was kept" : "";
}
