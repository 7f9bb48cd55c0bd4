// Checks on one message before it is written: role, non-empty well-formed text, size limit.
import { InputError } from "../shared/errors.ts";
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

export class InvalidMessageError extends InputError {}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} bytes`;
}

export function checkNewMessage(m: NewMessage, maxBytes: number, where = "message"): void {
  if (!isRole(m.role)) throw new InvalidMessageError(`${where}: unknown role ${JSON.stringify(m.role)} (use user or assistant)`);
  if (typeof m.content !== "string" || m.content.trim() === "") throw new InvalidMessageError(`${where}: content is empty`);
  const nul = m.content.indexOf("\0");
  if (nul >= 0) throw new InvalidMessageError(`${where}: content contains a NUL character at offset ${nul}`);
  if (!m.content.isWellFormed()) throw new InvalidMessageError(`${where}: content is not valid Unicode (unpaired surrogate)`);
  const bytes = Buffer.byteLength(m.content);
  if (bytes > maxBytes) {
    throw new InvalidMessageError(`${where}: content is ${formatBytes(bytes)}, over limits.max_message_bytes (${formatBytes(maxBytes)})`);
  }
  if (m.sender !== undefined && (typeof m.sender !== "string" || m.sender.length > 256 || m.sender.includes("\0"))) {
    throw new InvalidMessageError(`${where}: sender must be text of at most 256 characters`);
  }
  if (m.sendAt !== undefined && (typeof m.sendAt !== "bigint" || !timeInRange(m.sendAt))) {
    throw new InvalidMessageError(`${where}: sendAt is out of range: use a time from ${TIME_RANGE_TEXT}`);
  }
  const key = m.idempotencyKey;
  if (key !== undefined && (typeof key !== "string" || key === "" || key.length > MAX_IDEMPOTENCY_KEY_CHARS || key.includes("\0") || !key.isWellFormed())) {
    throw new InvalidMessageError(`${where}: idempotencyKey must be text of 1 to ${MAX_IDEMPOTENCY_KEY_CHARS} characters`);
  }
}
