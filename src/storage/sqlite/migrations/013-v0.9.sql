-- v0.9 schema changes, in one file.

-- Each session's history.json as memvoy last wrote it or found it to agree with the archive: its identity
-- (inode:size:mtime ns). A read of the session stats the file and compares: another program's change (Agenvoy
-- appending to the file) is adopted before the read, and an unchanged file is never parsed. A column of the
-- session's row, which every add writes anyway: a table of its own cost each add a page more to commit.
ALTER TABLE sessions ADD COLUMN history_stamp TEXT;
