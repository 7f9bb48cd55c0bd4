// Each session's history.json as memvoy last wrote it or found it to agree with the archive (sessions.history_stamp).
import type { Db } from "./db.ts";

export function historyStampOf(db: Db, session: string): string | undefined {
  const r = db.query("SELECT history_stamp AS stamp FROM sessions WHERE id = ?").get(session) as {
    stamp: string | null;
  } | null;
  return r?.stamp ?? undefined;
}

/** Kept on the session's row: a session the archive has no row of (no message yet) keeps none. */
export function saveHistoryStamp(db: Db, session: string, stamp: string): void {
  db.query("UPDATE sessions SET history_stamp = ? WHERE id = ?").run(stamp, session);
}

export function forgetHistoryStamp(db: Db, session: string): void {
  db.query("UPDATE sessions SET history_stamp = NULL WHERE id = ?").run(session);
}
