-- v0.9 schema changes, in one file.

-- Each session's history.json as memvoy last wrote it or found it to agree with the archive: its identity
-- (inode:size:mtime ns). A read of the session stats the file and compares: another program's change (Agenvoy
-- appending to the file) is adopted before the read, and an unchanged file is never parsed.
CREATE TABLE history_stamps (
  session_id TEXT PRIMARY KEY,
  stamp      TEXT NOT NULL
) WITHOUT ROWID;
