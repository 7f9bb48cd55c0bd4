-- v0.8 schema changes, in one file.

-- The senders a ranked search looks for in its query (a participant named there prefers their messages), read
-- one name at a time through this index: a few probes, not a scan of the messages. With the session, the check of
-- a sender in one session is one probe too.
CREATE INDEX messages_sender ON messages (sender, session_id) WHERE sender IS NOT NULL;

-- Keyword search's symbol match over archived rows (a query of `=>`, `.env` or `std::vector` finds the messages
-- that hold it, as the embedded archive's substring index does): an ILIKE on the archived rows. A trigram index
-- serves it where pg_trgm can be created; only archived rows are in it, so an append (its rows are recent) does
-- not write to it: compaction does. Where the extension cannot be created, the match scans the archived rows,
-- newest first, until it has its page. pg_trgm keeps letters and digits only: pieces of punctuation alone (`=>`,
-- `&&`) are scanned either way.
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
  CREATE INDEX messages_archived_trgm ON messages USING gin (content gin_trgm_ops) WHERE NOT recent;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'pg_trgm is not available (%): symbol search scans the archived messages', SQLERRM;
END
$$;
