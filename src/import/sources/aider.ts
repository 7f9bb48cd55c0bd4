// Aider: .aider.chat.history.md in a repository root, named by PATH (no default location). A session starts at
// "# aider chat started at YYYY-MM-DD HH:MM:SS" (local time); "#### " lines are the user, "> " lines tool output,
// the rest the assistant (aider's own split_chat_history_markdown). No ids, no per-message times.
import { statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { shortHash } from "../../shared/import-id.ts";
import type { Role } from "../../shared/message.ts";
import { parseTime } from "../../shared/time.ts";
import {
  NotThisFormatError,
  type FileRead,
  type ImportedMessage,
  type ImportedSession,
  type ReadContext,
  type Source,
} from "../import-types.ts";
import { isObject, readTextLimited } from "../read-lines.ts";
import { listFiles, titleFrom } from "../source-files.ts";

const MAX_FILE = 1024 * 1024 * 1024;
const STARTED = /^# aider chat started at (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})\s*$/;
const USER = /^#### /;

export const aider: Source = {
  name: "aider",
  prefix: "aider",
  defaultPaths: () => undefined,
  files: (path) => listFiles(path, (name) => name === ".aider.chat.history.md"),
  // Sessions are appended, but the last message may still grow: a changed file is split again whole.
  appendOnly: () => false,
  read: readHistory,
};

function readHistory(ctx: ReadContext): FileRead {
  const file = resolve(ctx.file);
  const text = readTextLimited(file, MAX_FILE, statSync(file).size);
  const lines = text.split(/\r?\n/);
  if (text.trim() !== "" && !lines.some((l) => STARTED.test(l)))
    throw new NotThisFormatError({
      file,
      expected: "an aider chat history",
      because: 'no "# aider chat started at" line',
    });
  // aider ends every line of the person's input with two spaces (a markdown line break). Where it did, a "#### " line
  // without them inside the assistant's text is a heading of its markdown; a history written without them (by hand)
  // keeps the plain rule.
  const marked = lines.some((l) => USER.test(l) && l.endsWith("  "));
  let lastText: Role | "tool" | undefined;
  const isUser = (l: string) => USER.test(l) && !(marked && !l.endsWith("  ") && lastText === "assistant");
  const known = isObject(ctx.prior.starts) ? ctx.prior.starts : {};
  const starts: Record<string, string> = {};
  const pathHash = shortHash(file);
  // By start time: a header repeating one (two runs started within a second, a script's `aider --message` calls)
  // goes on with that session, whose id the start alone makes; a session of its own would reuse its message ids.
  const started = new Map<string, Started>();
  let current: Started | undefined;
  let role: Role | "tool" | undefined;
  let buffer: string[] = [];
  const flush = () => {
    if (current && role && role !== "tool" && buffer.join("").trim() !== "")
      current.messages.push({ role, lines: buffer });
    buffer = [];
    role = undefined;
  };
  for (const line of lines) {
    const header = STARTED.exec(line);
    if (header) {
      flush();
      const start = header[1]!.replace(/[-: ]/g, (c) => (c === " " ? "-" : ""));
      current = started.get(start);
      if (!current) {
        // The heading is local time in the zone aider ran in, which memvoy cannot know: a session keeps the time the
        // first pass read, so a pass run in another zone gives the same times and ids.
        const was = known[start];
        const at = typeof was === "string" && /^\d{1,19}$/.test(was) ? BigInt(was) : (parseTime(header[1]!) ?? 0n);
        starts[start] = String(at);
        current = { start, at, messages: [] };
        started.set(start, current);
      }
      lastText = undefined;
      continue;
    }
    if (!current || line.startsWith("# ")) continue;
    const kind: Role | "tool" = line.startsWith("> ") || line === ">" ? "tool" : isUser(line) ? "user" : "assistant";
    if (kind !== role) flush();
    role = kind;
    if (line.trim() !== "") lastText = kind;
    // aider ends each user line with two spaces (a markdown line break): they are not the person's text.
    buffer.push(kind === "user" ? line.slice(5).replace(/ {2}$/, "") : kind === "tool" ? line.slice(2) : line);
  }
  flush();
  const sessions = [...started.values()].map((s) => toSession(s, pathHash, dirname(file)));
  return { sessions, skipped: [], state: { starts } };
}

interface Started {
  start: string;
  at: bigint;
  messages: { role: Role; lines: string[] }[];
}

function toSession(s: Started, pathHash: string, project: string): ImportedSession {
  const messages: ImportedMessage[] = [];
  s.messages.forEach((m, i) => {
    const content = m.lines.join("\n").trim();
    // "#### /add file.py" and other slash commands are instructions to aider, not conversation.
    // "<blank>" is what aider logs for an empty input (nothing was sent).
    if (m.role === "user" && (content.startsWith("/") || content === "<blank>")) return;
    // No per-message time: the session start, one millisecond apart, keeps the order.
    messages.push({ key: String(i), role: m.role, content, sendAt: s.at + BigInt(i) * 1_000_000n });
  });
  const first = messages.find((m) => m.role === "user");
  return {
    id: `aider-${pathHash}-${s.start}`,
    title: first ? titleFrom(first.content) : undefined,
    titleIsFallback: true,
    project,
    messages,
  };
}
