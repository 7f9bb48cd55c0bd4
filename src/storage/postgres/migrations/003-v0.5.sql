-- What an import has read of each source file, per reader (a host and home: the files are that host's own).
-- It only spares re-reading: whether a message is new is decided by the archive (ids, tombstones).
CREATE TABLE import_files (
  reader     text NOT NULL,
  source     text NOT NULL,
  path       text NOT NULL,
  size       bigint NOT NULL,
  mtime_ns   bigint NOT NULL,
  "offset"   bigint NOT NULL,
  head       text NOT NULL,
  state      text NOT NULL,
  updated_at bigint NOT NULL,
  PRIMARY KEY (reader, source, path)
);
