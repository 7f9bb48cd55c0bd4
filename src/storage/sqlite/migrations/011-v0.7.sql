-- v0.7 schema changes, in one file.

-- The recent rows by send time: a search with a time range over the recent tier reads the rows in the range
-- and checks their text, when the range holds few rows (the last day of a large recent tier), instead of
-- walking the substring index's candidates back to the oldest row. Seqs are not in time order (an import
-- adds old messages with new seqs), so the walk alone cannot stop at the range's start.
CREATE INDEX IF NOT EXISTS messages_recent_time ON messages(send_at) WHERE recent = 1;
