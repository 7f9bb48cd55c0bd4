-- v0.8 schema changes, in one file.

-- Whether a message may hold İ or the Kelvin sign. JS lower-cases them into i̇ and k, which LIKE does not fold
-- them to, so every substring LIKE for a needle with a k (or ending in i) also looked for them with instr(),
-- which reads each text through: a third of a one-word window's SQL. A home whose messages hold neither
-- (`seen` 0, the scan done) leaves it out (folded-letters.ts). The writers of messages set `seen` when one
-- holds either, a trigger on edits; messages written before are scanned in the background
-- (folded-letters-build.ts) from `cursor` up to `upto`, and until then the home may hold them.
CREATE TABLE folded_letters (
  id     INTEGER PRIMARY KEY CHECK (id = 1),
  seen   INTEGER NOT NULL DEFAULT 0,
  cursor INTEGER NOT NULL DEFAULT 0,
  upto   INTEGER NOT NULL DEFAULT 0
);
INSERT INTO folded_letters (id, seen, cursor, upto) SELECT 1, 0, 0, coalesce(max(seq), 0) FROM messages;
CREATE TRIGGER folded_letters_update AFTER UPDATE OF content ON messages
  WHEN instr(NEW.content, char(304)) > 0 OR instr(NEW.content, char(8490)) > 0
BEGIN
  UPDATE folded_letters SET seen = 1 WHERE id = 1;
END;
