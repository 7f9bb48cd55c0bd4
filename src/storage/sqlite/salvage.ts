// A broken history.db (truncated, garbled, a wrong header): read what SQLite still can, table by table and
// row range by row range, then move the broken files aside and build a fresh database from the salvage.
import { messageFtsWriter } from "./fts-upgrade.ts";
import { messageTextWriter } from "./message-text-writer.ts";
import { placeTrigramRows } from "./substring-index.ts";
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, linkSync, readdirSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { searchForm } from "../../shared/search-form.ts";
import { foreignArchiveKind, openDatabase } from "./open-database.ts";
import { COPY_TABLES } from "../ports/copy-tables.ts";
import { emptiedDatabase } from "./broken-database.ts";
export { BrokenDatabaseError, isBrokenDatabase } from "./broken-database.ts";

/**
 * The tables a rebuild carries over (the FTS indexes and the queues are rebuilt; the sessions' counts are taken
 * again from their messages). The tombstones go too: without them a re-import would bring removed messages back.
 */
export const SALVAGED_TABLES = [
  "messages",
  "message_meta",
  "error_records",
  "llm_usage",
  "summary_runs",
  "sessions",
  "tombstones",
  "untimed_messages",
] as const;
export type SalvagedTable = (typeof SALVAGED_TABLES)[number];

export interface TableSalvage {
  rows: Record<string, unknown>[];
  /** false when part of the table could not be read (or none of it). */
  complete: boolean;
}

export interface Salvage {
  /** Why SQLite refuses the file. */
  problem: string;
  tables: Record<SalvagedTable, TableSalvage>;
  /** The file is an Agenvoy archive: its messages, to adopt (the tables above are then empty). */
  agenvoy?: AgenvoyArchive;
}

/** A message of an Agenvoy archive (its `messages` table: no id of memvoy's, time in ns, 0 when it had none). */
export interface AgenvoyRow {
  session: string;
  role: string;
  content: string;
  sendAt: bigint;
  sender: string;
}

export interface AgenvoyArchive {
  /** Every message, by session, then time, then Agenvoy's own row order. */
  rows: AgenvoyRow[];
  /** Each session's compaction cutoff (message_meta, or session_meta in older homes): rows before it left history.json. */
  startAt: Map<string, bigint>;
  /** false when the messages could not all be read. */
  complete: boolean;
}

function isAgenvoy(db: Database): boolean {
  try {
    return foreignArchiveKind(db) !== undefined;
  } catch {
    return false; // a damaged file: salvaged as memvoy's own
  }
}

/** Agenvoy's messages and cutoffs, read from its archive (the caller has found it is one: foreignArchiveKind). */
function readAgenvoy(db: Database): AgenvoyArchive {
  const out: AgenvoyArchive = { rows: [], startAt: new Map(), complete: true };
  const cols = new Set(
    (db.query("SELECT name FROM pragma_table_info('messages')").all() as { name: string }[]).map((c) => c.name),
  );
  try {
    const sender = cols.has("sender") ? "sender" : "''";
    const rows = db
      .query(
        `SELECT session_id, role, content, send_at, ${sender} AS sender FROM messages ORDER BY session_id, send_at, rowid`,
      )
      .all() as { session_id: unknown; role: unknown; content: unknown; send_at: unknown; sender: unknown }[];
    for (const r of rows)
      out.rows.push({
        session: String(r.session_id ?? ""),
        role: String(r.role ?? ""),
        content: String(r.content ?? ""),
        sendAt: typeof r.send_at === "bigint" ? r.send_at : BigInt(Math.trunc(Number(r.send_at ?? 0)) || 0),
        sender: String(r.sender ?? ""),
      });
  } catch {
    out.complete = false;
  }
  for (const table of ["message_meta", "session_meta"]) {
    try {
      const meta = db.query(`SELECT session_id, start_at FROM ${table}`).all() as {
        session_id: unknown;
        start_at: unknown;
      }[];
      for (const m of meta) if (typeof m.start_at === "bigint") out.startAt.set(String(m.session_id), m.start_at);
    } catch {
      // no such table in this version of Agenvoy
    }
  }
  return out;
}

const KEY: Record<SalvagedTable, string> = {
  messages: "seq",
  message_meta: "rowid",
  error_records: "seq",
  llm_usage: "id",
  summary_runs: "rowid",
  sessions: "rowid",
  tombstones: "rowid",
  untimed_messages: "seq",
};
const BATCH = 500;

/**
 * Read every row SQLite can still read from one table, skipping ranges it cannot: a batch that meets a damaged page
 * is read again in smaller ones up to the damage, then reading goes on from the first key past it that reads.
 */
function readTable(db: Database, table: SalvagedTable): TableSalvage {
  const key = KEY[table];
  const rows: Record<string, unknown>[] = [];
  let max: bigint;
  try {
    max = BigInt((db.query(`SELECT max(${key}) AS m FROM ${table}`).get() as { m: bigint | number | null }).m ?? 0);
  } catch {
    max = -1n;
  }
  const read = (after: bigint, limit: number) =>
    db
      .query(`SELECT ${key} AS __key, * FROM ${table} WHERE ${key} > ? ORDER BY ${key} LIMIT ${limit}`)
      .all(after) as Record<string, unknown>[];
  let complete = max >= 0n;
  let after = -1n;
  for (let limit = BATCH; ; ) {
    let batch: Record<string, unknown>[];
    try {
      batch = read(after, limit);
    } catch {
      complete = false;
      if (limit > 1) {
        limit = Math.max(1, Math.floor(limit / 10));
        continue;
      }
      const next = readableFrom(after, max, (at) => {
        try {
          read(at, 1);
          return true;
        } catch {
          return false;
        }
      });
      if (next === undefined) break;
      after = next;
      limit = BATCH;
      continue;
    }
    if (batch.length === 0) break;
    for (const r of batch) {
      after = BigInt(r.__key as bigint);
      delete r.__key;
      rows.push(r);
    }
    limit = BATCH;
  }
  return { rows, complete };
}

/**
 * Reading after `from` fails: the smallest key past it after which reading works again (probing further each
 * time, then narrowing down), or undefined when none up to `max` does (or `max` is unknown).
 */
function readableFrom(from: bigint, max: bigint, reads: (after: bigint) => boolean): bigint | undefined {
  if (max < 0n || from >= max) return undefined;
  let bad = from;
  let good: bigint | undefined;
  for (let step = 1n; good === undefined && bad < max; step *= 2n) {
    const probe = from + step < max ? from + step : max;
    if (reads(probe)) good = probe;
    else bad = probe;
  }
  if (good === undefined) return undefined;
  let at: bigint = good;
  while (at - bad > 1n) {
    const mid = (bad + at) / 2n;
    if (reads(mid)) at = mid;
    else bad = mid;
  }
  return at < max ? at : undefined;
}

export function salvageDatabase(path: string, problem: string): Salvage {
  const empty = (): TableSalvage => ({ rows: [], complete: false });
  const tables = Object.fromEntries(SALVAGED_TABLES.map((t) => [t, empty()])) as Record<SalvagedTable, TableSalvage>;
  let db: Database;
  try {
    db = new Database(path, { readonly: true, safeIntegers: true });
  } catch {
    return { problem, tables };
  }
  try {
    if (isAgenvoy(db)) {
      // Agenvoy keeps no error memory, usage or summary runs in this file: nothing of those to lose.
      for (const t of SALVAGED_TABLES) tables[t] = { rows: [], complete: true };
      return { problem, tables, agenvoy: readAgenvoy(db) };
    }
    for (const t of SALVAGED_TABLES) tables[t] = readTable(db, t);
  } finally {
    db.close();
  }
  return { problem, tables };
}

/**
 * Whether the file at `path` still needs a rescue: SQLite cannot open it, finds it damaged (quick_check), or it is
 * another program's archive. False once a rescue has put a rebuilt archive there.
 */
export function needsRescue(path: string): boolean {
  // Cut to nothing (open-memory's refuseEmptiedArchive names it).
  if (emptiedDatabase(path)) return true;
  let db: Database;
  try {
    db = new Database(path, { readonly: true });
  } catch {
    return true;
  }
  try {
    if (isAgenvoy(db)) return true;
    const version = (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
    if (version === 0 && db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'messages'").get())
      return true; // another program's tables (open-database.ts refuses them)
    const check = db.query("PRAGMA quick_check").all() as { quick_check: string }[];
    return !(check.length === 1 && check[0]!.quick_check === "ok");
  } catch {
    return true;
  } finally {
    db.close();
  }
}

/**
 * Where a rebuild is built before it takes the broken file's place (a `broken-` name, so a deletion removes what a
 * killed rebuild left: kept-copies.ts).
 */
export const rebuildPath = (path: string, suffix: string) => `${path}.broken-${suffix}.rebuilding`;

/** Remove what an earlier rebuild killed before its swap left (its database, -wal and -shm, or -journal). */
export function removeStaleRebuilds(path: string): void {
  const dir = dirname(path);
  const prefix = `${basename(path)}.broken-`;
  for (const entry of readdirSync(dir))
    if (entry.startsWith(prefix) && /\.rebuilding(-wal|-shm|-journal)?$/.test(entry))
      rmSync(join(dir, entry), { force: true });
}

/**
 * Keep the broken history.db and its -wal/-shm aside (as history.db.LABEL-SUFFIX), then put the rebuilt file in its
 * place. Killed at any step, the home keeps either the broken file (its -wal aside) or the rebuilt one, never an
 * empty archive. Returns the names kept aside.
 */
export function swapInRebuilt(path: string, rebuilt: string, suffix: string, label = "broken"): string[] {
  const kept: string[] = [];
  const aside = (ext: string) => `${path}${ext}.${label}-${suffix}`;
  for (const ext of ["-wal", "-shm"]) {
    if (!existsSync(path + ext)) continue;
    renameSync(path + ext, aside(ext));
    kept.push(aside(ext));
  }
  if (existsSync(path)) {
    try {
      linkSync(path, aside(""));
    } catch {
      copyFileSync(path, aside(""));
    }
    kept.unshift(aside(""));
  }
  renameSync(rebuilt, path);
  return kept;
}

/** Columns that only hold work in progress: a salvage leaves them empty, and the work is done again. */
const REDONE = new Set(["embedded_by", "pending_seq", "pending_id", "pending_cursor", "pending_sha"]);

/**
 * Columns of this file's own beyond the ones a copy between archives moves: the form of an Agenvoy session's
 * history.json outlives the file (history-stamps-repo.ts), so a rebuild keeps it too.
 */
const LOCAL_ONLY: Partial<Record<SalvagedTable, readonly string[]>> = { sessions: ["history_style"] };

function salvagedColumns(table: Exclude<SalvagedTable, "messages">): string[] {
  return [...COPY_TABLES[table].columns, ...(LOCAL_ONLY[table] ?? [])].filter((c) => !REDONE.has(c));
}

/** Create a fresh database at `path` holding the salvage (FTS rebuilt, every message queued for embedding). */
export function buildFromSalvage(path: string, salvage: Salvage): Database {
  const db = openDatabase(path);
  db.transaction(() => {
    const insert = db.prepare(
      "INSERT OR IGNORE INTO messages (seq, id, session_id, role, content, send_at, sender, recent, idempotency_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    const fts = messageFtsWriter(db);
    const beside = messageTextWriter(db);
    for (const r of salvage.tables.messages.rows) {
      const role = r.role === "assistant" ? "assistant" : "user";
      const res = insert.run(
        r.seq as bigint,
        String(r.id),
        String(r.session_id),
        role,
        String(r.content ?? ""),
        r.send_at as bigint,
        (r.sender as string | null) ?? null,
        (r.recent as bigint | null) ?? 0n,
        (r.idempotency_key as string | null) ?? null,
      );
      if (res.changes === 0) continue;
      fts(r.seq as bigint, String(r.content ?? ""), String(r.session_id), Number(r.recent ?? 0) === 1);
      beside(r.seq as bigint, String(r.content ?? ""));
    }
    for (const table of SALVAGED_TABLES.filter((t) => t !== "messages")) {
      const cols = salvagedColumns(table);
      const stmt = db.prepare(
        `INSERT OR IGNORE INTO ${table} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`,
      );
      for (const r of salvage.tables[table].rows) {
        try {
          stmt.run(...cols.map((c) => (r[c] ?? null) as string | bigint | null));
        } catch {
          // a garbled row (NOT NULL, CHECK): lost
        }
      }
    }
    const errFts = db.prepare(
      "INSERT INTO error_records_fts (rowid, error, cause, fix, keywords) VALUES (?, ?, ?, ?, ?)",
    );
    for (const r of db.query("SELECT seq, error, cause, fix, keywords FROM error_records").all() as {
      seq: bigint;
      error: string;
      cause: string | null;
      fix: string;
      keywords: string;
    }[]) {
      let words: string[] = [];
      try {
        words = JSON.parse(r.keywords) as string[];
      } catch {
        // keep none
      }
      errFts.run(r.seq, searchForm(r.error), searchForm(r.cause ?? ""), searchForm(r.fix), searchForm(words.join(" ")));
    }
    db.run("INSERT OR IGNORE INTO embed_queue (seq) SELECT seq FROM messages WHERE recent = 1");
    db.run("DELETE FROM untimed_messages WHERE seq NOT IN (SELECT seq FROM messages)");
    // A salvaged session keeps its times and what an importer said of it (source, title, project, parent).
    db.run(
      `INSERT INTO sessions (id, created_at, updated_at, last_send_at, message_count)
       SELECT session_id, min(send_at), max(send_at), max(send_at), count(*) FROM messages WHERE true GROUP BY session_id
       ON CONFLICT(id) DO UPDATE SET last_send_at = excluded.last_send_at, message_count = excluded.message_count`,
    );
    db.run("UPDATE sessions SET message_count = 0 WHERE id NOT IN (SELECT session_id FROM messages)");
  })();
  return db;
}

/** history.json is the truth for what is recent: those ids are recent, the session's others archived, the cutoff recorded. */
export function markRecent(db: Database, session: string, ids: readonly string[], firstSendAt: bigint): void {
  db.prepare("UPDATE messages SET recent = 0 WHERE session_id = ?").run(session);
  db.prepare("UPDATE messages SET recent = 1 WHERE session_id = ? AND id IN (SELECT value FROM json_each(?))").run(
    session,
    JSON.stringify(ids),
  );
  placeTrigramRows(db, "SELECT seq FROM messages WHERE session_id = ?", session);
  const first = db.query("SELECT min(seq) AS s FROM messages WHERE session_id = ? AND recent = 1").get(session) as {
    s: bigint | null;
  };
  if (first.s === null) return;
  db.prepare(
    "INSERT INTO message_meta (session_id, start_at, start_seq) VALUES (?1, ?2, ?3) ON CONFLICT(session_id) DO UPDATE SET start_at = ?2, start_seq = ?3",
  ).run(session, firstSendAt, first.s);
}

/**
 * A session with archived messages and no cutoff yet (its history.json is gone, or still to be adopted): the
 * cutoff goes after them, so keyword search reads them as the archive and what is added later as recent.
 */
export function markArchivedSessions(db: Database): void {
  db.run(
    `INSERT OR IGNORE INTO message_meta (session_id, start_at, start_seq)
     SELECT session_id, max(send_at) + 1, (SELECT coalesce(max(seq), 0) + 1 FROM messages)
     FROM messages WHERE recent = 0 GROUP BY session_id`,
  );
}
