-- v0.3 schema changes, in one file.

-- The summary and its cursor as the archive holds them (the archive port's source of truth; in the embedded
-- home summary.json and .summary_cursor stay authoritative and this table is filled only through the port).
CREATE TABLE session_summaries (
  session_id TEXT PRIMARY KEY,
  summary    TEXT NOT NULL,
  cursor     TEXT NOT NULL,
  version    INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

-- One lease per (job, session): the holder runs the job until expires_at (ns).
CREATE TABLE job_leases (
  job        TEXT NOT NULL,
  session_id TEXT NOT NULL,
  holder     TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (job, session_id)
);
