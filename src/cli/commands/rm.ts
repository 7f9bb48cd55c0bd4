// memvoy rm SESSION: remove the session entirely (folder, archive rows, vectors, summary).
import { assertSessionId } from "../../shared/session-id.ts";
import { bool, expectPositionals, parseArgs } from "../args.ts";
import { openFromFlags, printUsage } from "../command.ts";
import { printJson, println } from "../output.ts";

export const usage = `
Usage: memvoy rm SESSION [--json]

Remove everything of the session: its folder (history.json, summary.json, cursor),
its archived messages and its vectors. Error memory is never touched.
`;

export async function run(argv: readonly string[]): Promise<number> {
  const p = parseArgs(argv, {}, "rm");
  if (bool(p, "help")) return printUsage(usage);
  const [session] = expectPositionals(p, "rm", ["SESSION"]);
  assertSessionId(session);
  const api = openFromFlags(p);
  try {
    const r = api.remove(session!);
    await api.purgeDeleted();
    if (bool(p, "json")) printJson(r);
    else println(`removed ${session} (${r.messagesRemoved} message(s))`);
    return 0;
  } finally {
    api.close();
  }
}
