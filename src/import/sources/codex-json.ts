// The TypeScript Codex CLI's sessions (spring 2025): sessions/rollout-YYYY-MM-DD-<uuid>.json, one JSON document
// {session: {timestamp, id, instructions}, items: [response items]} written again whole at each save. Items carry no
// time of their own: the session's timestamp as the first pass read it, plus a millisecond per item, keeps the order.
import { statSync } from "node:fs";
import { importedSessionId } from "../../shared/import-id.ts";
import { recordTime } from "../record-time.ts";
import { NotThisFormatError, type FileRead, type ImportedMessage, type ReadContext } from "../import-types.ts";
import { isObject, readTextLimited, tryJson } from "../read-lines.ts";
import { titleFrom } from "../source-files.ts";

const MAX_FILE = 256 * 1024 * 1024;
const MS = 1_000_000n;

/** `text` gives a message item's text (its input_text / output_text parts, injected context left out). */
export function readJsonRollout(ctx: ReadContext, prefix: string, text: (content: unknown) => string): FileRead {
  const doc = tryJson(readTextLimited(ctx.file, MAX_FILE, statSync(ctx.file).size));
  const session = isObject(doc) && isObject(doc.session) ? doc.session : undefined;
  const items = isObject(doc) && Array.isArray(doc.items) ? (doc.items as unknown[]) : undefined;
  if (!session || typeof session.id !== "string" || !items)
    throw new NotThisFormatError({
      file: ctx.file,
      expected: "a Codex rollout",
      because: "not a session {session: {id, timestamp}, items} either",
    });
  // The timestamp is that of the last save: a later save (the session went on) keeps the times the first pass gave.
  const kept = typeof ctx.prior.jsonStart === "string" ? BigInt(ctx.prior.jsonStart) : undefined;
  const start = kept ?? (typeof session.timestamp === "string" ? recordTime(session.timestamp) : undefined);
  if (start === undefined)
    throw new NotThisFormatError({ file: ctx.file, expected: "a Codex rollout", because: "the session has no time" });
  const messages: ImportedMessage[] = [];
  items.forEach((item, i) => {
    if (!isObject(item) || item.type !== "message" || (item.role !== "user" && item.role !== "assistant")) return;
    const content = text(item.content);
    if (content !== "") messages.push({ key: `item-${i}`, role: item.role, content, sendAt: start + BigInt(i) * MS });
  });
  const first = messages.find((m) => m.role === "user");
  return {
    sessions: [
      {
        id: importedSessionId(prefix, session.id),
        title: first ? titleFrom(first.content) : undefined,
        titleIsFallback: true,
        messages,
      },
    ],
    skipped: [],
    state: { sessionId: session.id, jsonStart: String(start) },
  };
}
