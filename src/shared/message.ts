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
