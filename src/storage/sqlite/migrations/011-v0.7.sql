-- v0.7 schema changes, in one file.

-- The start of each long message (an agent's tool output: a whole file, a long log), as ranking reads it
-- (ranked-text.ts): its first 4,097 characters. SQLite reads a value whole even for substr(), so ranking a
-- window of long rows from messages.content read every row's overflow pages in full. The writers of messages
-- add it (message-starts.ts; a trigger on insert would make each row's insert a statement of its own, and FTS5
-- writes a segment at each); triggers keep it on every edit and removal (a removed message leaves no text
-- behind here either). Rows written before are copied in the background (message-starts-build.ts) from
-- message_starts_build.cursor up to `upto`; until then ranking reads such a row's start from messages, as before.
CREATE TABLE message_starts (
  seq  INTEGER PRIMARY KEY,
  head TEXT NOT NULL
);
CREATE TRIGGER message_starts_update AFTER UPDATE OF content ON messages BEGIN
  DELETE FROM message_starts WHERE seq = OLD.seq;
  INSERT INTO message_starts (seq, head)
    SELECT NEW.seq, substr(NEW.content, 1, 4097) WHERE octet_length(NEW.content) > 4096;
END;
CREATE TRIGGER message_starts_delete AFTER DELETE ON messages BEGIN
  DELETE FROM message_starts WHERE seq = OLD.seq;
END;
CREATE TABLE message_starts_build (
  id     INTEGER PRIMARY KEY CHECK (id = 1),
  cursor INTEGER NOT NULL DEFAULT 0,
  upto   INTEGER NOT NULL DEFAULT 0
);
INSERT INTO message_starts_build (id, cursor, upto) SELECT 1, 0, coalesce(max(seq), 0) FROM messages;
