// SQL for semantic and hybrid search: participants and session neighbours.
import type { Database } from "bun:sqlite";
import type { StoredMessage } from "../../shared/message.ts";
import { MESSAGE_COLUMNS, toStored } from "./messages-repo.ts";

type Row = Parameters<typeof toStored>[0];
const COLS = MESSAGE_COLUMNS.split(", ")
  .map((c) => "m." + c)
  .join(", ");

/**
 * Distinct senders (of one session, or of all), walked through the sender index one name at a time, so
 * the cost grows with the number of names, not of messages.
 */
export function knownSenders(db: Database, session?: string, limit = 500): string[] {
  const next = db.query("SELECT min(sender) AS s FROM messages WHERE sender IS NOT NULL AND sender > ?");
  const inSession = db.query(
    "SELECT 1 FROM messages WHERE sender IS NOT NULL AND sender = ? AND session_id = ? LIMIT 1",
  );
  const out: string[] = [];
  let after = "";
  for (let i = 0; i < limit * 4 && out.length < limit; i++) {
    const row = next.get(after) as { s: string | null } | null;
    if (!row?.s) break;
    after = row.s;
    if (session === undefined || inSession.get(after, session)) out.push(after);
  }
  return out;
}

/** Up to `before` recent messages before `seq` and `after` after it, in the same session, in order. */
export function recentNeighbours(
  db: Database,
  session: string,
  seq: bigint,
  before: number,
  after: number,
): StoredMessage[] {
  const prev = db
    .query(
      `SELECT ${COLS} FROM messages m WHERE m.session_id = ? AND m.recent = 1 AND m.seq < ? ORDER BY m.seq DESC LIMIT ?`,
    )
    .all(session, seq, before) as Row[];
  const next = db
    .query(
      `SELECT ${COLS} FROM messages m WHERE m.session_id = ? AND m.recent = 1 AND m.seq > ? ORDER BY m.seq ASC LIMIT ?`,
    )
    .all(session, seq, after) as Row[];
  return prev.reverse().concat(next).map(toStored);
}
