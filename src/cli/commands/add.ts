// memvoy add SESSION --role R [--content TEXT | stdin] [--at TIME] [--sender NAME]; stdin may be JSONL.
import { fstatSync } from "node:fs";
import { checkWireMessage, overLimitError, parseJsonlLine, repeatedKeyCheck } from "../../app/wire-input.ts";
import { streamLines } from "../../shared/stream-lines.ts";
import { redrawsInPlace } from "../progress.ts";
import { CommandUsageError, PartialAddError, StdinInputError } from "../usage-errors.ts";
import { InputError } from "../../shared/errors.ts";
import { describeError } from "../../shared/describe-error.ts";
import { parseTimeOrThrow } from "../../shared/time.ts";
import { bool, str, type Parsed } from "../args.ts";
import type { AnyHome } from "../command.ts";
import { commandConfig, runCommand, sessionSpec, usingAnyHome } from "../command.ts";
import { printJson, println } from "../output.ts";
import { stripOneNewline } from "../stdin-text.ts";
import type { WireMessageInput } from "../../app/wire-input.ts";

export const usage = `
Usage: memvoy add SESSION --role user|assistant [--content TEXT] [--at TIME] [--sender NAME] [--idempotency-key KEY]
       memvoy add SESSION < messages.jsonl

Append a message to a session. It returns once history.json and the archive hold it.
Without --content the text is read from stdin (one trailing newline dropped). With no --role, stdin
is JSONL: one {"role", "content", "sendAt"?, "sender"?, "idempotencyKey"?} per line. A batch of up
to 100,000 lines is checked whole and stored all or nothing (a bad line or a full disk stores none
of it); a larger one is read and stored in parts of that size, and a failure (a bad line included)
says exactly which lines were stored and where to resume.

  --role R              user or assistant
  --content TEXT        the message text (else stdin; "-" reads stdin too)
  --at TIME             when it was sent: RFC 3339, local "YYYY-MM-DD HH:MM[:SS]", or unix
                        seconds (a fraction allowed: 1765000000.5), ms, us or ns
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
  return runCommand(spec, argv, async (p, [session]) => {
    const config = commandConfig(p);
    const maxBytes = config.limits.max_message_bytes;
    const role = str(p, "role");
    // The input is read and checked before the home is opened: a refused add creates no home.
    const one = role !== undefined ? await oneMessage(p, role, maxBytes) : undefined;
    const read = { lines: 0 };
    const parts = one === undefined ? jsonlParts(p, maxBytes, read) : undefined;
    const first = one ?? (await nextPart(parts!))!;
    return usingAnyHome(p, "add", (api) => addTo(api, p, session!, first, parts, read), false, config);
  });
}

/** Store the first message(s) read, then (JSONL) the rest of stdin part by part; print what was added. */
async function addTo(
  api: AnyHome,
  p: Parsed,
  session: string,
  first: WireMessageInput[] | JsonlPart,
  parts: AsyncGenerator<JsonlPart> | undefined,
  read: { lines: number },
): Promise<number> {
  const ids: string[] = [];
  let duplicates = 0;
  let removed = 0;
  const store = async (messages: WireMessageInput[]) => {
    const r = await api.add(session, messages);
    ids.push(...r.ids);
    duplicates += r.duplicates;
    removed += r.removed;
    if (r.compactionNote) process.stderr.write(`memvoy: ${session}: ${r.compactionNote}\n`);
  };
  if (parts === undefined) await store(first as WireMessageInput[]);
  else {
    // JSONL is stored part by part as it is read: one part (all or nothing) up to ATOMIC_BATCH lines.
    let stored = { parts: 0, lastLine: 0 };
    let shown = false; // progress, on a terminal, once a batch is larger than one part
    try {
      for (let part: JsonlPart | undefined = first as JsonlPart; part; part = await nextPart(parts)) {
        await store(part.messages);
        stored = { parts: stored.parts + 1, lastLine: part.lastLine };
        Bun.gc(true); // the part just stored is garbage: without this the heap grows by about a part each time
        if (redrawsInPlace(process.stderr) && (shown || part.messages.length === ATOMIC_BATCH)) {
          process.stderr.write(`\radded ${ids.length} (stdin line ${part.lastLine})`);
          shown = true;
        }
      }
    } catch (err) {
      if (shown) process.stderr.write("\n");
      if (stored.parts === 0) throw err;
      return reportPartial(err, session, ids, stored.lastLine, read.lines, bool(p, "json"));
    }
    if (shown) process.stderr.write("\n");
  }
  if (bool(p, "json")) printJson(removed > 0 ? { session, ids, duplicates, removed } : { session, ids, duplicates });
  else if (ids.length === 1 && removed === 0) println(ids[0]);
  else if (ids.length === 1) process.stderr.write(`memvoy: add: ${session}: ${REMOVED_NOTE}\n`);
  else println(addedLine(session, ids.length, duplicates, removed));
  return 0;
}

const REMOVED_NOTE = "not stored again: a message with this idempotency key was removed earlier";

/** What a batch did: the messages added, then those an idempotency key kept out. */
function addedLine(session: string, given: number, duplicates: number, removed: number): string {
  const kept = [
    duplicates ? `${duplicates} already stored under their idempotency key` : "",
    removed ? `${removed} not stored again: removed earlier` : "",
  ].filter(Boolean);
  const added = given - duplicates - removed;
  return `added ${added} message${added === 1 ? "" : "s"} to ${session}${kept.length ? ` (${kept.join("; ")})` : ""}`;
}

/** The flags that describe the one message of --role, not the lines of JSONL. */
const ONE_MESSAGE_FLAGS = ["content", "at", "sender", "idempotency-key"] as const;

/** JSONL parts from stdin (after the checks that no single-message flag is given and stdin is not a terminal). */
function jsonlParts(p: Parsed, maxBytes: number, read: { lines: number }): AsyncGenerator<JsonlPart> {
  // Each flag of one message would be dropped unseen on a JSONL line (a retry with its idempotency key stored twice).
  const given = ONE_MESSAGE_FLAGS.filter((f) => str(p, f) !== undefined);
  if (given.length > 0)
    throw new CommandUsageError({
      problem: "flags-need",
      command: "add",
      flags: given.map((f) => `--${f}`),
      needs: given.some((f) => f === "sender" || f === "idempotency-key")
        ? '--role (a JSONL line gives its own "sender" and "idempotencyKey")'
        : "--role",
    });
  if (process.stdin.isTTY)
    throw new CommandUsageError({
      problem: "no-input",
      command: "add",
      give: "--role and --content, or pipe JSONL on stdin",
      seeHelp: true,
    });
  return readJsonl(maxBytes, read);
}

async function oneMessage(p: Parsed, role: string, maxBytes: number): Promise<WireMessageInput[]> {
  // "-" reads stdin, as context --input - and errors record --error - do.
  const given = str(p, "content");
  const content =
    given !== undefined && given !== "-"
      ? given
      : process.stdin.isTTY
        ? undefined
        : stripOneNewline(await readText(maxBytes));
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
  checkWireMessage(m, maxBytes);
  return [m];
}

/**
 * A batch over ATOMIC_BATCH lines failed (a write, or a bad line) after its first parts were stored: say exactly
 * what is stored. `lines`: the stdin lines read. Exit 2 when a line was refused, else 1.
 */
function reportPartial(
  err: unknown,
  session: string,
  ids: string[],
  lastLine: number,
  lines: number,
  json: boolean,
): number {
  const exitCode = err instanceof InputError ? 2 : 1;
  const failure = new PartialAddError(
    // The line's own error may say nothing was written: this one says what was.
    {
      session,
      stored: ids.length,
      lastLine,
      cause: describeError(err).replace(/; nothing was written(?: \([^)]*\))?/, ""),
    },
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
        lines,
        exitCode,
      },
    });
  process.stderr.write(`memvoy: add: ${message}\n`);
  return exitCode;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** UTF-8 bytes as text; invalid bytes are refused rather than replaced. */
function decode(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new StdinInputError({ command: "add", problem: "not-utf8" });
  }
}

/** How far stdin is counted, past the limit, to name the size of a text that is refused. */
const COUNTED_BYTES = 256 * 1024 * 1024;

/**
 * One message's text from stdin. Past the limit (with room for the newline that ends it) nothing more is kept:
 * the rest is counted, to name the size, up to COUNTED_BYTES, and a text longer than that (or with no end) is
 * refused without reading further.
 */
async function readText(maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let tail = new Uint8Array(0);
  for await (const chunk of stdinStream()) {
    bytes += chunk.length;
    if (bytes <= maxBytes + 2) chunks.push(chunk);
    else if (bytes > COUNTED_BYTES) throw overLimitError("message", COUNTED_BYTES, maxBytes, "unread");
    else tail = chunk;
  }
  if (bytes <= maxBytes + 2) return decode(Buffer.concat(chunks));
  const end = tail.length;
  const newline = tail[end - 1] === 10 ? (tail[end - 2] === 13 ? 2 : 1) : 0; // dropped as stripOneNewline does
  throw overLimitError("message", bytes - newline, maxBytes, "whole");
}

interface JsonlPart {
  messages: WireMessageInput[];
  /** The stdin line of the part's last message. */
  lastLine: number;
}

/**
 * JSONL from stdin in parts of ATOMIC_BATCH messages, each line parsed as it arrives: memory holds one part, never
 * the whole text (past 2 GiB it could not even be decoded). A part is given once a message after it is read, so
 * a batch of up to ATOMIC_BATCH lines is one part, checked whole before anything is stored. A line far longer
 * than any message it could hold is refused without reading it to its end.
 */
async function* readJsonl(maxBytes: number, read: { lines: number }): AsyncGenerator<JsonlPart> {
  const maxLineBytes = 6 * maxBytes + 64 * 1024; // a JSON line escapes a control character in 6 bytes
  const tooLong = (line: number, bytes: number) => overLimitError(`stdin line ${line}`, bytes, maxBytes, "line");
  let part: JsonlPart = { messages: [], lastLine: 0 };
  const keys = repeatedKeyCheck();
  for await (const { line, text } of streamLines(stdinStream(), { maxLineBytes, tooLong, decode })) {
    read.lines = line;
    const m = parseJsonlLine(text, line, maxBytes);
    if (m === undefined) continue;
    keys(m, line); // one key, one message, over the whole input: a part already stored is not checked again
    if (part.messages.length === ATOMIC_BATCH) {
      yield part;
      part = { messages: [], lastLine: 0 };
    }
    part.messages.push(m);
    part.lastLine = line;
  }
  // After a full part is given, the next part holds the message that closed it: empty only when stdin held none.
  if (part.messages.length === 0) throw new StdinInputError({ command: "add", problem: "empty" });
  yield part;
}

async function nextPart(parts: AsyncGenerator<JsonlPart>): Promise<JsonlPart | undefined> {
  const next = await parts.next();
  return next.done ? undefined : next.value;
}

/** stdin as a stream; a folder given as stdin (< DIR) is refused here, where reading it would fail with EISDIR. */
function stdinStream(): ReturnType<typeof Bun.stdin.stream> {
  if (fstatSync(0).isDirectory()) throw new StdinInputError({ command: "add", problem: "folder" });
  return Bun.stdin.stream();
}
