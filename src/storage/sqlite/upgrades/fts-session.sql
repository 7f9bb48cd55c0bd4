-- Background index upgrade (not a numbered migration: it rebuilds the whole FTS index in small steps, so
-- the schema migration stays instant and `add` never waits for it). The new index carries, next to the
-- search form of the text, one token per session (column sess), so a session's matches are one FTS
-- expression instead of a filter over every match in the archive. Built beside messages_fts, then swapped in.
CREATE TABLE IF NOT EXISTS fts_upgrade (
  name    TEXT PRIMARY KEY,                  -- which upgrade
  cursor  INTEGER NOT NULL DEFAULT 0,        -- highest messages.seq copied so far
  started INTEGER NOT NULL                   -- ms since the epoch
);
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts_next USING fts5(
  body, sess, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2'
);
-- As for messages_fts (006-v0.2.sql): a deleted row's terms leave the index pages at once.
INSERT INTO messages_fts_next(messages_fts_next, rank) VALUES ('secure-delete', 1);
