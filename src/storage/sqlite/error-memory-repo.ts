// Error memory rows in SQLite: insert/merge by signature, id-prefix lookup, FTS bm25 search, hit refresh, sweep.
import type { Database } from "bun:sqlite";
import { refusedBy } from "../ports/refused-input.ts";
import { andWhere } from "./sql-where.ts";
import { searchForm } from "../../shared/search-form.ts";
import type { ErrorOutcome, ErrorRecordText } from "../../shared/error-record-text.ts";

export type { ErrorOutcome };

export interface ErrorRow extends ErrorRecordText {
  seq: bigint;
  id: string;
  signature: string;
  createdAt: bigint;
  updatedAt: bigint;
  lastHitAt: bigint;
  expiresAt: bigint;
  hits: number;
  occurrences: number;
  revision: number;
  embeddedBy: string | null;
}

/** The columns as SQLite hands them back (COLUMNS aliases them to the row's names): counts are bigints, keywords JSON. */
type RawRow = Omit<ErrorRow, "outcome" | "keywords" | "hits" | "occurrences" | "revision"> & {
  outcome: string;
  keywords: string;
  hits: bigint;
  occurrences: bigint;
  revision: bigint;
};

const COLUMNS =
  "seq, id, tool, signature, error, cause, fix, outcome, keywords, created_at AS createdAt, updated_at AS updatedAt, " +
  "last_hit_at AS lastHitAt, expires_at AS expiresAt, hits, occurrences, revision, embedded_by AS embeddedBy";

function toRow(r: RawRow): ErrorRow {
  return {
    ...r,
    outcome: r.outcome as ErrorOutcome,
    keywords: JSON.parse(r.keywords) as string[],
    hits: Number(r.hits),
    occurrences: Number(r.occurrences),
    revision: Number(r.revision),
  };
}

/** The text columns of a record, as written (already redacted by the caller). */
export type ErrorFields = ErrorRecordText & { signature: string };

/** tool, error, cause, fix, outcome, keywords: the values of the columns a record and a merge both write. */
function textArgs(f: ErrorFields): [string, string, string | null, string, string, string] {
  return [f.tool, f.error, f.cause, f.fix, f.outcome, JSON.stringify(f.keywords)];
}

function indexFts(db: Database, seq: bigint, f: ErrorFields): void {
  db.prepare("INSERT INTO error_records_fts (rowid, error, cause, fix, keywords) VALUES (?, ?, ?, ?, ?)").run(
    seq,
    searchForm(f.error),
    searchForm(f.cause ?? ""),
    searchForm(f.fix),
    searchForm(f.keywords.join(" ")),
  );
}

/**
 * Sign every record again with `sign` (the signature rules changed). A record whose new signature another record of
 * its tool already has keeps its old one (two records made apart under the old rules stay two).
 */
export function resignErrors(db: Database, sign: (error: string) => string): void {
  const rows = db.query("SELECT seq, signature, error FROM error_records").all() as {
    seq: bigint;
    signature: string;
    error: string;
  }[];
  const update = db.prepare("UPDATE OR IGNORE error_records SET signature = ? WHERE seq = ?");
  for (const r of rows) {
    const signature = sign(r.error);
    if (signature !== r.signature) update.run(signature, r.seq);
  }
}

/** The record of this tool (any case) and signature, expired or not. */
export function findBySignature(db: Database, tool: string, signature: string): ErrorRow | undefined {
  const r = db
    .query(`SELECT ${COLUMNS} FROM error_records WHERE tool = ? AND signature = ?`)
    .get(tool, signature) as RawRow | null;
  return r ? toRow(r) : undefined;
}

/** Taken by a record, or still queued for a vector delete (so a new record never inherits an old vector). */
export function idTaken(db: Database, id: string): boolean {
  return (
    db
      .query("SELECT 1 FROM error_records WHERE id = ?1 UNION ALL SELECT 1 FROM error_vector_deletes WHERE id = ?1")
      .get(id) !== null
  );
}

export function insertErrorRow(db: Database, id: string, f: ErrorFields, now: bigint, expiresAt: bigint): ErrorRow {
  const r = db
    .query(
      `INSERT INTO error_records (id, signature, tool, error, cause, fix, outcome, keywords, created_at, updated_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
    )
    .get(id, f.signature, ...textArgs(f), now, now, expiresAt) as RawRow;
  indexFts(db, r.seq, f);
  return toRow(r);
}

/** Merge a new sighting into an existing record: newest text, fix and outcome; count bumped; TTL refreshed. */
export function mergeErrorRow(
  db: Database,
  seq: bigint,
  f: ErrorFields,
  now: bigint,
  expiresAt: bigint,
  textChanged: boolean,
): ErrorRow {
  const r = db
    .query(
      `UPDATE error_records SET tool = ?, error = ?, cause = ?, fix = ?, outcome = ?, keywords = ?, updated_at = ?, expires_at = ?,
         occurrences = occurrences + 1, revision = revision + ?, embedded_by = CASE WHEN ? THEN NULL ELSE embedded_by END
       WHERE seq = ? RETURNING ${COLUMNS}`,
    )
    .get(...textArgs(f), now, expiresAt, textChanged ? 1 : 0, textChanged ? 1 : 0, seq) as RawRow;
  db.prepare("DELETE FROM error_records_fts WHERE rowid = ?").run(seq);
  indexFts(db, seq, f);
  return toRow(r);
}

/**
 * Rewrite the error index without the terms of deleted records: a contentless index keeps a deleted row's terms
 * in its segment (secure-delete does not remove them) until the segment is merged.
 */
export function purgeDeletedErrorTerms(db: Database): void {
  db.run("INSERT INTO error_records_fts(error_records_fts) VALUES ('optimize')");
}

/** Delete records by seq, with their FTS rows; their vectors are queued for deletion. */
export function deleteErrorRows(db: Database, rows: readonly { seq: bigint; id: string }[], now: bigint): void {
  const fts = db.prepare("DELETE FROM error_records_fts WHERE rowid = ?");
  const row = db.prepare("DELETE FROM error_records WHERE seq = ?");
  const queue = db.prepare(
    "INSERT INTO error_vector_deletes (id, created_at) VALUES (?, ?) ON CONFLICT(id) DO NOTHING",
  );
  for (const r of rows) {
    fts.run(r.seq);
    row.run(r.seq);
    queue.run(r.id, now);
  }
}

/** Live records whose id starts with `prefix` (lower-case hex); at most `limit`. */
export function findByIdPrefix(db: Database, prefix: string, now: bigint, limit = 10): ErrorRow[] {
  const rows = db
    .query(`SELECT ${COLUMNS} FROM error_records WHERE id >= ? AND id < ? AND expires_at > ? ORDER BY id LIMIT ?`)
    .all(prefix, prefix + "\u{10FFFF}", now, limit) as RawRow[];
  return rows.map(toRow);
}

export function getLiveBySeqs(db: Database, seqs: readonly bigint[], now: bigint): ErrorRow[] {
  if (seqs.length === 0) return [];
  const rows = db
    .query(`SELECT ${COLUMNS} FROM error_records WHERE seq IN (SELECT value FROM json_each(?)) AND expires_at > ?`)
    .all(JSON.stringify(seqs.map(String)), now) as RawRow[];
  return rows.map(toRow);
}

export function getLiveByIds(db: Database, ids: readonly string[], now: bigint): ErrorRow[] {
  if (ids.length === 0) return [];
  const rows = db
    .query(`SELECT ${COLUMNS} FROM error_records WHERE id IN (SELECT value FROM json_each(?)) AND expires_at > ?`)
    .all(JSON.stringify(ids), now) as RawRow[];
  return rows.map(toRow);
}

/** Ids of the live records of one tool (any case), at most `limit`. */
export function liveIdsOfTool(db: Database, tool: string, now: bigint, limit: number): string[] {
  const rows = db
    .query("SELECT id FROM error_records WHERE tool = ? AND expires_at > ? LIMIT ?")
    .all(tool, now, limit) as { id: string }[];
  return rows.map((r) => r.id);
}

export interface ListFilter {
  tool?: string;
  outcome?: ErrorOutcome;
}

function listWhere(f: ListFilter, now: bigint, args: (string | bigint | number)[]): string {
  let sql = "expires_at > ?";
  args.push(now);
  sql = andWhere(sql, args, "tool = ?", f.tool);
  sql = andWhere(sql, args, "outcome = ?", f.outcome);
  return sql;
}

/** Live records, most recently recorded first. */
export function listLive(db: Database, f: ListFilter, now: bigint, limit: number): ErrorRow[] {
  const args: (string | bigint | number)[] = [];
  const where = listWhere(f, now, args);
  args.push(limit);
  const rows = db
    .query(`SELECT ${COLUMNS} FROM error_records WHERE ${where} ORDER BY updated_at DESC, seq DESC LIMIT ?`)
    .all(...args) as RawRow[];
  return rows.map(toRow);
}

export function countLive(db: Database, f: ListFilter, now: bigint): number {
  const args: (string | bigint | number)[] = [];
  const r = db.query(`SELECT count(*) AS n FROM error_records WHERE ${listWhere(f, now, args)}`).get(...args) as {
    n: bigint;
  };
  return Number(r.n);
}

export interface KeywordCandidate {
  seq: bigint;
  tool: string;
  outcome: ErrorOutcome;
  /** bm25 (lower is better). */
  rank: number;
}

/** FTS5 bm25 over live records (error weighs most, then keywords, cause, fix). `match` is an FTS5 expression. */
export function searchErrorFts(
  db: Database,
  match: string,
  now: bigint,
  tool: string | undefined,
  limit: number,
): KeywordCandidate[] {
  const args: (string | bigint | number)[] = [match, now];
  let sql =
    "SELECT e.seq AS seq, e.tool AS tool, e.outcome AS outcome, bm25(error_records_fts, 4.0, 1.5, 1.0, 2.0) AS rank " +
    "FROM error_records_fts " +
    "JOIN error_records e ON e.seq = error_records_fts.rowid WHERE error_records_fts MATCH ? AND e.expires_at > ?";
  sql = andWhere(sql, args, "e.tool = ?", tool);
  sql += " ORDER BY rank LIMIT ?";
  args.push(limit);
  return db.query(sql).all(...args) as KeywordCandidate[];
}

/** A search returned these records: count the hit and restart their TTL from now. */
export function touchHits(db: Database, seqs: readonly bigint[], now: bigint, expiresAt: bigint): void {
  const stmt = db.prepare(
    "UPDATE error_records SET hits = hits + 1, last_hit_at = ?, expires_at = ? WHERE seq = ? AND expires_at > ?",
  );
  for (const s of seqs) stmt.run(now, expiresAt, s, now);
}

/** Expired records (expires_at <= now), oldest expiry first. */
export function listExpired(db: Database, now: bigint, limit: number): { seq: bigint; id: string }[] {
  return db
    .query("SELECT seq, id FROM error_records WHERE expires_at <= ? ORDER BY expires_at LIMIT ?")
    .all(now, limit) as { seq: bigint; id: string }[];
}

export interface PendingEmbedding {
  seq: bigint;
  id: string;
  error: string;
  revision: number;
}

/** Live records without a vector from `embedderId`. */
export { refusedBy };

/** Records without a vector from `embedderId` and not refused by it. */
const UNEMBEDDED = "(embedded_by IS NULL OR embedded_by NOT IN (?, 'refused:' || ?)) AND expires_at > ?";

export function listUnembedded(db: Database, embedderId: string, now: bigint, limit: number): PendingEmbedding[] {
  const rows = db
    .query(`SELECT seq, id, error, revision FROM error_records WHERE ${UNEMBEDDED} ORDER BY seq LIMIT ?`)
    .all(embedderId, embedderId, now, limit) as { seq: bigint; id: string; error: string; revision: bigint }[];
  return rows.map((r) => ({ seq: r.seq, id: r.id, error: r.error, revision: Number(r.revision) }));
}

export function countUnembedded(db: Database, embedderId: string, now: bigint): number {
  const r = db
    .query(`SELECT count(*) AS n FROM error_records WHERE ${UNEMBEDDED}`)
    .get(embedderId, embedderId, now) as { n: bigint };
  return Number(r.n);
}

/** Live records `embedderId` refused on their own. */
export function countRefusedBy(db: Database, embedderId: string, now: bigint): number {
  return countEmbeddedBy(db, refusedBy(embedderId), now);
}

/** Live records whose vector `embedderId` made. */
export function countEmbeddedBy(db: Database, embedderId: string, now: bigint): number {
  const r = db
    .query("SELECT count(*) AS n FROM error_records WHERE embedded_by = ? AND expires_at > ?")
    .get(embedderId, now) as { n: bigint };
  return Number(r.n);
}

/** Every record whose vector `embedderId` made waits for one again (that embedder's table was lost). */
export function clearEmbeddedBy(db: Database, embedderId: string): void {
  db.prepare("UPDATE error_records SET embedded_by = NULL WHERE embedded_by = ?").run(embedderId);
}

/** Every record waiting for a vector again (a rebuild of the error vectors). */
export function clearEmbedded(db: Database): void {
  db.run("UPDATE error_records SET embedded_by = NULL WHERE embedded_by IS NOT NULL");
}

/** Record that the vector of this revision is stored; a record changed meanwhile stays pending. */
export function markEmbedded(
  db: Database,
  items: readonly { seq: bigint; revision: number }[],
  embedderId: string,
): void {
  const stmt = db.prepare("UPDATE error_records SET embedded_by = ? WHERE seq = ? AND revision = ?");
  for (const it of items) stmt.run(embedderId, it.seq, it.revision);
}

export function pendingVectorDeletes(db: Database, limit: number): string[] {
  return (
    db.query("SELECT id FROM error_vector_deletes ORDER BY created_at LIMIT ?").all(limit) as { id: string }[]
  ).map((r) => r.id);
}

export function clearVectorDeletes(db: Database, ids: readonly string[]): void {
  if (ids.length === 0) return;
  db.prepare("DELETE FROM error_vector_deletes WHERE id IN (SELECT value FROM json_each(?))").run(JSON.stringify(ids));
}

/** The text of the newest live records (for the word-level match of an error search), at most `limit`: the error, and its cause, fix and keywords. */
export function liveTexts(
  db: Database,
  now: bigint,
  tool: string | undefined,
  limit: number,
): { seq: bigint; tool: string; outcome: ErrorOutcome; error: string; other: string }[] {
  const where = tool !== undefined ? "AND tool = ? COLLATE NOCASE" : "";
  const args: (string | bigint | number)[] = tool !== undefined ? [now, tool, limit] : [now, limit];
  const rows = db
    .query(
      `SELECT seq, tool, outcome, error, coalesce(cause, '') AS cause, fix, keywords FROM error_records WHERE expires_at > ? ${where} ORDER BY seq DESC LIMIT ?`,
    )
    .all(...args) as {
    seq: bigint;
    tool: string;
    outcome: ErrorOutcome;
    error: string;
    cause: string;
    fix: string;
    keywords: string;
  }[];
  return rows.map((r) => ({
    seq: r.seq,
    tool: r.tool,
    outcome: r.outcome,
    error: r.error,
    other: `${r.cause}\n${r.fix}\n${(JSON.parse(r.keywords) as string[]).join(" ")}`,
  }));
}
