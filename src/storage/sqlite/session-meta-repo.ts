// Session metadata (source, title, project, parent) for sessions created by an importer.
import type { Database } from "bun:sqlite";

export interface SessionMeta {
  source?: string;
  title?: string;
  project?: string;
  parent?: string;
}

export interface MetaUpdate extends SessionMeta {
  /** The title is only the first user line: it never replaces a title the tool gave. */
  titleIsFallback?: boolean;
}

interface Raw {
  id: string;
  source: string | null;
  title: string | null;
  project: string | null;
  parent: string | null;
}

function toMeta(r: Raw): SessionMeta {
  const m: SessionMeta = {};
  if (r.source !== null) m.source = r.source;
  if (r.title !== null) m.title = r.title;
  if (r.project !== null) m.project = r.project;
  if (r.parent !== null) m.parent = r.parent;
  return m;
}

/** Create the session row when missing and set the given fields; absent fields keep their value. */
export function upsertSessionMeta(db: Database, id: string, meta: MetaUpdate, now: bigint): void {
  db.query("INSERT INTO sessions (id, created_at, updated_at) VALUES (?1, ?2, ?2) ON CONFLICT(id) DO NOTHING").run(
    id,
    now,
  );
  const set = (column: string, value: string | undefined) => {
    if (value !== undefined) db.query(`UPDATE sessions SET ${column} = ? WHERE id = ?`).run(value, id);
  };
  set("source", meta.source);
  set("project", meta.project);
  set("parent", meta.parent);
  if (meta.title !== undefined) {
    if (meta.titleIsFallback)
      db.query(
        "UPDATE sessions SET title = ?, title_fallback = 1 WHERE id = ? AND (title IS NULL OR title_fallback = 1)",
      ).run(meta.title, id);
    else db.query("UPDATE sessions SET title = ?, title_fallback = 0 WHERE id = ?").run(meta.title, id);
  }
}

export function getSessionMeta(db: Database, id: string): SessionMeta | undefined {
  const r = db.query("SELECT id, source, title, project, parent FROM sessions WHERE id = ?").get(id) as Raw | null;
  return r ? toMeta(r) : undefined;
}

export function listSessionMeta(db: Database): Map<string, SessionMeta> {
  const rows = db.query("SELECT id, source, title, project, parent FROM sessions").all() as Raw[];
  return new Map(rows.map((r) => [r.id, toMeta(r)]));
}

/** A title as it appears in the message an importer may have taken it from: without the ellipsis that cut it. */
const titleCore = (title: string) => (title.endsWith("…") ? title.slice(0, -1) : title);

/** Whether a text holds a title (an importer may have taken it from its first line: titleFrom). */
export function holdsTitle(text: string, title: string): boolean {
  const core = titleCore(title);
  return core.trim() !== "" && text.includes(core);
}

/** titleCore in SQL, of the column `sessions.title`. */
const TITLE_CORE_SQL =
  "CASE WHEN substr(sessions.title, -1) = '…' THEN substr(sessions.title, 1, length(sessions.title) - 1) ELSE sessions.title END";

/**
 * Clear the session's title when a message about to be removed holds it (holdsTitle): an importer took it from
 * that message, and no copy of removed text may remain. `seq`: the one message removed; none: all of the session's.
 */
export function forgetTitleOfRemoved(db: Database, session: string, seq?: bigint): void {
  db.query(
    `UPDATE sessions SET title = NULL, title_fallback = 0 WHERE id = ?1 AND title IS NOT NULL AND trim(${TITLE_CORE_SQL}) <> ''
     AND EXISTS (SELECT 1 FROM messages m WHERE m.session_id = ?1${seq === undefined ? "" : " AND m.seq = ?2"} AND instr(m.content, ${TITLE_CORE_SQL}) > 0)`,
  ).run(...(seq === undefined ? [session] : [session, seq]));
}
