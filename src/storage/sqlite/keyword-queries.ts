// SQL for keyword search: the newest FTS5 matches (ranked by the caller), match statistics, substring scan over recent rows.
import { lowerCase } from "../../shared/lower-case.ts";
import type { Database } from "bun:sqlite";
import { andWhere, type SqlArg } from "./sql-where.ts";
import type { StoredMessage } from "../../shared/message.ts";
import { ftsHasSession, sessionToken } from "./fts-upgrade.ts";
import type { MessageFilter } from "../../shared/time-filter.ts";
import { maxSeq, toStored, M_MESSAGE_COLUMNS } from "./messages-repo.ts";
import { andFilter } from "./message-filter-sql.ts";
import { cachedRecentRows, cachedRecentScan, heldRecentRows, heldWindowRows } from "./recent-text-cache.ts";
import { type LightMatch, type LightRead, substringMatches } from "./substring-queries.ts";
import { scoped, writeStamp } from "./write-stamp.ts";
import { andHoldsAll, firstHolding, foldedIn, foldsBeyondAscii, likePattern, likeSelectsMore } from "./like-needle.ts";
import { windowTokensSql } from "./index-tokens.ts";
import { docTokens, ftsTotals } from "./fts-totals.ts";
import { hasArchived } from "./recent-tier-size.ts";
import { type AndSplit, rarerFirstMatches } from "./and-by-rarer-terms.ts";
import { inlineTextSql, rankedLower, rankedStartSql, rankedTextSql } from "./ranked-text.ts";
import { schemaShape } from "./schema-shape.ts";

export interface KeywordFilter extends MessageFilter {
  session?: string;
}

/**
 * Only the newest this-many matches (of the session, when one is given) are ranked: ranking reads each
 * matching row, so a common term would otherwise cost a scan of every row holding it.
 */
export const RANK_WINDOW = 2_000;
/** One-term queries rank a smaller window: their order depends only on term count and row length. */
export const ONE_TERM_WINDOW = 500;

/** How many of the newest matches a query of `phrases` phrases ranks. */
export const rankWindow = (phrases: number) => (phrases > 1 ? RANK_WINDOW : ONE_TERM_WINDOW);

const COLS = M_MESSAGE_COLUMNS;
type Row = Parameters<typeof toStored>[0];

/**
 * The newest `size` matches of an FTS expression, newest first, as SQL selecting their seqs (column `s`).
 * No bm25: rowid order is FTS5's native order, so the LIMIT stops the scan, where bm25 would first read
 * every row list of the query's terms in full to count them. In one session: with the session token
 * column, one FTS expression; before the index upgrade, the pass is bounded by the session's seq span and
 * filtered against its seqs. Only rows from seq `from` on (and below seq `below`) are looked at. `ascending`
 * reads them oldest first, which FTS5 does several times faster (newest first, an AND with a long row list
 * costs it a backward pass over that list's pages): the same window when the scope holds no more than
 * `ascending` rows, all of them read and the newest `size` kept. `split`: `match` in two parts, when it is an
 * AND beside words in many rows (the seqs may then be found from its rarer terms, and-by-rarer-terms.ts).
 * Undefined when the session has no message.
 */
function windowSql(
  db: Database,
  match: string,
  session: string | undefined,
  size: number,
  range: { from?: bigint; below?: bigint; ascending?: number; split?: AndSplit } = {},
): { sql: string; args: SqlArg[] } | undefined {
  const from = range.from ?? 0n;
  if (range.split && session === undefined && range.ascending === undefined && size > 0) {
    const seqs = rarerFirstMatches(db, range.split, size, { from, below: range.below });
    if (seqs) return seqsSql(seqs);
  }
  const fts = "SELECT rowid AS s FROM messages_fts WHERE messages_fts MATCH ?";
  let bound = from > 0n ? " AND rowid >= ?" : "";
  const at: SqlArg[] = from > 0n ? [from] : [];
  if (range.below !== undefined) {
    bound += " AND rowid < ?";
    at.push(range.below);
  }
  const order = range.ascending !== undefined ? "ASC" : "DESC";
  const reads = range.ascending !== undefined && range.ascending > size ? range.ascending : size;
  const newest = (sql: string) => (reads > size ? `SELECT s FROM (${sql}) ORDER BY s DESC LIMIT ${size}` : sql);
  if (session === undefined)
    return { sql: newest(`${fts}${bound} ORDER BY rowid ${order} LIMIT ?`), args: [match, ...at, reads] };
  if (ftsHasSession(db))
    return {
      sql: newest(`${fts}${bound} ORDER BY rowid ${order} LIMIT ?`),
      args: [`{sess}: ${sessionToken(session)} AND (${match})`, ...at, reads],
    };
  const span = db
    .query(
      "SELECT (SELECT seq FROM messages WHERE session_id = ?1 ORDER BY seq ASC LIMIT 1) AS lo, (SELECT seq FROM messages WHERE session_id = ?1 ORDER BY seq DESC LIMIT 1) AS hi",
    )
    .get(session) as { lo: bigint | null; hi: bigint | null };
  if (span.lo === null || span.hi === null) return undefined;
  return {
    sql: newest(
      `${fts} AND rowid >= ? AND rowid <= ? AND +rowid IN (SELECT seq FROM messages WHERE session_id = ?) ORDER BY rowid ${order} LIMIT ?`,
    ),
    args: [
      match,
      span.lo > from ? span.lo : from,
      range.below !== undefined && range.below <= span.hi ? range.below - 1n : span.hi,
      session,
      reads,
    ],
  };
}

/** A window of these seqs, in their order, as windowSql gives one (column `s`). */
const seqsSql = (seqs: readonly bigint[]) => ({
  sql: "SELECT CAST(value AS INTEGER) AS s FROM json_each(?)",
  args: [JSON.stringify(seqs.map(String))],
});

/**
 * The oldest recent seq in scope (of the session, when one is given), or undefined when there is no recent
 * row: a recent window's FTS pass stops there, as every recent row is at or after it (index order).
 */
function oldestRecent(db: Database, session: string | undefined): bigint | undefined {
  const r =
    session === undefined
      ? scoped(db, "oldestRecent", () =>
          db
            .query("SELECT seq FROM messages INDEXED BY messages_recent_text WHERE recent = 1 ORDER BY seq LIMIT 1")
            .get(),
        )
      : db.query("SELECT seq FROM messages WHERE session_id = ? AND recent = 1 ORDER BY seq LIMIT 1").get(session);
  return (r as { seq: bigint } | null)?.seq;
}

/** The seqs from `lo` to `hi` that an FTS expression matches. */
export function matchingSeqs(db: Database, match: string, lo: bigint, hi: bigint): Set<bigint> {
  const rows = db
    .query("SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? AND rowid >= ? AND rowid <= ?")
    .values(match, lo, hi) as [bigint][];
  return new Set(rows.map((r) => r[0]));
}

/** The seqs of the newest `size` matches of an FTS expression (see windowSql), newest first. */
export function windowMatches(db: Database, match: string, session: string | undefined, size: number): bigint[] {
  const w = windowSql(db, match, session, size);
  return w ? (db.query(w.sql).values(...w.args) as [bigint][]).map((r) => r[0]) : [];
}

/** A window row: the message and its length in index tokens (FTS5's docsize, every column). */
export interface WindowRow {
  message: StoredMessage;
  tokens: number;
}

/** Which rows of a window to load: the filter's, and only recent (true) or archived (false) ones when set. */
export interface WindowFilter extends KeywordFilter {
  recent?: boolean;
  /**
   * The newest `size` matches that pass the filter (the FTS pass goes on past the rows it drops), instead of
   * the rows passing it among the newest `size` matches.
   */
  passing?: boolean;
  /** Only matches below this seq. */
  below?: bigint;
  /** Only matches at or above this seq. */
  from?: bigint;
  /** These rows (seqs, newest first) instead of the newest matches: the only rows that can be hits (keyword.ts). */
  among?: readonly bigint[];
}

/** Whether the home holds at most `size` rows from seq `from` on (seqs are never reused: a bound by the newest). */
function fitsWindow(db: Database, from: bigint, size: number): boolean {
  return scoped(db, "maxSeq", () => maxSeq(db)) - from < BigInt(size);
}

/** The session's rows from seq `from` on, counted up to `cap` + 1. */
function sessionRowsFrom(db: Database, session: string, from: bigint, cap: number): number {
  const r = db
    .query("SELECT count(*) AS n FROM (SELECT 1 FROM messages WHERE session_id = ? AND seq >= ? LIMIT ?)")
    .get(session, from, cap + 1) as { n: bigint | number };
  return Number(r.n);
}

/**
 * A session's window is read oldest first, all of it, when the session holds at most this many times the
 * window's rows from its start on: reading them all forward costs FTS5 less than the newest `size` backward.
 */
const ASCENDING_SPAN = 4;

/** How many rows an ascending pass reads for the window (see windowSql), or undefined to read newest first. */
function ascendingReads(db: Database, session: string | undefined, from: bigint, size: number): number | undefined {
  if (session === undefined) return fitsWindow(db, from, size) ? size : undefined;
  const rows = sessionRowsFrom(db, session, from, size * ASCENDING_SPAN);
  return rows <= size * ASCENDING_SPAN ? Math.max(rows, size) : undefined;
}

/**
 * The newest `size` matches (windowSql) joined to their rows, filtered, as SQL selecting `cols` (table alias
 * m; `cols` is given the SQL of the row's length in index tokens, see windowTokensSql). A recent window beside
 * archived rows looks each match up in the index messages_recent_text first (a far smaller b-tree than the
 * table when the tier is small), so that only recent rows are read from the table; with no archived row in
 * scope, that lookup would only add to the table's.
 */
function windowJoin(
  db: Database,
  match: string,
  size: number,
  f: WindowFilter,
  cols: (tokens: (inline?: string) => string) => string,
  colArgs: readonly SqlArg[] = [],
  split?: AndSplit,
) {
  const tier = f.recent === true ? oldestRecent(db, f.session) : 0n;
  if (tier === undefined) return undefined;
  const from = f.from !== undefined && f.from > tier ? f.from : tier;
  // Bounded at the oldest recent row, a recent window holds the same recent rows as the unbounded one.
  const w = f.among
    ? seqsSql(f.among)
    : f.passing
      ? windowSql(db, match, f.session, -1, { from, below: f.below })
      : windowSql(db, match, f.session, size, {
          from,
          below: f.below,
          ascending: f.below === undefined ? ascendingReads(db, f.session, from, size) : undefined,
          split,
        });
  if (!w) return undefined;
  const args: SqlArg[] = [...colArgs, ...w.args];
  const indexFirst = f.recent === true && hasArchived(db, f.session);
  const tokens = (inline?: string) => windowTokensSql(db, ftsHasSession(db), inline);
  // CROSS JOIN keeps the window's order (rowid, newest first), which ties in ranking follow; a plain join may
  // read a session's rows first and look each up in the window instead.
  let sql = `SELECT ${cols(tokens)} FROM (${w.sql}) w CROSS JOIN messages m${indexFirst ? " INDEXED BY messages_recent_text" : ""} ON m.seq = w.s WHERE 1`;
  // A literal tier, so that the planner may use the partial index.
  if (f.recent !== undefined) sql += f.recent ? " AND m.recent = 1" : " AND m.recent = 0";
  sql = andWhere(sql, args, "m.session_id = ?", f.session);
  sql = andFilter(sql, args, f, "m.");
  if (f.passing) {
    sql += " LIMIT ?";
    args.push(size);
  }
  return { sql, args };
}

/**
 * The rows of the newest `size` matches (windowMatches) that pass the filter, in any order, read in the
 * same statement as the match (rows deleted since they were indexed are absent).
 */
export function windowRows(db: Database, match: string, size: number, f: WindowFilter): WindowRow[] {
  const w = windowJoin(db, match, size, f, (tokens) => `${COLS}, ${tokens()} AS sz`);
  if (!w) return [];
  return (db.query(w.sql).all(...w.args) as (Row & { sz: Uint8Array | bigint | null })[]).map((r) => ({
    message: toStored(r),
    tokens: docTokens(r.sz),
  }));
}

/** A window row as ranking reads it: no message object is built for rows that are never returned. */
export interface WindowText {
  seq: bigint;
  recent: boolean;
  sendAt: bigint;
  /**
   * The content in lower case (JS toLowerCase), its first RANKED_CHARS characters (ranked-text.ts). Absent from a
   * window read with `repeated` when those characters do not hold that twice (see withLower).
   */
  lower?: string;
  /** `lower` is the start of a longer text (see wholeLower for the whole of it). */
  cut?: true;
  /** The content itself, when asked for. */
  content?: string;
  /** Length in index tokens (FTS5's docsize, every column). */
  tokens: number;
  sender?: string;
}

/**
 * windowRows with only what ranking needs (the content too with `content`); the caller loads the messages
 * it returns (getMessagesBySeq). SQLite lowers ASCII letters (cheaper than a JS copy of every row); text
 * with other cased characters gets JS toLowerCase on top, which gives what it gives on the content.
 * `repeated`: lower-case strings (of ASCII and caseless characters, else they are ignored): only the rows whose
 * text as ranking reads it holds one of them twice are read with it, the others without it (see
 * WindowText.lower); none (an empty list): no row's text is read. `split`: `match` in two parts (see windowSql).
 */
export function windowTexts(
  db: Database,
  match: string,
  size: number,
  f: WindowFilter,
  content = false,
  repeated?: readonly string[],
  split?: AndSplit,
): WindowText[] {
  const recentAll =
    f.recent === true && f.session === undefined && f.below === undefined && f.from === undefined && !f.among;
  const held = recentAll && !f.passing && !content ? heldWindow(db, match, size, f, repeated) : undefined;
  if (held) return held;
  const starts = schemaShape(db).messageStarts;
  // Checked for a repeat, a row's text is read once: a subquery reads it, and the check and lower() read that.
  const twice = !content && repeated !== undefined ? twiceLike(db, repeated, "t") : undefined;
  // A long row's send time and sender are stored after its text, at the end of its overflow pages: they are read
  // for the few rows that use them (LongWindowText), and its length from the index's docsize record. (Its tier is
  // read from the record's header: 0 and 1 take no bytes.)
  const inline = content ? undefined : inlineTextSql("m.content");
  const atInline = (col: string) => (inline ? `CASE WHEN ${inline} THEN ${col} END` : col);
  const text = twice
    ? `${rankedTextSql("m.content", "m.seq", starts)} AS t`
    : !content && repeated?.length === 0
      ? "NULL"
      : rankedStartSql("m.content", "m.seq", starts);
  const w = windowJoin(
    db,
    match,
    size,
    f,
    (tokens) =>
      `m.seq AS s, m.recent AS r, ${atInline("m.send_at")} AS a, ${text}, ${tokens(inline)} AS z, ${atInline("m.sender")} AS n${content ? ", m.content" : ""}`,
    undefined,
    split,
  );
  if (!w) return [];
  // The subquery and this query both have a LIMIT: SQLite then runs the subquery as a coroutine, where it would
  // copy the text's expression into each place this query reads it.
  const sql = twice
    ? `SELECT s, r, a, CASE WHEN ${twice.sql} THEN lower(t) END, z, n FROM (${w.sql}${f.passing ? "" : " LIMIT -1"}) LIMIT -1`
    : w.sql;
  const args = twice ? [...twice.args, ...w.args] : w.args;
  type Row = [bigint, bigint, bigint | null, string | null, Uint8Array | bigint | null, string | null, string?];
  return (db.query(sql).values(...args) as Row[]).map((r) => {
    const recent = r[1] === 1n;
    const tokens = docTokens(r[4]);
    const t: WindowText =
      r[2] === null ? new LongWindowText(db, r[0], recent, tokens) : { seq: r[0], recent, sendAt: r[2], tokens };
    if (r[3] !== null) setLower(t, r[3]);
    if (r[5] !== null) t.sender = r[5];
    if (content) t.content = r[6];
    return t;
  });
}

/** A window row of a long text, whose send time and sender (see windowTexts) are read on first use. */
class LongWindowText implements WindowText {
  lower?: string;
  cut?: true;
  content?: string;
  #stored?: { send_at: bigint; sender: string | null };
  constructor(
    private readonly db: Database,
    readonly seq: bigint,
    readonly recent: boolean,
    readonly tokens: number,
  ) {}
  get sendAt(): bigint {
    return this.#read().send_at;
  }
  get sender(): string | undefined {
    return this.#read().sender ?? undefined;
  }
  // A row removed since the window was read (outside a read transaction) is dropped when the hits are loaded.
  #read() {
    this.#stored ??= (this.db.query("SELECT send_at, sender FROM messages WHERE seq = ?").get(this.seq) as {
      send_at: bigint;
      sender: string | null;
    } | null) ?? { send_at: 0n, sender: null };
    return this.#stored;
  }
}

/**
 * SQL (over `text`, the text ranking reads of the row) true for every row whose text in JS lower case holds one
 * of `keys` twice without overlap: LIKE, which folds ASCII letters as JS does, or, where a key holds what JS
 * folds İ or the Kelvin sign into, any row holding one. Undefined when no key is given or one holds a cased
 * letter beyond ASCII (LIKE would not fold it).
 */
function twiceLike(db: Database, keys: readonly string[], text: string): { sql: string; args: string[] } | undefined {
  if (keys.length === 0 || keys.some((k) => k === "" || foldsBeyondAscii(k))) return undefined;
  const sources = foldedIn(db, keys);
  const likes = keys.map(() => `${text} LIKE ? ESCAPE '\\'`);
  return {
    sql: `(${[...likes, ...sources.map(() => `instr(${text}, ?) > 0`)].join(" OR ")})`,
    args: [
      ...keys.map((k) => {
        const once = likePattern(k);
        return once + once.slice(1);
      }),
      ...sources,
    ],
  };
}

/** A window row's `lower` and `cut` from a value of rankedStartSql. */
function setLower(t: WindowText, start: string): void {
  const { text, cut } = rankedLower(start);
  t.lower = text;
  if (cut) t.cut = true;
}

/** A message's content by seq; undefined when it has been removed. */
export function contentOf(db: Database, seq: bigint): string | undefined {
  return (db.query("SELECT content FROM messages WHERE seq = ?").get(seq) as { content: string } | null)?.content;
}

/** Reads the text of the rows read without it (windowTexts' `repeated`); a row deleted since stays without. */
export function withLower(db: Database, rows: readonly WindowText[]): void {
  const missing = rows.filter((r) => r.lower === undefined);
  if (missing.length === 0) return;
  const bySeq = new Map(missing.map((r) => [r.seq, r]));
  const found = db
    .query(
      `SELECT seq, ${rankedStartSql("content", "messages.seq", schemaShape(db).messageStarts)} FROM messages WHERE seq IN (SELECT CAST(value AS INTEGER) FROM json_each(?))`,
    )
    .values(JSON.stringify(missing.map((r) => String(r.seq)))) as [bigint, string][];
  for (const [seq, start] of found) setLower(bySeq.get(seq)!, start);
}

/**
 * The whole text in lower case of the rows whose `lower` is cut, by seq (what a substring check reads); a row
 * deleted since is absent.
 */
export function wholeLower(db: Database, rows: readonly WindowText[]): Map<bigint, string> {
  const cut = rows.filter((r) => r.cut);
  if (cut.length === 0) return new Map();
  const found = db
    .query("SELECT seq, lower(content) FROM messages WHERE seq IN (SELECT CAST(value AS INTEGER) FROM json_each(?))")
    .values(JSON.stringify(cut.map((r) => String(r.seq)))) as [bigint, string][];
  return new Map(found.map(([seq, lower]) => [seq, lowerCase(lower)]));
}

/**
 * The rows a `passing` window of `size` would read, from a window of the same expression and filter already
 * read (any size): its newest `size` rows, when it holds that many (both are the rows passing the filter among
 * the newest matches, newest first). Undefined when it holds fewer.
 */
export function newestOfWindow(rows: readonly WindowText[], size: number): WindowText[] | undefined {
  if (rows.length < size) return undefined;
  return [...rows].sort((a, b) => (a.seq < b.seq ? 1 : -1)).slice(0, size);
}

/**
 * windowTexts of a recent window across sessions with the recent text held in memory (recent-text-cache.ts):
 * the same rows in the same order, the matches at or after the oldest row held read from memory, the older
 * rest of the window from the table. Undefined when nothing is held for this state, when the scope is small
 * enough for one ascending pass (fitsWindow), or when the window likely reaches far below the rows held (a
 * rare term): its second pass would then cost more than the held rows save.
 */
function heldWindow(
  db: Database,
  match: string,
  size: number,
  f: WindowFilter,
  repeated?: readonly string[],
): WindowText[] | undefined {
  const held = heldRecentRows(db);
  if (!held) return undefined;
  const from = oldestRecent(db, undefined);
  if (from === undefined) return [];
  if (fitsWindow(db, from, size)) return undefined;
  if (!held.complete && size / indexStats(db).share(match) > 2 * Number(held.newest - held.floor + 1n))
    return undefined;
  const top = held.complete || held.floor < from ? from : held.floor;
  const w = windowSql(db, match, undefined, size, { from: top })!;
  const seqs = (db.query(w.sql).values(...w.args) as [bigint][]).map((r) => r[0]);
  const rows = heldWindowRows(db, seqs, f);
  if (!rows) return undefined;
  const out = rows.map((h) => windowText(h.seq, h.sendAt, h.lower, h.tokens, h.sender, h.cut));
  if (seqs.length < size && top > from)
    out.push(...windowTexts(db, match, size - seqs.length, { ...f, below: top }, false, repeated));
  return out;
}

function windowText(seq: bigint, sendAt: bigint, lower: string, tokens: number, sender: string | null, cut?: true) {
  const t: WindowText = { seq, recent: true, sendAt, lower, tokens };
  if (sender !== null) t.sender = sender;
  if (cut) t.cut = true;
  return t;
}

const PROBE = 256;

/**
 * The share of indexed rows matching an FTS expression, without reading its whole row list: exact when it
 * has fewer than PROBE matches, else the density of its newest PROBE matches over their rowid span.
 */
export function matchShare(db: Database, match: string, totalRows: number): number {
  const seqs = db
    .query("SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rowid DESC LIMIT ?")
    .values(match, PROBE) as [bigint][];
  if (totalRows <= 0) return 0;
  if (seqs.length < PROBE) return seqs.length / totalRows;
  const span = Number(seqs[0]![0] - seqs[seqs.length - 1]![0]) + 1;
  return Math.min(1, PROBE / span);
}

/** The index's totals and the match share of each phrase seen: cached per connection until the next write. */
export interface IndexStats {
  rows: number;
  avgTokens: number;
  /** matchShare of an FTS expression. */
  share(match: string): number;
  /** Whether any row matches an FTS expression (share(match) > 0): the kept share, else one row looked up. */
  has(match: string): boolean;
}

const SHARES_KEPT = 4096;
const statsCache = new WeakMap<
  Database,
  { stamp: string; rows: number; avgTokens: number; shares: Map<string, number>; found: Map<string, boolean> }
>();

export function indexStats(db: Database): IndexStats {
  const stamp = writeStamp(db);
  let c = statsCache.get(db);
  if (!c || c.stamp !== stamp)
    statsCache.set(db, (c = { stamp, ...ftsTotals(db), shares: new Map(), found: new Map() }));
  const { rows, avgTokens, shares, found } = c;
  const share = (match: string) => {
    let v = shares.get(match);
    if (v === undefined) {
      if (shares.size >= SHARES_KEPT) shares.clear();
      shares.set(match, (v = matchShare(db, match, rows)));
    }
    return v;
  };
  const has = (match: string) => {
    const known = shares.get(match);
    if (known !== undefined) return known > 0;
    let v = found.get(match);
    if (v === undefined) {
      if (found.size >= SHARES_KEPT) found.clear();
      v = rows > 0 && db.query("SELECT 1 FROM messages_fts WHERE messages_fts MATCH ? LIMIT 1").get(match) !== null;
      found.set(match, v);
    }
    return v;
  };
  return { rows, avgTokens, share, has };
}

function rowsBySeqDesc(db: Database, seqs: readonly bigint[]): StoredMessage[] {
  if (seqs.length === 0) return [];
  const sql = `SELECT ${COLS} FROM messages m WHERE m.seq IN (SELECT CAST(value AS INTEGER) FROM json_each(?)) ORDER BY m.seq DESC`;
  return (db.query(sql).all(JSON.stringify(seqs.map(String))) as Row[]).map(toStored);
}

/**
 * Recent rows whose text contains every needle (case-insensitive; the caller re-checks with full Unicode
 * case folding). Newest first. Across sessions: the recent text held in memory when the recent tier is small
 * (recent-text-cache.ts); else the substring index's candidates once it is built (substring-queries.ts;
 * `select`: strings every match holds, to find them); else, or when it cannot answer cheaply, the covering
 * index messages_recent_text is scanned newest-first without touching the table, with LIKE, which folds ASCII
 * case only (needles with other cased letters are checked in JS). In one session, its recent rows are read
 * (history.json's size bounds them).
 */
export function scanRecent(
  db: Database,
  needles: readonly string[],
  f: KeywordFilter,
  limit: number,
  select?: readonly string[],
  /** This search looked in the recent text cache already (recentTextMatches). */
  askedCache = false,
  /** The substring index's matches are read light (LightMatch); the other paths' whole. */
  light?: LightRead,
): (StoredMessage | LightMatch)[] {
  if (f.session === undefined) {
    // The in-memory recent text (a small recent tier) is faster than the index, which holds every tier; it
    // folds ASCII case only, so a needle with other cased letters goes to the index, else to the scan below.
    const asciiFolded = !needles.some(foldsBeyondAscii);
    const cached = asciiFolded ? cachedRecentScan(db, needles, f, limit, askedCache) : undefined;
    if (cached) return rowsBySeqDesc(db, cached);
  }
  // A session's recent rows are scanned below unless they are many (see SCANNED_TIER).
  const indexed = substringMatches(db, needles, { ...f, recent: true }, limit, select, light);
  if (indexed) return indexed;
  const args: (string | bigint | number)[] = [];
  let where = "recent = 1";
  where = andWhere(where, args, "session_id = ?", f.session);
  where = andFilter(where, args, f);
  // LIKE folds ASCII case only: needles with other cased letters are checked here instead.
  if (needles.some(foldsBeyondAscii)) return scanSession(db, where, args, needles, limit);
  where = andHoldsAll(db, where, args, "content", needles);
  if (f.session !== undefined)
    return firstHolding<Row>(
      db,
      `SELECT ${COLS} FROM messages m WHERE ${where} ORDER BY m.seq DESC`,
      args,
      needles,
      limit,
    ).map(toStored);
  // LIKE may select rows that do not hold them: each is then checked before it counts (firstHolding).
  const newest = `SELECT seq, content FROM messages INDEXED BY messages_recent_text WHERE ${where} ORDER BY seq DESC`;
  if (likeSelectsMore(db, needles))
    return rowsBySeqDesc(
      db,
      firstHolding<{ seq: bigint; content: string }>(db, newest, args, needles, limit, true).map((r) => r.seq),
    );
  const sql = `SELECT ${COLS} FROM messages m WHERE m.seq IN (SELECT seq FROM messages INDEXED BY messages_recent_text WHERE ${where} ORDER BY seq DESC LIMIT ?) ORDER BY m.seq DESC`;
  return (db.query(sql).all(...args, limit) as Row[]).map(toStored);
}

/**
 * scanRecent's rows across sessions read from the recent text held in memory, when it answers for these
 * needles: rows as ranking reads them (no message is read; the caller loads those it returns), each with its
 * text, ASCII letters in lower case (what LIKE compares). Of a tier held in part, when `limit` rows held match
 * and `share` (of rows expected to hold the needles) says they likely do. Undefined when scanRecent must run
 * instead.
 */
export function recentTextMatches(
  db: Database,
  needles: readonly string[],
  f: KeywordFilter,
  limit: number,
  share?: () => number,
): { row: WindowText; text: string }[] | undefined {
  if (f.session !== undefined || needles.some(foldsBeyondAscii)) return undefined;
  return cachedRecentRows(db, needles, f, limit, share)?.map((r) => {
    const row: WindowText = {
      seq: r.seq,
      recent: true,
      sendAt: r.sendAt,
      lower: lowerCase(r.text),
      tokens: 0,
    };
    if (r.sender !== null) row.sender = r.sender;
    return { row, text: r.text };
  });
}

/** The recent rows in scope (the `where` built by scanRecent) holding every needle in Unicode lower case, newest first. */
function scanSession(db: Database, where: string, args: SqlArg[], needles: readonly string[], limit: number) {
  const sql = `SELECT ${COLS} FROM messages m WHERE ${where} ORDER BY m.seq DESC`;
  return firstHolding<Row>(db, sql, args, needles, limit, true).map(toStored);
}

/**
 * Archived rows whose text contains every needle (symbols, which the word index drops): the substring
 * index's candidates (see scanRecent), else a walk newest first, stopping at `limit` matches. The caller
 * re-checks each row (whitespace and Unicode case).
 */
export function scanArchive(
  db: Database,
  needles: readonly string[],
  f: KeywordFilter,
  limit: number,
  select?: readonly string[],
): (StoredMessage | LightMatch)[] {
  const indexed = substringMatches(db, needles, { ...f, recent: false }, limit, select);
  if (indexed) return indexed;
  const args: SqlArg[] = [];
  let where = "m.recent = 0";
  where = andWhere(where, args, "m.session_id = ?", f.session);
  where = andFilter(where, args, f, "m.");
  where = andHoldsAll(db, where, args, "m.content", needles);
  const sql = `SELECT ${COLS} FROM messages m WHERE ${where} ORDER BY m.seq DESC`;
  return firstHolding<Row>(db, sql, args, needles, limit).map(toStored);
}
