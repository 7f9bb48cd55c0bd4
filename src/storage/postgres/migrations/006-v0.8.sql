-- v0.8 schema changes, in one file.

-- The senders a ranked search looks for in its query (a participant named there prefers their messages), read
-- one name at a time through this index: a few probes, not a scan of the messages. With the session, the check of
-- a sender in one session is one probe too.
CREATE INDEX messages_sender ON messages (sender, session_id) WHERE sender IS NOT NULL;

-- Keyword search's symbol match over archived rows (`=>`, `.env`, `std::vector`) is an ILIKE over them, newest first,
-- with no index of its own: a trigram index over every archived row would be built here (minutes on a large shared
-- archive, every host waiting) and written by every compaction.
