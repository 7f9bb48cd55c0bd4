-- The embedding queue (filled with each new message, drained in the background) and pending vector deletions.
CREATE TABLE embed_queue (
  seq         INTEGER PRIMARY KEY,          -- messages.seq waiting for a vector
  attempts    INTEGER NOT NULL DEFAULT 0,
  last_error  TEXT,
  next_try_at INTEGER NOT NULL DEFAULT 0    -- ns; back-off after a failure
);

-- "Delete this session's vectors with seq < before_seq": written by compaction, reset and rm, applied by the drain.
CREATE TABLE vector_deletes (
  id         INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  before_seq INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);

-- Small key/value state of the semantic tier (e.g. the embedder a reindex is rebuilding for).
CREATE TABLE embed_state (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- Who speaks in a session (a query naming a participant prefers their messages): distinct senders by
-- index skip, without scanning the archive.
CREATE INDEX messages_sender ON messages(sender, session_id) WHERE sender IS NOT NULL;
