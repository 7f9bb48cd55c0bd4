// Checks on one message before it is written: role, non-empty well-formed text, size limit.
import { namedError } from "../shared/errors.ts";
import { describeIssueFacts, type IssueFact } from "../shared/schema-issues.ts";
import { isRole, type Role } from "../shared/message.ts";
import { TIME_RANGE_TEXT, timeInRange } from "../shared/time.ts";

export interface NewMessage {
  role: Role;
  content: string;
  /** UTC ns; now when absent. */
  sendAt?: bigint;
  sender?: string;
  /**
   * Chosen by the caller, unique within the session: a retried add with the same key returns the stored
   * message and adds nothing.
   */
  idempotencyKey?: string;
}

export const MAX_IDEMPOTENCY_KEY_CHARS = 256;

/**
 * The id an add reports for a message whose idempotency key belonged to a message removed since: nothing was
 * stored (a removed message never comes back), and the ids stay one per message given.
 */
export const REMOVED_ID = "";

/** Why a message cannot be written; `where` names it ("message", "stdin line 3"). Nothing of its batch is written. */
export type MessageProblem = { where: string } & (
  | { problem: "not-json"; plainText?: boolean; spread?: "array" | "object" }
  | { problem: "array" }
  | { problem: "fields"; issues: IssueFact[] }
  | { problem: "role"; role: unknown }
  | { problem: "empty" }
  | { problem: "nul"; offset: number }
  | { problem: "unpaired-surrogate"; field?: "sender" | "idempotencyKey" }
  | { problem: "too-big"; bytes: number; maxBytes: number; unread?: true }
  | { problem: "line-too-long"; bytes: number; maxBytes: number }
  | { problem: "sender" }
  | { problem: "send-at-range" }
  | { problem: "idempotency-key" }
  | { problem: "key-reused"; key: string; first: string }
);

export const InvalidMessageError = namedError<MessageProblem>(
  "InvalidMessageError",
  "input",
  (d) => `${d.where}: ${messageProblem(d)}`,
);
export type InvalidMessageError = InstanceType<typeof InvalidMessageError>;

function messageProblem(d: MessageProblem): string {
  switch (d.problem) {
    case "not-json": {
      const hints = [
        d.plainText ? "to add plain text, give --role user|assistant" : "",
        d.spread
          ? `JSONL holds one message object a line: ${d.spread === "array" ? "jq -c '.[]'" : "jq -c ."} makes it`
          : "",
      ].filter(Boolean);
      return `not valid JSON; nothing was written${hints.length ? ` (${hints.join("; ")})` : ""}`;
    }
    case "array":
      return `a JSON array, not one message; nothing was written (JSONL holds one {"role", "content"} object a line: jq -c '.[]' makes it)`;
    case "fields":
      return describeIssueFacts(d.issues);
    case "role":
      return `unknown role ${JSON.stringify(d.role)} (use user or assistant)`;
    case "empty":
      return "content is empty";
    case "nul":
      return `content contains a NUL character at offset ${d.offset}`;
    case "unpaired-surrogate":
      return `${d.field ?? "content"} is not valid Unicode (unpaired surrogate)`;
    case "too-big": {
      // unread: stdin was read only as far as `bytes`, enough to know the text is too long.
      const [size, max] = distinctSizes(d.bytes, d.maxBytes);
      return d.unread
        ? `content is more than ${size}, over limits.max_message_bytes (${max}); the rest of stdin was not read`
        : `content is ${size}, over limits.max_message_bytes (${max})`;
    }
    case "line-too-long":
      return `the line is over ${formatBytes(d.bytes)}, longer than a message within limits.max_message_bytes (${formatBytes(d.maxBytes)}) can be; the rest of stdin was not read`;
    case "sender":
      return "sender must be text of at most 256 characters";
    case "send-at-range":
      return `sendAt is out of range: use a time from ${TIME_RANGE_TEXT}`;
    case "idempotency-key":
      return `idempotencyKey must be text of 1 to ${MAX_IDEMPOTENCY_KEY_CHARS} characters`;
    case "key-reused":
      return `idempotencyKey ${JSON.stringify(d.key)} is also on ${d.first}, for another message; nothing was written (a key names one message)`;
  }
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} bytes`;
}

export function checkNewMessage(m: NewMessage, maxBytes: number, where = "message", asStored = false): void {
  if (!isRole(m.role)) throw new InvalidMessageError({ where, problem: "role", role: m.role });
  if (typeof m.content !== "string") throw new InvalidMessageError({ where, problem: "empty" });
  // A message read back from memvoy's own export keeps text the archive holds (empty, or with NUL characters:
  // records adopted from an older history.json); new text may have neither.
  if (!asStored) {
    if (m.content.trim() === "") throw new InvalidMessageError({ where, problem: "empty" });
    const nul = m.content.indexOf("\0");
    if (nul >= 0) throw new InvalidMessageError({ where, problem: "nul", offset: nul });
  }
  if (!m.content.isWellFormed()) throw new InvalidMessageError({ where, problem: "unpaired-surrogate" });
  const bytes = Buffer.byteLength(m.content);
  if (bytes > maxBytes) throw new InvalidMessageError({ where, problem: "too-big", bytes, maxBytes });
  if (m.sender !== undefined && (typeof m.sender !== "string" || m.sender.length > 256 || m.sender.includes("\0"))) {
    throw new InvalidMessageError({ where, problem: "sender" });
  }
  // Stored as given, it would be U+FFFD in the archive and the lone half in history.json.
  if (m.sender?.isWellFormed() === false)
    throw new InvalidMessageError({ where, problem: "unpaired-surrogate", field: "sender" });
  if (m.sendAt !== undefined && (typeof m.sendAt !== "bigint" || !timeInRange(m.sendAt))) {
    throw new InvalidMessageError({ where, problem: "send-at-range" });
  }
  const key = m.idempotencyKey;
  if (
    key !== undefined &&
    (typeof key !== "string" || key === "" || key.length > MAX_IDEMPOTENCY_KEY_CHARS || key.includes("\0"))
  ) {
    throw new InvalidMessageError({ where, problem: "idempotency-key" });
  }
  if (key?.isWellFormed() === false)
    throw new InvalidMessageError({ where, problem: "unpaired-surrogate", field: "idempotencyKey" });
}

/**
 * A batch that gives one idempotency key twice must give the same message twice (a repeated line, stored once):
 * a second message under the key (other text, role, sender or time) would be dropped unseen, so it is refused
 * and nothing of the batch is written. `where` names a message by its index ("stdin line 3").
 */
export function checkRepeatedKeys(inputs: readonly NewMessage[], where: (i: number) => string): void {
  const first = new Map<string, number>();
  inputs.forEach((m, i) => {
    const key = m.idempotencyKey;
    if (key === undefined) return;
    const j = first.get(key);
    if (j === undefined) first.set(key, i);
    else if (!sameMessage(inputs[j]!, m))
      throw new InvalidMessageError({ where: where(i), problem: "key-reused", key, first: where(j) });
  });
}

function sameMessage(a: NewMessage, b: NewMessage): boolean {
  return a.role === b.role && a.content === b.content && (a.sender || "") === (b.sender || "") && a.sendAt === b.sendAt;
}

/** What sameMessage compares, as one number: a reader that keeps no message whole checks a repeated key by it. */
export function messageSignature(m: NewMessage): bigint | number {
  return Bun.hash(
    JSON.stringify([m.role, m.content, m.sender || "", m.sendAt === undefined ? null : String(m.sendAt)]),
  );
}

/** Two sizes as formatBytes gives them, or in bytes when it would show them the same (1.0 MiB over 1.0 MiB). */
function distinctSizes(a: number, b: number): [string, string] {
  const [x, y] = [formatBytes(a), formatBytes(b)];
  return x !== y ? [x, y] : [`${a.toLocaleString("en-US")} bytes`, `${b.toLocaleString("en-US")} bytes`];
}
