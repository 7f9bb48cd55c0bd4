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
}

/** A message as the archive holds it: the record plus its session and its position (seq). */
export interface StoredMessage extends MessageRecord {
  seq: bigint;
  session: string;
  /** true while the message is still in history.json (the recent tier). */
  recent: boolean;
}
