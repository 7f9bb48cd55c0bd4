// Agenvoy's triggers in memvoy's archive. Agenvoy run on a home whose .store/history.db is memvoy's (after doctor
// --repair moved its own aside) adds its schema there at each start: two triggers on `messages` feed its FTS table
// messages_fts5 with `new.id` as the rowid, which memvoy's text ids make fail ("datatype mismatch") on every insert
// and delete. They are replaced by memvoy's under the same names, which Agenvoy's CREATE TRIGGER IF NOT EXISTS then
// leaves alone: the insert one does nothing, the delete one refuses a deletion memvoy did not make (Agenvoy's
// reset would delete the session's archived rows behind memvoy's indexes, tombstones and vectors).
import type { Database } from "bun:sqlite";

const INSERT_TRIGGER = "trigger_messages_after_insert";
const DELETE_TRIGGER = "trigger_messages_after_delete";

const MEMVOY_INSERT = `CREATE TRIGGER ${INSERT_TRIGGER} AFTER INSERT ON messages WHEN 0 BEGIN SELECT 1; END`;
const MEMVOY_DELETE = `CREATE TRIGGER ${DELETE_TRIGGER} BEFORE DELETE ON messages BEGIN
  SELECT RAISE(ABORT, 'this archive is memvoy''s: remove messages with memvoy reset, rm or rm-message');
END`;

/** The schema version at which each connection last found no trigger of Agenvoy's. */
const checked = new WeakMap<Database, bigint>();

function schemaVersion(db: Database): bigint {
  return BigInt((db.query("PRAGMA schema_version").get() as { schema_version: bigint | number }).schema_version);
}

/**
 * Inside a write transaction: replace Agenvoy's triggers on `messages`, if it added them, by memvoy's. Looked for
 * again only when the schema has changed since (another program's CREATE moves the schema version).
 */
export function replaceAgenvoyTriggers(db: Database): void {
  const version = schemaVersion(db);
  if (checked.get(db) === version) return;
  const found = db
    .query(
      "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'messages' AND name IN (?, ?) AND sql LIKE '%messages_fts5%'",
    )
    .all(INSERT_TRIGGER, DELETE_TRIGGER) as { name: string }[];
  if (found.length > 0) {
    db.run(`DROP TRIGGER IF EXISTS ${INSERT_TRIGGER}`);
    db.run(`DROP TRIGGER IF EXISTS ${DELETE_TRIGGER}`);
    db.run(MEMVOY_INSERT);
    db.run(MEMVOY_DELETE);
  }
  checked.set(db, schemaVersion(db));
}

/** Run memvoy's own deletion of `messages` rows past the guard that replaced Agenvoy's delete trigger, if any. */
export function deletingMessages<T>(db: Database, fn: () => T): T {
  const guarded = db.query("SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = ?").get(DELETE_TRIGGER);
  if (guarded === null) return fn();
  // Dropped and made again inside the caller's transaction: no other connection ever sees the archive unguarded.
  db.run(`DROP TRIGGER ${DELETE_TRIGGER}`);
  const out = fn();
  db.run(MEMVOY_DELETE);
  checked.set(db, schemaVersion(db));
  return out;
}
