// memvoy reset SESSION [--all]: clear history + archive + vectors; the summary survives unless --all.
import { bool } from "../args.ts";
import { withAnyHome, sessionSpec } from "../command.ts";
import { printJson, println } from "../output.ts";
import { keptCopiesNote, purgeAfterRemoval, SHARED_DELETION_HELP } from "../deletion-notes.ts";

export const usage = `
Usage: memvoy reset SESSION [--all] [--json]

Clear the session's history.json, its archived messages and its vectors.
summary.json and .summary_cursor survive, so the rolling summary carries on;
--all deletes them too. Error memory is never touched.

${SHARED_DELETION_HELP}`;

const spec = sessionSpec("reset", usage, { all: { type: "boolean" } }, { createsNoHome: true });

export function run(argv: readonly string[]): Promise<number> {
  return withAnyHome(spec, argv, async (api, p, [session]) => {
    const hadSummary = await api.hasSummary(session!);
    const r = await api.reset(session!, { all: bool(p, "all") });
    keptCopiesNote(r);
    if (bool(p, "json")) printJson(r);
    else
      println(
        `reset ${session}: removed ${r.messagesRemoved} message(s)${resetSummaryNote(bool(p, "all"), r.summaryRemoved, hadSummary)}`,
      );
    return (await purgeAfterRemoval(api)) ? 0 : 1;
  });
}

function resetSummaryNote(all: boolean, removed: boolean, had: boolean): string {
  if (all) return removed ? " and the summary" : "";
  return had ? "; the summary was kept" : "";
}
