// memvoy history SESSION [--all] [--last N] [--since T] [--until T] [--role R] [--sender N]: the window, or every message.
import { bool, num } from "../args.ts";
import { CommandUsageError } from "../usage-errors.ts";
import { withAnyHome, sessionSpec } from "../command.ts";
import { FILTER_FLAGS, FILTER_USAGE, filterOptions } from "../filter-flags.ts";
import { dim, messageHeader, messageJson } from "../output.ts";
import type { StoredMessage } from "../../shared/message.ts";
import { streamOut } from "../../shared/stdout.ts";
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
    createsNoHome: true,
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
    const pages = await api.historyPages(session!, {
      all: bool(p, "all"),
      ...(last !== undefined ? { last } : {}),
      ...filterOptions(p),
    });
    await streamOut(bool(p, "json") ? jsonText(session!, pages) : humanText(pages), (text) => text);
    return 0;
  });
}

/** The messages as one JSON document {session, messages}, the same bytes as printJson, written a page at a time. */
async function* jsonText(session: string, pages: AsyncIterable<StoredMessage[]>): AsyncGenerator<string> {
  const head = `{\n  "session": ${JSON.stringify(session)},\n  "messages": [`;
  let shown = 0;
  for await (const page of pages) {
    let text = shown === 0 && page.length > 0 ? head : "";
    for (const m of page)
      text += `${shown++ === 0 ? "" : ","}\n    ${JSON.stringify(messageJson(m), null, 2).replaceAll("\n", "\n    ")}`;
    yield text;
  }
  yield shown === 0 ? `${head}]\n}\n` : "\n  ]\n}\n";
}

/**
 * One line a message, with a marker where the archive ends and history.json begins (and where history.json ends,
 * before messages another program removed from its middle).
 */
async function* humanText(pages: AsyncIterable<StoredMessage[]>): AsyncGenerator<string> {
  let before: boolean | undefined;
  for await (const page of pages) {
    let text = "";
    for (const m of page) {
      if (m.recent && before === false) text += dim("──── archive above · history.json below ────") + "\n";
      if (!m.recent && before === true) text += dim("──── history.json above · archive below ────") + "\n";
      // Later lines of a message are indented: a line of text cannot pass for the next message's header.
      text += `${messageHeader(m)} ${terminalText(m.content).replaceAll("\n", "\n  ")}\n`;
      before = m.recent;
    }
    yield text;
  }
  if (before === undefined) yield dim("(no messages)") + "\n";
}
