// memvoy rm-message ID [--drop-summary]: remove one message everywhere (a secret pasted by mistake).
import { bool } from "../args.ts";
import { withAnyHome, type CommandSpec } from "../command.ts";
import { printJson, println } from "../output.ts";
import { keptCopiesNote, purgeAfterRemoval, SHARED_DELETION_HELP } from "../deletion-notes.ts";

export const usage = `
Usage: memvoy rm-message ID [--drop-summary] [--json]

Remove one message (its id is in history --json, search --json and add's output) from
history.json, the archive, the full-text index and the vectors, in one step, with the
same crash safety as add. Its id is remembered (as a hash) so a re-import cannot bring
it back. When it returns, no copy of the text is left in the home's files, except:

  - the rolling summary (summary.json) if it had already covered the message: the
    command says so; --drop-summary removes the summary and its cursor too (the next
    summarize rebuilds it from the messages that remain);
  - error memory, which is never touched.

${SHARED_DELETION_HELP}
  --drop-summary  remove summary.json and .summary_cursor as well
  --json          print {"id", "session", "wasRecent", "summarized", "summaryRemoved"} (and
                  "keptCopiesRemoved" when copies doctor --repair kept were removed too)
`;

const spec: CommandSpec = {
  name: "rm-message",
  usage,
  flags: { "drop-summary": { type: "boolean" } },
  positionals: ["ID"],
  createsNoHome: true,
};

export function run(argv: readonly string[]): Promise<number> {
  return withAnyHome(spec, argv, async (api, p, [id]) => {
    const r = await api.rmMessage(id!, { dropSummary: bool(p, "drop-summary"), purge: false });
    keptCopiesNote(r);
    if (bool(p, "json")) printJson(r);
    else {
      let note = "";
      if (r.summaryRemoved) note = "; the summary was removed too";
      else if (r.summarized)
        note =
          "; it was already summarized: summary.json may still mention it (rm-message --drop-summary removes the summary)";
      println(`removed message ${r.id} from ${r.session}${note}`);
    }
    return (await purgeAfterRemoval(api)) ? 0 : 1;
  });
}
