import { bool, str } from "../args.ts";
import { withAnyHome, sessionSpec } from "../command.ts";
import { bold, dim, printJson, println } from "../output.ts";
import { terminalText } from "../../shared/terminal-text.ts";
import { stdinText, stripOneNewline } from "../stdin-text.ts";

export const usage = `
Usage: memvoy context SESSION [--input TEXT | --input -] [--json]

The messages to send to the model for the next turn, in order: the last
limits.max_history_messages messages in full, the turn context holding the
Prior summary block (when a summary exists), then the input. Also the system
prompt's Prior Conversation Context section. A session that does not exist yet is
not an error (an agent's first turn): the window is empty, and the JSON says
"newSession": true. A summary.json that cannot be read is left out, and the
JSON says why ("summaryProblem").

  --input TEXT   the user's next input, placed last; "-" reads it from stdin (for text
                 longer than a command line takes, about 128 KiB on Linux; one trailing
                 newline dropped, as add does)
  --json         the messages and the system prompt section as one JSON document
`;

const spec = sessionSpec("context", usage, { input: { type: "string" } }, { createsNoHome: true });

export function run(argv: readonly string[]): Promise<number> {
  return withAnyHome(spec, argv, async (api, p, [session]) => {
    const given = str(p, "input");
    const ctx = await api.context(session!, given === "-" ? stripOneNewline(await stdinText("context")) : given);
    if (bool(p, "json")) {
      printJson(ctx);
      return 0;
    }
    if (ctx.newSession) println(dim(`── new session ${session}: no messages yet (it starts with the first add) ──`));
    if (ctx.summaryProblem)
      println(
        dim(
          `── summary left out: summary.json cannot be read (${ctx.summaryProblem}); the next summary run rebuilds it ──`,
        ),
      );
    if (ctx.system)
      println(dim("── system prompt section ──") + "\n" + terminalText(ctx.system) + "\n" + dim("── messages ──"));
    for (const m of ctx.messages)
      println(`${bold(`[${m.role}]`)}${m.sendAt ? dim(` ${m.sendAt}`) : ""}\n${terminalText(m.content)}\n`);
    return 0;
  });
}
