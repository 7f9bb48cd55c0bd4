-- v0.6 schema changes, in one file.

-- The substring index by tier: messages_trigram keeps the recent rows and messages_trigram_archived takes the
-- archived ones, so a search of the recent tier reads only the recent rows' trigrams (in a home whose messages
-- are mostly archived, the recent tier is a small part of one shared index). Compaction moves a row from one
-- to the other. Rows indexed before this are placed in the background (substring-index-split.ts), once the
-- index is built, from trigram_split.cursor on; until then a row after the cursor is in messages_trigram
-- whatever its tier. A home with nothing archived has nothing to place.
CREATE VIRTUAL TABLE messages_trigram_archived USING fts5(
  body, content='', contentless_delete=1, detail=none, tokenize='trigram case_sensitive 0'
);
INSERT INTO messages_trigram_archived(messages_trigram_archived, rank) VALUES ('secure-delete', 1);
CREATE VIRTUAL TABLE messages_trigram_archived_terms USING fts5vocab(messages_trigram_archived, 'instance');
-- Rows leaving the recent table (compaction) are only marked deleted there: FTS5 would otherwise rewrite a
-- whole segment in the transaction that marks a tenth of its rows, seconds for a large one. The marked rows
-- are dropped by the split's last steps and by maintenance, in short merge steps.
INSERT INTO messages_trigram(messages_trigram, rank) VALUES ('deletemerge', 0);
CREATE TABLE trigram_split (
  id     INTEGER PRIMARY KEY CHECK (id = 1),
  cursor INTEGER NOT NULL DEFAULT 0,
  moved  INTEGER NOT NULL DEFAULT 0,         -- rows the split has moved (it then merges the recent table)
  done   INTEGER NOT NULL DEFAULT 0
);
INSERT INTO trigram_split (id, cursor, done) SELECT 1, 0, NOT EXISTS (SELECT 1 FROM message_meta);
