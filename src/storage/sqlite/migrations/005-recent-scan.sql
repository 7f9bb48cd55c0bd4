-- Covering index over the recent tier for the substring scan across sessions: walked newest-first without
-- reading the table, so a rare needle costs a pass over recent text only, not over the whole archive.
CREATE INDEX messages_recent_text ON messages(seq, session_id, send_at, content) WHERE recent = 1;
