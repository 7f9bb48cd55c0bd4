// memvoy rm SESSION: remove the session entirely (folder, archive rows, vectors, summary).
import { keptCopiesNote, purgeAfterRemoval, SHARED_DELETION_HELP } from "../deletion-notes.ts";
import { bool } from "../args.ts";
import { withAnyHome, type CommandSpec } from "../command.ts";
import { printJson, println } from "../output.ts";

export const usage = `
Usage: memvoy rm SESSION [--json]

Remove everything of the session: its folder (history.json, summary.json, cursor),
its archived messages and its vectors. Error memory is never touched.

${SHARED_DELETION_HELP}`;

const spec: CommandSpec = { name: "rm", usage, positionals: ["SESSION"], session: true, createsNoHome: true };

export function run(argv: readonly string[]): Promise<number> {
  return withAnyHome(spec, argv, async (api, p, [session]) => {
    const r = await api.remove(session!);
    keptCopiesNote(r);
    if (bool(p, "json")) printJson(r);
    else println(`removed ${session} (${r.messagesRemoved} message(s))`);
    return (await purgeAfterRemoval(api)) ? 0 : 1;
  });
}
