// memvoy add SESSION --role R [--content TEXT | stdin] [--at TIME] [--sender NAME]; stdin may be JSONL.
import { parseJsonl } from "../../app/wire-input.ts";
import { CommandUsageError, StdinInputError } from "../usage-errors.ts";
import { parseTimeOrThrow } from "../../shared/time.ts";
import { bool, str, type Parsed } from "../args.ts";
import { withMemory, type CommandSpec } from "../command.ts";
import { printJson, println } from "../output.ts";
import type { WireMessageInput } from "../../app/wire-input.ts";

export const usage = `
Usage: memvoy add SESSION --role user|assistant [--content TEXT] [--at TIME] [--sender NAME]
       memvoy add SESSION < messages.jsonl

Append a message to a session. It returns once history.json and the archive hold it.
Without --content the text is read from stdin (one trailing newline dropped). With no --role, stdin is JSONL: one
{"role", "content", "sendAt"?, "sender"?} per line; a bad line rejects the whole batch.

  --role R        user or assistant
  --content TEXT  the message text (else stdin)
  --at TIME       when it was sent: RFC 3339, local "YYYY-MM-DD HH:MM[:SS]", or unix s/ms/ns
  --sender NAME   who sent it (optional)
  --json          print {"session", "ids"} as JSON
`;

const BATCH = 5000;

const spec: CommandSpec = { name: "add", usage, flags: { role: { type: "string" }, content: { type: "string" }, at: { type: "string" }, sender: { type: "string" } }, positionals: ["SESSION"], session: true };

export function run(argv: readonly string[]): Promise<number> {
  return withMemory(spec, argv, async (api, p, [session]) => {
    const role = str(p, "role");
    const messages = await collectMessages(p, role, api.info().maxMessageBytes);
    const ids: string[] = [];
    const progress = messages.length > BATCH && process.stderr.isTTY;
    for (let i = 0; i < messages.length; i += BATCH) {
      const r = api.add(session!, messages.slice(i, i + BATCH));
      ids.push(...r.ids);
      if (r.compactionNote) process.stderr.write(`memvoy: ${session}: ${r.compactionNote}\n`);
      if (progress) process.stderr.write(`\radded ${ids.length}/${messages.length}`);
    }
    if (progress) process.stderr.write("\n");
    if (bool(p, "json")) printJson({ session, ids });
    else println(ids.length === 1 ? ids[0] : `added ${ids.length} messages to ${session}`);
    return 0;
  });
}

async function collectMessages(p: Parsed, role: string | undefined, maxBytes: number): Promise<WireMessageInput[]> {
  if (role === undefined) {
    if (str(p, "content") !== undefined || str(p, "at") !== undefined) throw new CommandUsageError({ problem: "flags-need", command: "add", flags: ["--content", "--at"], needs: "--role" });
    if (process.stdin.isTTY) throw new CommandUsageError({ problem: "no-input", command: "add", give: "--role and --content, or pipe JSONL on stdin", seeHelp: true });
    const messages = parseJsonl(await readStdin(), maxBytes);
    if (messages.length === 0) throw new StdinInputError({ command: "add", problem: "empty" });
    return messages;
  }
  const content = str(p, "content") ?? (process.stdin.isTTY ? undefined : stripOneNewline(await readStdin()));
  if (content === undefined) throw new CommandUsageError({ problem: "no-input", command: "add", give: "--content TEXT or pipe the text on stdin", seeHelp: false });
  const m: WireMessageInput = { role: role as "user", content };
  const at = str(p, "at");
  if (at !== undefined) m.sendAt = parseTimeOrThrow(at, "--at");
  const sender = str(p, "sender");
  if (sender !== undefined) m.sender = sender;
  return [m];
}

/** `echo text |` ends the text with one newline that is not part of it: drop exactly one (LF or CRLF). */
export function stripOneNewline(text: string): string {
  if (text.endsWith("\r\n")) return text.slice(0, -2);
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}

/** stdin as UTF-8; invalid bytes are refused rather than replaced. */
async function readStdin(): Promise<string> {
  const bytes = new Uint8Array(await Bun.stdin.arrayBuffer());
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new StdinInputError({ command: "add", problem: "not-utf8" });
  }
}
