// Session metadata rows: counts and activity, listed for `sessions` and the TUI.
import type { Database } from "bun:sqlite";

export interface SessionRow {
  id: string;
  createdAt: bigint;
  updatedAt: bigint;
  lastSendAt: bigint;
  messageCount: number;
}

interface Raw {
  id: string;
  created_at: bigint;
  updated_at: bigint;
  last_send_at: bigint;
  message_count: bigint;
}

const COLUMNS = "id, created_at, updated_at, last_send_at, message_count";

const toRow = (r: Raw): SessionRow => ({
  id: r.id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  lastSendAt: r.last_send_at,
  messageCount: Number(r.message_count),
});

export function listSessionRows(db: Database): SessionRow[] {
  return (db.query(`SELECT ${COLUMNS} FROM sessions`).all() as Raw[]).map(toRow);
}

/** How many sessions the archive has rows for. */
export function sessionRowCount(db: Database): number {
  return Number((db.query("SELECT count(*) AS n FROM sessions").get() as { n: bigint }).n);
}

/** The names among `names` that no session row has, in their order (one query, however many names). */
export function namesWithoutSession(db: Database, names: readonly string[]): string[] {
  if (names.length === 0) return [];
  const rows = db
    .query("SELECT value FROM json_each(?) WHERE value NOT IN (SELECT id FROM sessions) ORDER BY key")
    .values(JSON.stringify(names)) as [string][];
  return rows.map((r) => r[0]);
}

export function getSessionRow(db: Database, id: string): SessionRow | undefined {
  const r = db.query(`SELECT ${COLUMNS} FROM sessions WHERE id = ?`).get(id) as Raw | null;
  return r ? toRow(r) : undefined;
}

export function deleteSessionRow(db: Database, id: string): void {
  db.prepare("DELETE FROM sessions WHERE id = ?").run(id);
}
