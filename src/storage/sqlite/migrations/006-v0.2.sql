-- v0.2 schema changes, in one file.

-- Messages that reached the archive with no time of their own (an Agenvoy record without sendAt or
-- header): the synthesized time beside their neighbours must not hide them behind the summary cursor.
-- Generate takes them once whatever the cursor says; a saved position past them removes them here.
CREATE TABLE untimed_messages (
  seq        INTEGER PRIMARY KEY,          -- messages.seq
  session_id TEXT NOT NULL
);
CREATE INDEX untimed_messages_session ON untimed_messages(session_id, seq);

-- Deletion leaves no text behind: FTS5 removes a deleted row's terms from its index pages at once
-- (SQLite's own secure_delete is set on every connection, see open-database.ts).
INSERT INTO messages_fts(messages_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO error_records_fts(error_records_fts, rank) VALUES ('secure-delete', 1);

-- A removed message's id (or idempotency key) as a sha256 hash, so a re-import or a retried add cannot
-- bring it back. The hash is of "id:" + id, or "key:" + session + "\n" + key.
CREATE TABLE tombstones (
  hash       TEXT PRIMARY KEY,
  removed_at INTEGER NOT NULL                -- ns
);

-- rm-message in flight: written before history.json is rewritten, deleted once the archive rows are gone.
-- Any later open finishes what a crash interrupted.
CREATE TABLE pending_removals (
  message_id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  created_at INTEGER NOT NULL
);

-- Vectors to delete by message id (rm-message), applied with vector_deletes under the vector write lock.
CREATE TABLE vector_id_deletes (
  id         TEXT PRIMARY KEY,
  created_at INTEGER NOT NULL
);
