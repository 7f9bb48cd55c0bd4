-- v0.5 schema changes, in one file.

-- Each message's length in keyword-index tokens (the body column of its messages_fts_docsize record), read
-- with the row when a match window is ranked instead of one docsize lookup per row. NULL until counted:
-- writers count every row they index; rows written before are counted in the background
-- (index-tokens-build.ts), from index_tokens_build.cursor on. Ranking reads docsize for a row still NULL.
ALTER TABLE messages ADD COLUMN index_tokens INTEGER;
CREATE TABLE index_tokens_build (
  id     INTEGER PRIMARY KEY CHECK (id = 1),
  cursor INTEGER NOT NULL DEFAULT 0,
  done   INTEGER NOT NULL DEFAULT 0
);
INSERT INTO index_tokens_build (id, cursor, done) SELECT 1, 0, NOT EXISTS (SELECT 1 FROM messages);
