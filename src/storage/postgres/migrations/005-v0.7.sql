-- v0.7 schema changes, in one file.

-- Keyword search's substring match over the recent tier (a fragment inside a word: `netes` in kubernetes) is
-- an ILIKE on the recent rows. A trigram index serves it where pg_trgm can be created (it is a trusted
-- extension: the database's owner may); where it cannot, the match scans the recent rows, which compaction
-- keeps small per session.
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
  CREATE INDEX messages_recent_trgm ON messages USING gin (content gin_trgm_ops) WHERE recent;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'pg_trgm is not available (%): substring search scans the recent messages', SQLERRM;
END
$$;
