// Session metadata rows: counts and activity, listed for `sessions` and the TUI.
import type { Database } from "bun:sqlite";

export interface SessionRow {
  id: string;
  createdAt: bigint;
  updatedAt: bigint;
  lastSendAt: bigint;
  messageCount: number;
}

export function listSessionRows(db: Database): SessionRow[] {
  const rows = db.query("SELECT id, created_at, updated_at, last_send_at, message_count FROM sessions").all() as {
    id: string;
    created_at: bigint;
    updated_at: bigint;
    last_send_at: bigint;
    message_count: bigint;
  }[];
  return rows.map((r) => ({
    id: r.id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    lastSendAt: r.last_send_at,
    messageCount: Number(r.message_count),
  }));
}

export function getSessionRow(db: Database, id: string): SessionRow | undefined {
  return listSessionRowsWhere(db, id)[0];
}

function listSessionRowsWhere(db: Database, id: string): SessionRow[] {
  const r = db.query("SELECT id, created_at, updated_at, last_send_at, message_count FROM sessions WHERE id = ?").get(id) as {
    id: string;
    created_at: bigint;
    updated_at: bigint;
    last_send_at: bigint;
    message_count: bigint;
  } | null;
  return r
    ? [{ id: r.id, createdAt: r.created_at, updatedAt: r.updated_at, lastSendAt: r.last_send_at, messageCount: Number(r.message_count) }]
    : [];
}

export function deleteSessionRow(db: Database, id: string): void {
  db.prepare("DELETE FROM sessions WHERE id = ?").run(id);
}

/** Record a session that exists without messages yet (so it is listed). */
export function touchSession(db: Database, id: string, now: bigint): void {
  db.prepare("INSERT INTO sessions (id, created_at, updated_at) VALUES (?1, ?2, ?2) ON CONFLICT(id) DO NOTHING").run(id, now);
}
