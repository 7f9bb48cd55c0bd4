// Each session's history.json as memvoy last wrote it or found it to agree with the archive (sessions.history_stamp).
import type { Db } from "./db.ts";

export function historyStampOf(db: Db, session: string): string | undefined {
  const r = db.query("SELECT history_stamp AS stamp FROM sessions WHERE id = ?").get(session) as {
    stamp: string | null;
  } | null;
  return r?.stamp ?? undefined;
}

/** Every session's kept stamp, of the sessions that have one. */
export function historyStamps(db: Db): Map<string, string> {
  const rows = db.query("SELECT id, history_stamp AS stamp FROM sessions WHERE history_stamp IS NOT NULL").all() as {
    id: string;
    stamp: string;
  }[];
  return new Map(rows.map((r) => [r.id, r.stamp]));
}

/** Kept on the session's row: a session the archive has no row of (no message yet) keeps none. */
export function saveHistoryStamp(db: Db, session: string, stamp: string): void {
  db.query("UPDATE sessions SET history_stamp = ? WHERE id = ?").run(stamp, session);
}

export function forgetHistoryStamp(db: Db, session: string): void {
  db.query("UPDATE sessions SET history_stamp = NULL WHERE id = ?").run(session);
}
