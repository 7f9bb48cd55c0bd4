-- Sessions, the message archive (every message ever written), its FTS5 index and the compaction cutoff.
CREATE TABLE sessions (
  id            TEXT PRIMARY KEY,
  created_at    INTEGER NOT NULL,            -- ns, first write
  updated_at    INTEGER NOT NULL,            -- ns, last write (activity)
  last_send_at  INTEGER NOT NULL DEFAULT 0,  -- ns, newest message time
  message_count INTEGER NOT NULL DEFAULT 0
);

-- seq is the insertion order and so the session's order; id is shared with history.json and LanceDB.
CREATE TABLE messages (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused, so "seq < X" bounds stay true after reset and rm
  id         TEXT NOT NULL UNIQUE,
  session_id TEXT NOT NULL,
  role       TEXT NOT NULL,
  content    TEXT NOT NULL,
  send_at    INTEGER NOT NULL,
  sender     TEXT,
  recent     INTEGER NOT NULL DEFAULT 1      -- 1 while the message is still in history.json
);
CREATE INDEX messages_session ON messages(session_id, seq);
CREATE INDEX messages_recent ON messages(session_id, seq) WHERE recent = 1;

-- Contentless index over the search form of the text (Porter2 stems, CJK bigrams: src/shared/search-form.ts); the text stays in messages.
CREATE VIRTUAL TABLE messages_fts USING fts5(
  body, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2'
);

CREATE TABLE message_meta (
  session_id TEXT PRIMARY KEY,
  start_at   INTEGER NOT NULL DEFAULT 0,     -- ns, sendAt of the first message left in history.json
  start_seq  INTEGER NOT NULL DEFAULT 0      -- seq of that message (exact cutoff, immune to clock ties)
);
