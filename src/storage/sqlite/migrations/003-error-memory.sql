-- Error memory: tool errors and their fix, shared by every session, with a TTL refreshed on each hit.
CREATE TABLE error_records (
  seq          INTEGER PRIMARY KEY,         -- rowid of the FTS row
  id           TEXT NOT NULL UNIQUE,        -- short lowercase hex id; any unique prefix finds it
  tool         TEXT NOT NULL COLLATE NOCASE,
  signature    TEXT NOT NULL,               -- the error with numbers, paths, ids, hex and quoted parts normalised away
  error        TEXT NOT NULL,               -- every text column holds redacted text only
  cause        TEXT,
  fix          TEXT NOT NULL,
  outcome      TEXT NOT NULL CHECK (outcome IN ('resolved', 'failed', 'abandoned')),
  keywords     TEXT NOT NULL DEFAULT '[]',  -- JSON array of lower-case strings
  created_at   INTEGER NOT NULL,            -- ns
  updated_at   INTEGER NOT NULL,            -- ns, last record/merge
  last_hit_at  INTEGER NOT NULL DEFAULT 0,  -- ns, last time a search returned it; 0 = never
  expires_at   INTEGER NOT NULL,            -- ns; the record is invisible from this instant on
  hits         INTEGER NOT NULL DEFAULT 0,  -- times a search returned it
  occurrences  INTEGER NOT NULL DEFAULT 1,  -- times it was recorded (merges included)
  revision     INTEGER NOT NULL DEFAULT 1,  -- bumped whenever the error text changes (guards late vector writes)
  embedded_by  TEXT                         -- embedder id of its stored vector; NULL = not embedded yet
);
CREATE UNIQUE INDEX error_records_signature ON error_records(tool, signature);
CREATE INDEX error_records_expires ON error_records(expires_at);
CREATE INDEX error_records_pending ON error_records(embedded_by);

-- Contentless index over the search form of error, cause, fix and keywords, the same form as messages_fts:
-- Latin words as Porter2 stems, CJK runs as bigrams (src/shared/search-form.ts).
CREATE VIRTUAL TABLE error_records_fts USING fts5(
  error, cause, fix, keywords, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2'
);

-- Vectors to delete from the LanceDB error tables (rm, sweep), applied after the SQLite change commits.
CREATE TABLE error_vector_deletes (
  id         TEXT PRIMARY KEY,
  created_at INTEGER NOT NULL
);
