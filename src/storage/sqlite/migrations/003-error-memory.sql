-- error memory records and their FTS index.
SELECT 1;
