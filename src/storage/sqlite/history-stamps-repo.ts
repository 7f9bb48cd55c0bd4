// Each session's history.json as memvoy last wrote it or found it to agree with the archive (sessions.history_stamp),
// and the form its sendAt takes (sessions.history_style), remembered across the file's deletion.
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

/** The remembered form of the session's history.json: "ns" (Agenvoy's), "rfc3339", or undefined when unknown. */
export function historyStyleOf(db: Db, session: string): "ns" | "rfc3339" | undefined {
  const r = db.query("SELECT history_style AS style FROM sessions WHERE id = ?").get(session) as {
    style: string | null;
  } | null;
  return r?.style === "ns" || r?.style === "rfc3339" ? r.style : undefined;
}

/**
 * Kept on the session's row, as the stamp is. With `now`, a session with no row yet (a reset of a file the archive
 * never adopted) is given one, holding no message.
 */
export function saveHistoryStyle(db: Db, session: string, style: "ns" | "rfc3339", now?: bigint): void {
  if (now !== undefined)
    db.query(
      `INSERT INTO sessions (id, created_at, updated_at, history_style) VALUES (?1, ?2, ?2, ?3)
       ON CONFLICT(id) DO UPDATE SET history_style = ?3 WHERE history_style IS NOT ?3`,
    ).run(session, now, style);
  else
    db.query("UPDATE sessions SET history_style = ? WHERE id = ? AND history_style IS NOT ?").run(
      style,
      session,
      style,
    );
}
