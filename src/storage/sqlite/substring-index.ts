// The substring index (008-v0.4.sql, split by tier in 010-v0.6.sql): its form of a text, its build and split
// state, and the writes that keep it in step with messages (insert, compaction, replace, delete). Rows with
// seq <= the build cursor are indexed by the build; writers index those rows, and every row once the build is
// done. A row is in the table of its tier (messages_trigram: recent, messages_trigram_archived: archived)
// once the split has placed it (seq <= the split cursor, or the split is done); before, in messages_trigram.
import type { Database } from "bun:sqlite";
import { schemaShape } from "./schema-shape.ts";
import { scoped } from "./write-stamp.ts";

/** What the index holds of a text: runs of whitespace as one space, and two spaces after the text so that every character begins a trigram. */
export const trigramForm = (content: string) => content.replace(/\s+/g, " ") + "  ";

/** The index table of the recent tier (and, until the split places them, of every row). */
export const RECENT_TRIGRAM = "messages_trigram";
/** The index table of the archived tier. */
export const ARCHIVED_TRIGRAM = "messages_trigram_archived";

export interface TrigramState {
  /** Highest seq the build has indexed. */
  cursor: bigint;
  /** Every message is indexed (search may use it). */
  done: boolean;
  /** The archived tier has a table of its own (a database migrated to 010; false for an older one opened read-only). */
  split: boolean;
  /** Highest seq whose row the split has placed in its tier's table. */
  splitCursor: bigint;
  /** Every indexed row is in its tier's table. */
  splitDone: boolean;
}

/** Whether the database has the index (a read-only connection to a home not yet migrated has not). */
function hasIndex(db: Database): boolean {
  return schemaShape(db).trigramIndex;
}

type StateRow = { cursor: bigint | number; done: bigint | number; sc?: bigint | number; sd?: bigint | number };

/** The build and split state; undefined when the database has no substring index. */
export function trigramState(db: Database): TrigramState | undefined {
  return scoped(db, "trigramState", () => readTrigramState(db));
}

function readTrigramState(db: Database): TrigramState | undefined {
  const shape = schemaShape(db);
  if (!shape.trigramIndex) return undefined;
  const r = (
    shape.trigramSplit
      ? db
          .query(
            "SELECT b.cursor, b.done, s.cursor AS sc, s.done AS sd FROM trigram_build b, trigram_split s WHERE b.id = 1",
          )
          .get()
      : db.query("SELECT cursor, done FROM trigram_build WHERE id = 1").get()
  ) as StateRow | null;
  if (!r) return undefined;
  return {
    cursor: BigInt(r.cursor),
    done: Number(r.done) === 1,
    split: shape.trigramSplit,
    splitCursor: BigInt(r.sc ?? 0),
    splitDone: shape.trigramSplit && Number(r.sd) === 1,
  };
}

/** Whether search may use the index: it holds every message. */
export function trigramReady(db: Database): boolean {
  return trigramState(db)?.done === true;
}

/** The index's tables (none when the database has no substring index). */
export function trigramTables(db: Database): string[] {
  const s = trigramState(db);
  return !s ? [] : s.split ? [RECENT_TRIGRAM, ARCHIVED_TRIGRAM] : [RECENT_TRIGRAM];
}

/** Whether the build has indexed this row. */
const indexed = (s: TrigramState, seq: bigint) => s.done || seq <= s.cursor;
/** Whether the split has placed this row in its tier's table. */
const placed = (s: TrigramState, seq: bigint) => s.split && (s.splitDone || seq <= s.splitCursor);

/** The table that holds (or is to hold) an indexed row of this tier. */
export function trigramTable(s: TrigramState, seq: bigint, recent: boolean): string {
  return !recent && placed(s, seq) ? ARCHIVED_TRIGRAM : RECENT_TRIGRAM;
}

/**
 * Writes a message's row, when the index is to hold it (see the header), in the table of its tier (new
 * messages are recent); call inside the write transaction.
 */
export function trigramWriter(
  db: Database,
  state = trigramState(db),
): (seq: bigint, content: string, recent?: boolean) => void {
  if (!state) return () => {};
  const insert = new Map<string, ReturnType<Database["query"]>>();
  return (seq, content, recent = true) => {
    if (!indexed(state, seq)) return;
    const table = trigramTable(state, seq, recent);
    let q = insert.get(table);
    if (!q) insert.set(table, (q = db.query(`INSERT INTO ${table} (rowid, body) VALUES (?, ?)`)));
    q.run(seq, trigramForm(content));
  };
}

/**
 * Compaction: rows of a session before `beforeSeq` are leaving the recent tier; the indexed ones the split
 * has placed move to the archived table. Call inside the write transaction, before their tier changes.
 */
export function archiveTrigramRows(db: Database, session: string, beforeSeq: bigint): void {
  archiveTrigramWhere(db, "session_id = ? AND recent = 1 AND seq < ?", session, beforeSeq);
}

/** archiveTrigramRows for these seqs (recent rows leaving the tier one by one). */
export function archiveTrigramSeqs(db: Database, seqs: readonly bigint[]): void {
  if (seqs.length > 0)
    archiveTrigramWhere(db, "recent = 1 AND seq IN (SELECT value FROM json_each(?))", JSON.stringify(seqs.map(String)));
}

function archiveTrigramWhere(db: Database, where: string, ...args: (string | bigint)[]): void {
  const s = trigramState(db);
  if (!s?.split) return;
  if (!s.splitDone && s.splitCursor === 0n) return; // nothing placed yet
  const rows = db.query(`SELECT seq, content FROM messages WHERE ${where}`).all(...args) as {
    seq: bigint;
    content: string;
  }[];
  moveToArchived(
    db,
    rows.filter((r) => indexed(s, r.seq) && placed(s, r.seq)),
  );
}

/**
 * Move indexed rows from the recent table to the archived one (their text given). The recent table only marks
 * them deleted: their text is still the archive's, and rewriting each of its pages that hold one of their
 * trigrams (secure-delete) would cost hundreds of page writes a row. A removal later rewrites both tables
 * (optimizeTrigram), so a removed message's text leaves these pages too.
 */
export function moveToArchived(db: Database, rows: readonly { seq: bigint; content: string }[]): void {
  if (rows.length === 0) return;
  const secureDelete = (on: 0 | 1) =>
    db.run(`INSERT INTO ${RECENT_TRIGRAM}(${RECENT_TRIGRAM}, rank) VALUES ('secure-delete', ${on})`);
  secureDelete(0);
  db.query(`DELETE FROM ${RECENT_TRIGRAM} WHERE rowid IN (SELECT value FROM json_each(?))`).run(
    JSON.stringify(rows.map((r) => String(r.seq))),
  );
  secureDelete(1);
  const insert = db.query(`INSERT INTO ${ARCHIVED_TRIGRAM} (rowid, body) VALUES (?, ?)`);
  for (const r of rows) insert.run(r.seq, trigramForm(r.content));
}

/** Index rows again in their tier's table after their tiers were set anew (doctor's repair); `seqs` as in deleteTrigramRows. */
export function placeTrigramRows(db: Database, seqs: string, ...args: (string | bigint | number)[]): void {
  if (!hasIndex(db)) return;
  deleteTrigramRows(db, seqs, ...args);
  const write = trigramWriter(db);
  const rows = db.prepare(`SELECT seq, content, recent FROM messages WHERE seq IN (${seqs})`).all(...args) as {
    seq: bigint;
    content: string;
    recent: bigint | number;
  }[];
  for (const r of rows) write(r.seq, r.content, Number(r.recent) === 1);
}

/** Delete index rows; `seqs` is SQL selecting the seqs, with its arguments (rows never indexed are no matter). */
export function deleteTrigramRows(db: Database, seqs: string, ...args: (string | bigint | number)[]): void {
  // A contentless table takes the delete of a row it lacks as nothing: each table is told, whatever it holds.
  for (const table of trigramTables(db)) db.prepare(`DELETE FROM ${table} WHERE rowid IN (${seqs})`).run(...args);
}

/** Merge the index into one segment, so no deleted row's text stays in an old one (see purgeDeletedFromFts). */
export function optimizeTrigram(db: Database): void {
  for (const table of trigramTables(db)) db.run(`INSERT INTO ${table}(${table}) VALUES ('optimize')`);
}
