-- v0.4 schema changes, in one file.

-- Substring index: every message's text (runs of whitespace as one space, two spaces appended) as FTS5
-- trigrams, case folded, rows only (detail=none). A case-insensitive substring or symbol search reads the
-- rows holding the needle's trigrams instead of every row; a needle of one or two characters reads the rows
-- of the trigrams it begins (messages_trigram_terms; the appended spaces give every character of the text a
-- trigram of its own). The migration only creates it: existing messages are indexed in the background
-- (substring-index-build.ts), and search keeps the scan until trigram_build.done.
CREATE VIRTUAL TABLE messages_trigram USING fts5(
  body, content='', contentless_delete=1, detail=none, tokenize='trigram case_sensitive 0'
);
INSERT INTO messages_trigram(messages_trigram, rank) VALUES ('secure-delete', 1);
CREATE VIRTUAL TABLE messages_trigram_terms USING fts5vocab(messages_trigram, 'instance');
-- Rows with seq <= cursor are indexed (writers index those and, once done, every row). A home with no
-- message yet is complete at once.
CREATE TABLE trigram_build (
  id     INTEGER PRIMARY KEY CHECK (id = 1),
  cursor INTEGER NOT NULL DEFAULT 0,
  done   INTEGER NOT NULL DEFAULT 0
);
INSERT INTO trigram_build (id, cursor, done) SELECT 1, 0, NOT EXISTS (SELECT 1 FROM messages);
