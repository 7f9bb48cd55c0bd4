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
