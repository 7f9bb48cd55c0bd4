// What an import has read of each source file: size, mtime, the offset after the last complete line.
import type { Database } from "bun:sqlite";

export interface ImportFileState {
  size: number;
  mtimeNs: bigint;
  offset: number;
  head: string;
  /** Importer-specific JSON. */
  state: string;
}

interface Raw {
  size: bigint;
  mtime_ns: bigint;
  offset: bigint;
  head: string;
  state: string;
}

export function getImportFile(db: Database, source: string, path: string): ImportFileState | undefined {
  const r = db
    .query("SELECT size, mtime_ns, offset, head, state FROM import_files WHERE source = ? AND path = ?")
    .get(source, path) as Raw | null;
  return r
    ? { size: Number(r.size), mtimeNs: r.mtime_ns, offset: Number(r.offset), head: r.head, state: r.state }
    : undefined;
}

export function putImportFile(db: Database, source: string, path: string, s: ImportFileState, now: bigint): void {
  db.query(
    `INSERT INTO import_files (source, path, size, mtime_ns, offset, head, state, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
     ON CONFLICT(source, path) DO UPDATE SET size = ?3, mtime_ns = ?4, offset = ?5, head = ?6, state = ?7, updated_at = ?8`,
  ).run(source, path, s.size, s.mtimeNs, s.offset, s.head, s.state, now);
}
