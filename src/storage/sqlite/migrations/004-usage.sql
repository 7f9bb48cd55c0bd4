-- LLM token usage (one row per call) and the state of each session's rolling summary runs.
CREATE TABLE llm_usage (
  id            INTEGER PRIMARY KEY,
  at            INTEGER NOT NULL,            -- ns, when the answer arrived
  session_id    TEXT,                        -- NULL for calls not tied to a session
  purpose       TEXT NOT NULL,               -- summary | noise | supersede | relevance
  model         TEXT NOT NULL,
  input_tokens  INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL
);
CREATE INDEX llm_usage_session ON llm_usage(session_id, at);

-- One row per session: the last run, and the exact position the summary has reached.
-- position_* is the last summarized message (seq + id, immune to several messages sharing the cursor's
-- second); cursor_text is the .summary_cursor written with it, so a cursor changed behind our back is noticed.
-- pending_* is a chunk being committed (summary.json + cursor): rolled forward or dropped on the next run.
CREATE TABLE summary_runs (
  session_id     TEXT PRIMARY KEY,
  started_at     INTEGER NOT NULL,           -- ns
  finished_at    INTEGER,                    -- ns; NULL while running or after a crash
  outcome        TEXT NOT NULL,              -- running | ok | partial | failed | aborted | bootstrap | up-to-date | pruned
  error          TEXT,
  chunks_done    INTEGER NOT NULL DEFAULT 0,
  chunks_total   INTEGER NOT NULL DEFAULT 0,
  calls          INTEGER NOT NULL DEFAULT 0,
  input_tokens   INTEGER NOT NULL DEFAULT 0,
  output_tokens  INTEGER NOT NULL DEFAULT 0,
  position_seq   INTEGER,
  position_id    TEXT,
  cursor_text    TEXT,
  pending_seq    INTEGER,
  pending_id     TEXT,
  pending_cursor TEXT,
  pending_sha    TEXT
);
