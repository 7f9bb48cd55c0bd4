-- v0.2: session metadata for imported sessions, and what each import has read of each source file.
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
