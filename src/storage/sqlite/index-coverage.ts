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
  out.push(...gap("keyword", count(db, "SELECT count(*) AS n FROM messages"), heldRows(db, ["messages_fts"])));
  const s = trigramState(db);
  if (s) {
    const expected = s.done
      ? count(db, "SELECT count(*) AS n FROM messages")
      : count(db, "SELECT count(*) AS n FROM messages WHERE seq <= ?", s.cursor);
    out.push(...gap("substring", expected, heldRows(db, trigramTables(db))));
  }
  out.push(...gap("error", count(db, "SELECT count(*) AS n FROM error_records"), heldRows(db, ["error_records_fts"])));
  return out;
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

/** Index every row again from scratch; call inside the write transaction. */
export function rebuildIndex(db: Database, index: IndexName): void {
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
