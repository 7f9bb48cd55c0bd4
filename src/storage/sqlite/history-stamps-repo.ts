// Each session's history.json as memvoy last wrote it or found it to agree with the archive (history_stamps).
import type { Db } from "./db.ts";

export function historyStampOf(db: Db, session: string): string | undefined {
  const r = db.query("SELECT stamp FROM history_stamps WHERE session_id = ?").get(session) as { stamp: string } | null;
  return r?.stamp;
}

export function saveHistoryStamp(db: Db, session: string, stamp: string): void {
  db.query("INSERT OR REPLACE INTO history_stamps (session_id, stamp) VALUES (?, ?)").run(session, stamp);
}

export function forgetHistoryStamp(db: Db, session: string): void {
  db.query("DELETE FROM history_stamps WHERE session_id = ?").run(session);
}
