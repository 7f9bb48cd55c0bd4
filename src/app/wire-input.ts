// valibot schemas for input that crosses a boundary: messages given to add (flags, JSONL lines, library), error records.
import * as v from "valibot";
import { parseTimeOrThrow } from "../shared/time.ts";
import { sendAtAsWritten } from "../shared/send-at-text.ts";
import { checkNewMessage, InvalidMessageError, messageSignature, type NewMessage } from "../memory/message-input.ts";
import { issueFacts } from "../shared/schema-issues.ts";
import { checkRecordInput } from "../memory/error-memory/error-input.ts";

const WireMessage = v.strictObject(
  {
    role: v.picklist(["user", "assistant"], "role must be user or assistant"),
    content: v.string("content must be text"),
    sendAt: v.optional(v.union([v.string(), v.number(), v.bigint()], "sendAt must be a time string or a number")),
    sender: v.optional(v.string("sender must be text")),
    idempotencyKey: v.optional(v.string("idempotencyKey must be text")),
  },
  "must be an object with role and content",
);

export type WireMessageInput = v.InferInput<typeof WireMessage>;

export function toNewMessage(raw: unknown, where: string): NewMessage {
  const r = v.safeParse(WireMessage, raw);
  // Worded as the API's schema words them (MessageInput), so that add says the same on every surface.
  if (!r.success)
    throw new InvalidMessageError({
      where,
      problem: "fields",
      issues: issueFacts(r.issues, { missing: "missing", omitNamedPath: true }),
    });
  const m: NewMessage = { role: r.output.role, content: r.output.content };
  const at = r.output.sendAt;
  if (at !== undefined) m.sendAt = typeof at === "bigint" ? at : parseTimeOrThrow(String(at), `${where}: sendAt`);
  if (r.output.sender !== undefined) m.sender = r.output.sender;
  if (r.output.idempotencyKey !== undefined) m.idempotencyKey = r.output.idempotencyKey;
  return m;
}

/** One message checked as add checks it, so that a front-end can refuse it before it opens (or creates) a home. */
export function checkWireMessage(raw: WireMessageInput, maxMessageBytes: number): void {
  checkNewMessage(toNewMessage(raw, "message"), maxMessageBytes, "message");
}

/** An error record checked as recording it checks it, before a home is opened (or created). */
export function checkErrorRecord(raw: unknown): void {
  checkRecordInput(raw);
}

/**
 * One JSONL line (`line` numbered from 1) as a message; undefined for a blank line. Any bad line rejects the whole
 * batch: a line that is not JSON is refused, with the --role hint when it is the first line and does not open an object (plain text piped).
 */
export function parseJsonlLine(text: string, line: number, maxMessageBytes: number): NewMessage | undefined {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  const where = `stdin line ${line}`;
  let raw: unknown;
  try {
    raw = JSON.parse(trimmed, sendAtAsWritten);
  } catch {
    // Plain text piped without --role: say how plain text is read. A first line opening an array, or an object
    // alone, is JSON spread over lines (a pretty-printed file, a JSON array of messages): say what JSONL is.
    const plainText = line === 1 && !trimmed.startsWith("{");
    const spread = line !== 1 ? undefined : trimmed.startsWith("[") ? "array" : trimmed === "{" ? "object" : undefined;
    throw new InvalidMessageError({
      where,
      problem: "not-json",
      ...(plainText ? { plainText } : {}),
      ...(spread ? { spread } : {}),
    });
  }
  if (Array.isArray(raw)) throw new InvalidMessageError({ where, problem: "array" });
  const m = toNewMessage(raw, where);
  checkNewMessage(m, maxMessageBytes, where);
  return m;
}

/**
 * A message from stdin over the limit: `bytes` long, or (`unread`) longer than the `bytes` read; `line`: a JSONL
 * line read as far as `bytes`, longer than any message within the limit can be written.
 */
export function overLimitError(where: string, bytes: number, maxBytes: number, read: "whole" | "unread" | "line") {
  if (read === "line") return new InvalidMessageError({ where, problem: "line-too-long", bytes, maxBytes });
  return new InvalidMessageError({
    where,
    problem: "too-big",
    bytes,
    maxBytes,
    ...(read === "unread" ? { unread: true as const } : {}),
  });
}

/**
 * checkRepeatedKeys' rule for an input read line by line and stored in parts: each key's first line and message
 * signature are kept (not the message), and a later line giving the key to another message is refused.
 */
export function repeatedKeyCheck(): (m: NewMessage, line: number) => void {
  const first = new Map<string, { line: number; signature: bigint | number }>();
  return (m, line) => {
    const key = m.idempotencyKey;
    if (key === undefined) return;
    const signature = messageSignature(m);
    const seen = first.get(key);
    if (seen === undefined) first.set(key, { line, signature });
    else if (seen.signature !== signature)
      throw new InvalidMessageError({
        where: `stdin line ${line}`,
        problem: "key-reused",
        key,
        first: `stdin line ${seen.line}`,
      });
  };
}
