-- v0.2 schema changes, in one file.

-- Messages that reached the archive with no time of their own (an Agenvoy record without sendAt or
-- header): the synthesized time beside their neighbours must not hide them behind the summary cursor.
-- Generate takes them once whatever the cursor says; a saved position past them removes them here.
CREATE TABLE untimed_messages (
  seq        INTEGER PRIMARY KEY,          -- messages.seq
  session_id TEXT NOT NULL
);
CREATE INDEX untimed_messages_session ON untimed_messages(session_id, seq);
