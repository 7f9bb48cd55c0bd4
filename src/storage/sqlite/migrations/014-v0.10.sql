-- v0.10 schema changes, in one file.

-- How each session's history.json writes sendAt ('ns': Agenvoy's integer nanoseconds; 'rfc3339': memvoy's strings),
-- as memvoy last read or wrote it. A file deleted by a reset, or holding an empty list, carries no form: the next
-- file is written in the remembered one, so Agenvoy (whose reader takes only integers) can still read it.
ALTER TABLE sessions ADD COLUMN history_style TEXT;
