// memvoy add SESSION --role R [--content TEXT | stdin] [--at TIME] [--sender NAME]; stdin may be JSONL.
import { parseJsonl } from "../../app/wire-input.ts";
import { CommandUsageError, PartialAddError, StdinInputError } from "../usage-errors.ts";
import { describeError } from "../../shared/describe-error.ts";
import { parseTimeOrThrow } from "../../shared/time.ts";
import { bool, str, type Parsed } from "../args.ts";
import { withAnyHome, sessionSpec } from "../command.ts";
import { printJson, println } from "../output.ts";
import type { WireMessageInput } from "../../app/wire-input.ts";

export const usage = `
Usage: memvoy add SESSION --role user|assistant [--content TEXT] [--at TIME] [--sender NAME] [--idempotency-key KEY]
       memvoy add SESSION < messages.jsonl

Append a message to a session. It returns once history.json and the archive hold it.
Without --content the text is read from stdin (one trailing newline dropped). With no --role, stdin
is JSONL: one {"role", "content", "sendAt"?, "sender"?, "idempotencyKey"?} per line; a bad line
rejects the whole batch. A batch of up to 100,000 lines is stored all or nothing (a full disk
included); a larger one is stored in parts of that size, and a failure says exactly which lines
were stored and where to resume.

  --role R              user or assistant
  --content TEXT        the message text (else stdin)
  --at TIME             when it was sent: RFC 3339, local "YYYY-MM-DD HH:MM[:SS]", or unix s/ms/ns
  --sender NAME         who sent it (optional)
  --idempotency-key K   a key of your choosing: adding again with the same key in the same session
                        returns the stored message and adds nothing (safe retries)
  --json                print {"session", "ids", "duplicates"} as JSON ("removed" too, when any)

A message whose idempotency key belonged to a message removed since (rm-message, reset, rm) is not
stored again: it is counted in "removed", and its entry in "ids" is "" (one entry per message given).
Within one batch a key names one message: a line repeated as it is is stored once, and two different
messages under one key refuse the batch (exit code 2, naming both lines; nothing is written).
`;

/** Lines stored in one all-or-nothing step. */
export const ATOMIC_BATCH = 100_000;

// JSONL on stdin may append many messages: the large page cache stays.
const spec = sessionSpec(
  "add",
  usage,
  {
    role: { type: "string" },
    content: { type: "string" },
    at: { type: "string" },
    sender: { type: "string" },
    "idempotency-key": { type: "string" },
  },
  { bulk: true },
);

export function run(argv: readonly string[]): Promise<number> {
  return withAnyHome(spec, argv, async (api, p, [session]) => {
    const role = str(p, "role");
    const lineNumbers: number[] = [];
    const messages = await collectMessages(p, role, api.info().maxMessageBytes, lineNumbers);
    const ids: string[] = [];
    let duplicates = 0;
    let removed = 0;
    const progress = messages.length > ATOMIC_BATCH && process.stderr.isTTY;
    for (let i = 0; i < messages.length; i += ATOMIC_BATCH) {
      try {
        const r = await api.add(session!, messages.slice(i, i + ATOMIC_BATCH));
        ids.push(...r.ids);
        duplicates += r.duplicates;
        removed += r.removed;
        if (r.compactionNote) process.stderr.write(`memvoy: ${session}: ${r.compactionNote}\n`);
      } catch (err) {
        if (i === 0) throw err;
        return reportPartial(
          err,
          session!,
          ids,
          lineNumbers[i - 1] ?? i,
          lineNumbers.at(-1) ?? messages.length,
          bool(p, "json"),
        );
      }
      if (progress) process.stderr.write(`\radded ${ids.length}/${messages.length}`);
    }
    if (progress) process.stderr.write("\n");
    if (bool(p, "json")) printJson(removed > 0 ? { session, ids, duplicates, removed } : { session, ids, duplicates });
    else if (ids.length === 1 && removed === 0) println(ids[0]);
    else if (ids.length === 1) process.stderr.write(`memvoy: add: ${session}: ${REMOVED_NOTE}\n`);
    else println(addedLine(session!, ids.length, duplicates, removed));
    return 0;
  });
}

const REMOVED_NOTE = "not stored again: a message with this idempotency key was removed earlier";

/** What a batch did: the messages added, then those an idempotency key kept out. */
function addedLine(session: string, given: number, duplicates: number, removed: number): string {
  const kept = [
    duplicates ? `${duplicates} already stored under their idempotency key` : "",
    removed ? `${removed} not stored again: removed earlier` : "",
  ].filter(Boolean);
  const added = given - duplicates - removed;
  return `added ${added} messages to ${session}${kept.length ? ` (${kept.join("; ")})` : ""}`;
}

async function collectMessages(
  p: Parsed,
  role: string | undefined,
  maxBytes: number,
  lineNumbers: number[],
): Promise<WireMessageInput[]> {
  if (role === undefined) {
    if (str(p, "content") !== undefined || str(p, "at") !== undefined)
      throw new CommandUsageError({
        problem: "flags-need",
        command: "add",
        flags: ["--content", "--at"],
        needs: "--role",
      });
    if (process.stdin.isTTY)
      throw new CommandUsageError({
        problem: "no-input",
        command: "add",
        give: "--role and --content, or pipe JSONL on stdin",
        seeHelp: true,
      });
    const messages = parseJsonl(await readStdin(), maxBytes, lineNumbers);
    if (messages.length === 0) throw new StdinInputError({ command: "add", problem: "empty" });
    return messages;
  }
  const content = str(p, "content") ?? (process.stdin.isTTY ? undefined : stripOneNewline(await readStdin()));
  if (content === undefined)
    throw new CommandUsageError({
      problem: "no-input",
      command: "add",
      give: "--content TEXT or pipe the text on stdin",
      seeHelp: false,
    });
  const m: WireMessageInput = { role: role as "user", content };
  const at = str(p, "at");
  if (at !== undefined) m.sendAt = parseTimeOrThrow(at, "--at");
  const sender = str(p, "sender");
  if (sender !== undefined) m.sender = sender;
  const key = str(p, "idempotency-key");
  if (key !== undefined) m.idempotencyKey = key;
  return [m];
}

/** A batch over ATOMIC_BATCH lines failed after its first parts were stored: say exactly what is stored. */
function reportPartial(
  err: unknown,
  session: string,
  ids: string[],
  lastLine: number,
  total: number,
  json: boolean,
): number {
  const failure = new PartialAddError(
    { session, stored: ids.length, lastLine, cause: describeError(err) },
    { cause: err },
  );
  const message = describeError(failure);
  if (json)
    printJson({
      session,
      ids,
      error: {
        message,
        stored: ids.length,
        lastStoredLine: lastLine,
        lastStoredId: ids.at(-1),
        lines: total,
        exitCode: 1,
      },
    });
  process.stderr.write(`memvoy: add: ${message}\n`);
  return 1;
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
