// The message record shared by every tier: same id in history.json, SQLite and LanceDB.
export const ROLES = ["user", "assistant"] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return value === "user" || value === "assistant";
}

/** One message as history.json holds it (sendAt in UTC nanoseconds). */
export interface MessageRecord {
  id: string;
  role: Role;
  content: string;
  sendAt: bigint;
  sender?: string;
  /** Set while reading a legacy record that had no time: sendAt was synthesized beside its neighbours. */
  untimed?: true;
  /**
   * What another program wrote in history.json beyond memvoy's fields, written back with the record: `fields`,
   * the record as it was (numbers as their source text); `content`, its content parts when not a string, kept
   * while the record's text is still `text` (the text memvoy read from them).
   */
  kept?: { fields: Record<string, unknown>; text: string; content?: unknown };
}

/** A message as the archive holds it: the record plus its session and its position (seq). */
export interface StoredMessage extends MessageRecord {
  seq: bigint;
  session: string;
  /** true while the message is still in history.json (the recent tier). */
  recent: boolean;
}

/**
 * The message as a PostgreSQL archive can hold it: its text and sender with U+FFFD for each NUL character (text
 * there cannot hold one; a record adopted from an older history.json may). The same message when it holds none.
 */
export function withoutNul<T extends MessageRecord>(m: T): T {
  if (!m.content.includes("\0") && !m.sender?.includes("\0")) return m;
  const out = { ...m, content: m.content.replaceAll("\0", "\uFFFD") };
  if (m.sender !== undefined) out.sender = m.sender.replaceAll("\0", "\uFFFD");
  return out;
}
