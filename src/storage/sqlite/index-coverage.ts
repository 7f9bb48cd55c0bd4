// Whether each full-text index holds a row for every row it indexes (a table emptied or cut by another program
// leaves search silently finding nothing), and its rebuild from the rows: doctor names a gap, --repair rebuilds.
import type { Database } from "bun:sqlite";
import { searchForm } from "../../shared/search-form.ts";
import { ftsTotals } from "./fts-totals.ts";
import { ftsHasSession, sessionToken } from "./fts-upgrade.ts";
import { tokenCountWriter } from "./index-tokens.ts";
import { trigramState, trigramTables, trigramWriter } from "./substring-index.ts";

export type IndexName = "keyword" | "substring" | "error";

export interface IndexGap {
  index: IndexName;
  /** Rows the index should hold. */
  expected: number;
  /** Rows it holds (the fewer of its row-length records and its own count). */
  held: number;
  /** A table of the index is gone (dropped by another program): every search and write fails until it is made again. */
  missing?: true;
}

const FTS = "content='', contentless_delete=1";
const WORDS = "tokenize='unicode61 remove_diacritics 2'";
const TRIGRAMS = "detail=none, tokenize='trigram case_sensitive 0'";
/** Each index table as the migrations leave it (the keyword index with its session column), with its options. */
const TABLES: Record<string, { columns: string; form: string; options: [string, number][] }> = {
  messages_fts: { columns: "body, sess", form: WORDS, options: [["secure-delete", 1]] },
  messages_trigram: {
    columns: "body",
    form: TRIGRAMS,
    options: [
      ["secure-delete", 1],
      ["deletemerge", 0],
    ],
  },
  messages_trigram_archived: { columns: "body", form: TRIGRAMS, options: [["secure-delete", 1]] },
  error_records_fts: { columns: "error, cause, fix, keywords", form: WORDS, options: [["secure-delete", 1]] },
};

const tableThere = (db: Database, t: string) =>
  db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(t) !== null;

/** The tables of `index` as the database should have them. */
function indexTables(db: Database, index: IndexName): string[] {
  if (index === "keyword") return ["messages_fts"];
  if (index === "error") return ["error_records_fts"];
  return trigramTables(db);
}

const count = (db: Database, sql: string, ...args: bigint[]) =>
  Number((db.query(sql).get(...args) as { n: bigint | number }).n);

/** Rows an FTS5 table holds: its row-length records and its running total must both say so. */
function heldRows(db: Database, tables: readonly string[]): { records: number; totals: number } {
  let records = 0;
  let totals = 0;
  for (const t of tables) {
    records += count(db, `SELECT count(*) AS n FROM ${t}_docsize`);
    totals += ftsTotals(db, t).rows;
  }
  return { records, totals };
}

function gap(index: IndexName, expected: number, held: { records: number; totals: number }): IndexGap[] {
  if (held.records === expected && held.totals === expected) return [];
  return [{ index, expected, held: Math.min(held.records, held.totals) }];
}

/** The indexes that do not hold exactly the rows they index (none for a sound archive). */
export function indexGaps(db: Database): IndexGap[] {
  const out: IndexGap[] = [];
  const check = (index: IndexName, expected: number) => {
    const tables = indexTables(db, index);
    if (tables.some((t) => !tableThere(db, t))) out.push({ index, expected, held: 0, missing: true });
    else out.push(...gap(index, expected, heldRows(db, tables)));
  };
  check("keyword", count(db, "SELECT count(*) AS n FROM messages"));
  const s = trigramState(db);
  if (s)
    check(
      "substring",
      s.done
        ? count(db, "SELECT count(*) AS n FROM messages")
        : count(db, "SELECT count(*) AS n FROM messages WHERE seq <= ?", s.cursor),
    );
  check("error", count(db, "SELECT count(*) AS n FROM error_records"));
  return out;
}

/** Make a dropped index table again, empty, as the migrations made it. */
function createTable(db: Database, t: string): void {
  const d = TABLES[t]!;
  // A keyword index upgrade under way is done: the table made here has the session column.
  if (t === "messages_fts")
    for (const old of ["messages_fts_next", "fts_upgrade"]) db.run(`DROP TABLE IF EXISTS ${old}`);
  db.run(`CREATE VIRTUAL TABLE ${t} USING fts5(${d.columns}, ${FTS}, ${d.form})`);
  for (const [k, v] of d.options) db.run(`INSERT INTO ${t}(${t}, rank) VALUES ('${k}', ${v})`);
}

const BATCH = 1000;

/** Each message row in seq order, in batches (the caller writes other tables meanwhile). */
function eachMessage(
  db: Database,
  fn: (r: { seq: bigint; session_id: string; content: string; recent: number }) => void,
) {
  const read = db.query("SELECT seq, session_id, content, recent FROM messages WHERE seq > ? ORDER BY seq LIMIT ?");
  for (let after = 0n; ; ) {
    const rows = read.all(after, BATCH) as { seq: bigint; session_id: string; content: string; recent: bigint }[];
    for (const r of rows) fn({ ...r, recent: Number(r.recent) });
    if (rows.length < BATCH) return;
    after = rows[rows.length - 1]!.seq;
  }
}

const emptyTable = (db: Database, t: string) => db.run(`INSERT INTO ${t}(${t}) VALUES ('delete-all')`);

/** Index every row again from scratch (a dropped table made again first); call inside the write transaction. */
export function rebuildIndex(db: Database, index: IndexName): void {
  for (const t of indexTables(db, index)) if (!tableThere(db, t)) createTable(db, t);
  if (index === "keyword") {
    emptyTable(db, "messages_fts");
    const session = ftsHasSession(db);
    const insert = db.query(
      session
        ? "INSERT INTO messages_fts (rowid, body, sess) VALUES (?, ?, ?)"
        : "INSERT INTO messages_fts (rowid, body) VALUES (?, ?)",
    );
    const tokens = tokenCountWriter(db);
    eachMessage(db, (r) => {
      if (session) insert.run(r.seq, searchForm(r.content), sessionToken(r.session_id));
      else insert.run(r.seq, searchForm(r.content));
      tokens(r.seq);
    });
  } else if (index === "substring") {
    for (const t of trigramTables(db)) emptyTable(db, t);
    const write = trigramWriter(db);
    eachMessage(db, (r) => write(r.seq, r.content, r.recent === 1));
  } else {
    emptyTable(db, "error_records_fts");
    const insert = db.query(
      "INSERT INTO error_records_fts (rowid, error, cause, fix, keywords) VALUES (?, ?, ?, ?, ?)",
    );
    const rows = db.query("SELECT seq, error, cause, fix, keywords FROM error_records").all() as {
      seq: bigint;
      error: string;
      cause: string | null;
      fix: string;
      keywords: string;
    }[];
    for (const r of rows) {
      let words: string[] = [];
      try {
        words = JSON.parse(r.keywords) as string[];
      } catch {
        // a garbled keyword list: indexed without keywords
      }
      insert.run(r.seq, searchForm(r.error), searchForm(r.cause ?? ""), searchForm(r.fix), searchForm(words.join(" ")));
    }
  }
}
