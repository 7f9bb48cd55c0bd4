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

-- Session metadata for imported sessions, and what each import has read of each source file: session metadata for imported sessions, and what each import has read of each source file.
ALTER TABLE sessions ADD COLUMN source TEXT;     -- importer that created the session (claude-code, codex, ...)
ALTER TABLE sessions ADD COLUMN title TEXT;      -- the tool's own title or summary, else the first user line
ALTER TABLE sessions ADD COLUMN title_fallback INTEGER NOT NULL DEFAULT 0;  -- 1 while the title is only the first user line
ALTER TABLE sessions ADD COLUMN project TEXT;    -- cwd or repository
ALTER TABLE sessions ADD COLUMN parent TEXT;     -- the parent session of a sub-agent session
CREATE INDEX sessions_source ON sessions(source, project);

-- One row per source file an import has read: a re-run reads only what is new.
CREATE TABLE import_files (
  source     TEXT NOT NULL,
  path       TEXT NOT NULL,
  size       INTEGER NOT NULL,
  mtime_ns   INTEGER NOT NULL,
  offset     INTEGER NOT NULL DEFAULT 0,   -- byte offset after the last complete line read (JSONL)
  head       TEXT NOT NULL DEFAULT '',     -- hash of the file's first bytes: a replaced file reads again from 0
  state      TEXT NOT NULL DEFAULT '{}',   -- importer-specific JSON (e.g. the session a file belongs to)
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (source, path)
);
