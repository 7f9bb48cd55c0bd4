-- memvoy_append in time linear in the batch. 002's version found the untimed rows by joining its
-- inserted rows to the batch, two CTEs whose sizes the planner can only guess, and it ran that join as a
-- nested loop: n² steps under the session's lock (30,000 lines took over a minute). Now the batch is
-- checked against the messages table itself (index lookups), and the untimed rows it inserts are picked
-- by id before the insert and recorded after it, each an index lookup.
CREATE OR REPLACE FUNCTION memvoy_append(
  p_lock integer, p_session text, p_now bigint, p_queue boolean,
  p_ids text[], p_roles text[], p_contents text[], p_send_ats bigint[], p_senders text[], p_keys text[],
  p_searches text[], p_untimed boolean[])
RETURNS TABLE (seq bigint, id text, session_id text, role text, content text, send_at bigint, sender text,
  recent boolean, idempotency_key text, added boolean)
LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
DECLARE
  v_untimed text[];
BEGIN
  PERFORM pg_advisory_xact_lock(p_lock, hashtext(p_session));
  -- The insert below takes an id's first row in the batch, and only when no stored message has that id.
  IF true = ANY(p_untimed) THEN
    v_untimed := ARRAY(
      SELECT u.id FROM (
        SELECT DISTINCT ON (t.id) t.id, t.untimed
        FROM unnest(p_ids, p_untimed) WITH ORDINALITY AS t(id, untimed, ord) ORDER BY t.id, t.ord
      ) u
      WHERE u.untimed AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = u.id));
  END IF;
  RETURN QUERY
  WITH input AS (
    SELECT t.* FROM unnest(p_ids, p_roles, p_contents, p_send_ats, p_senders, p_keys, p_searches, p_untimed)
      WITH ORDINALITY AS t(id, role, content, send_at, sender, key, search, untimed, ord)
  ), existing AS (
    SELECT m.seq, m.id, m.session_id, m.role, m.content, m.send_at, m.sender, m.recent, m.idempotency_key
    FROM messages m WHERE m.id = ANY(p_ids)
    UNION
    SELECT m.seq, m.id, m.session_id, m.role, m.content, m.send_at, m.sender, m.recent, m.idempotency_key
    FROM messages m WHERE m.session_id = p_session AND m.idempotency_key = ANY(p_keys)
  ), candidates AS (
    SELECT i.*, row_number() OVER (PARTITION BY i.id ORDER BY i.ord) AS id_n,
      row_number() OVER (PARTITION BY i.key ORDER BY i.ord) AS key_n
    FROM input i
    WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = i.id)
      AND (i.key IS NULL OR NOT EXISTS (
        SELECT 1 FROM messages m WHERE m.session_id = p_session AND m.idempotency_key = i.key))
  ), fresh AS (
    SELECT c.* FROM candidates c WHERE c.id_n = 1 AND (c.key IS NULL OR c.key_n = 1)
  ), inserted AS (
    INSERT INTO messages (id, session_id, role, content, send_at, sender, idempotency_key, search)
    SELECT f.id, p_session, f.role, f.content, f.send_at, f.sender, f.key, f.search::tsvector
    FROM fresh f ORDER BY f.ord
    RETURNING messages.seq, messages.id, messages.session_id, messages.role, messages.content, messages.send_at,
      messages.sender, messages.recent, messages.idempotency_key
  ), queued AS (
    INSERT INTO embed_queue (seq) SELECT ins.seq FROM inserted ins WHERE p_queue
  ), totals AS (
    SELECT count(*) AS n, coalesce(max(ins.send_at), 0) AS last FROM inserted ins
  ), counted AS (
    INSERT INTO sessions (id, created_at, updated_at, last_send_at, message_count)
    SELECT p_session, p_now, p_now, t.last, t.n FROM totals t WHERE t.n > 0
    ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at,
      last_send_at = greatest(sessions.last_send_at, excluded.last_send_at),
      message_count = sessions.message_count + excluded.message_count
  )
  SELECT e.*, false FROM existing e
  UNION ALL
  SELECT ins.*, true FROM inserted ins;
  IF cardinality(v_untimed) > 0 THEN
    INSERT INTO untimed_messages (seq, session_id)
    SELECT m.seq, p_session FROM messages m WHERE m.id = ANY(v_untimed) AND m.session_id = p_session;
  END IF;
END
$$;

-- A count that moves in the same transaction as every write of tombstones (rm-message, reset, rm, an
-- import's removal): a host compares it with the count it last checked its caches against, so it knows
-- whether they may hold a removed message without reading them. A statement trigger, so that every path
-- that writes tombstones counts; removals are rare, so the one row is no hot spot.
CREATE TABLE removal_count (n bigint NOT NULL);
INSERT INTO removal_count (n) VALUES (0);

CREATE FUNCTION memvoy_count_removal() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE removal_count SET n = n + 1;
  RETURN NULL;
END
$$;

CREATE TRIGGER tombstones_counted AFTER INSERT ON tombstones
  FOR EACH STATEMENT EXECUTE FUNCTION memvoy_count_removal();
