// memvoy history SESSION [--all] [--last N] [--since T] [--until T] [--role R] [--sender N]: the window, or every message.
import { bool, num } from "../args.ts";
import { CommandUsageError } from "../usage-errors.ts";
import { withAnyHome, sessionSpec } from "../command.ts";
import { FILTER_FLAGS, FILTER_USAGE, filterOptions } from "../filter-flags.ts";
import { dim, messageHeader, messageJson, printJson, println } from "../output.ts";
import { terminalText } from "../../shared/terminal-text.ts";

export const usage = `
Usage: memvoy history SESSION [--all | --last N] [--since TIME] [--until TIME]
                      [--role user|assistant] [--sender NAME] [--json]

Show the session's context window (the last limits.max_history_messages messages),
or with --all every message ever written, oldest first, with a marker where the
archive ends and history.json begins. With a filter every message ever written is
read and those that pass are shown (with --last N, the newest N of them).

  --all         every message ever written
  --last N      the last N messages instead of the configured window (archived ones too
                when history.json holds fewer)
${FILTER_USAGE}
`;

const spec = sessionSpec(
  "history",
  usage,
  { all: { type: "boolean" }, last: { type: "number" }, ...FILTER_FLAGS },
  {
    check: (p) => {
      if (bool(p, "all") && num(p, "last") !== undefined)
        throw new CommandUsageError({
          problem: "either-or",
          command: "history",
          one: "--all",
          other: "--last N",
          given: "both",
        });
    },
  },
);

export function run(argv: readonly string[]): Promise<number> {
  return withAnyHome(spec, argv, async (api, p, [session]) => {
    const last = num(p, "last");
    const list = await api.history(session!, {
      all: bool(p, "all"),
      ...(last !== undefined ? { last } : {}),
      ...filterOptions(p),
    });
    if (bool(p, "json")) {
      printJson({ session, messages: list.map(messageJson) });
      return 0;
    }
    let archived = false;
    for (const [i, m] of list.entries()) {
      if (!m.recent) archived = true;
      if (archived && m.recent && (i === 0 || !list[i - 1]!.recent))
        println(dim("──── archive above · history.json below ────"));
      println(`${messageHeader(m)} ${terminalText(m.content)}`);
    }
    if (list.length === 0) println(dim("(no messages)"));
    return 0;
  });
}
