// The recent tier's text held in memory per connection, for the substring scan across sessions: a long-lived
// process (TUI, daemon, MCP) that searches again before anything is written scans strings instead of
// running LIKE over every recent row. Kept only for a small recent tier, and built only once searches at one
// state of the database have cost about what building it costs (see BUILD_AFTER): a process that writes
// between its few searches (an agent's turn) never pays for it; one that searches on (the TUI) soon has it.
import type { Database } from "bun:sqlite";
import type { MessageFilter } from "../../shared/time-filter.ts";
import { recentTierAtMost } from "./recent-tier-size.ts";
import { writeStamp } from "./write-stamp.ts";

/**
 * Recent text kept at most (`chars`, UTF-16 units); a home with more recent text scans it with SQL. A tier
 * of more than `rows` rows is not even read to find out (past that many, the text cap is all but certain).
 */
export const RECENT_TEXT_CAP = { chars: 8_000_000, rows: 50_000 };

interface RecentText {
  seq: bigint[];
  session: string[];
  sendAt: bigint[];
  role: string[];
  sender: (string | null)[];
  /** The content with ASCII letters in lower case only: what LIKE and SQLite's lower() compare. */
  text: string[];
  /** Every text in UTF-8, in the same order, joined by SEP (one byte search finds a needle's rows; a native
   * search, several times faster than String indexOf), and the byte where each starts. */
  joined: Buffer;
  starts: number[];
}

const SEP = "\u0000";

interface State {
  stamp: string;
  /** Searches seen at this stamp. */
  seen: number;
  rows?: RecentText | "too-big";
  /** Stamps seen since the tier was last found too big: it is measured again only every RECHECK stamps. */
  sinceTooBig?: number;
}

const RECHECK = 64;

/**
 * Searches at one state before the text is read into memory. Reading it costs what the SQL scans of about a
 * dozen searches cost over having it (a 10,000-row tier: 29 ms to read, 1.8-2.8 ms saved a search; both
 * grow with the tier's text), so that many are paid first: never more than about twice the cost of the best
 * choice made knowing how many searches would follow.
 */
export const BUILD_AFTER = 12;

const states = new WeakMap<Database, State>();
/** Connections of a one-shot process: it will not search again, so loading the text would only cost. */
const oneShot = new WeakSet<Database>();

/** Never hold the recent text for this connection (a short-lived process: one command, then exit). */
export function skipRecentTextCache(db: Database): void {
  oneShot.add(db);
}

const UPPER = /[A-Z]/;
const asciiLower = (s: string) => (UPPER.test(s) ? s.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : s);

function load(db: Database): RecentText | "too-big" {
  if (!recentTierAtMost(db, RECENT_TEXT_CAP.rows)) return "too-big";
  const out: RecentText = {
    seq: [],
    session: [],
    sendAt: [],
    role: [],
    sender: [],
    text: [],
    joined: Buffer.alloc(0),
    starts: [],
  };
  let chars = 0;
  const rows = db
    .query(
      "SELECT r.seq, r.session_id, r.send_at, m.role, m.sender, r.content FROM messages AS r INDEXED BY messages_recent_text JOIN messages m ON m.seq = r.seq WHERE r.recent = 1 ORDER BY r.seq DESC",
    )
    .iterate() as IterableIterator<{
    seq: bigint;
    session_id: string;
    send_at: bigint;
    role: string;
    sender: string | null;
    content: string;
  }>;
  // Row by row, so a big tier stops at the cap instead of being read whole.
  for (const row of rows) {
    chars += row.content.length;
    if (chars > RECENT_TEXT_CAP.chars) return "too-big";
    out.seq.push(row.seq);
    out.session.push(row.session_id);
    out.sendAt.push(row.send_at);
    out.role.push(row.role);
    out.sender.push(row.sender);
    out.text.push(asciiLower(row.content));
  }
  let at = 0;
  for (const t of out.text) {
    out.starts.push(at);
    at += Buffer.byteLength(t) + 1;
  }
  out.joined = Buffer.from(out.text.join(SEP));
  return out;
}

/** Whether this connection holds the recent text now. */
export function holdsRecentText(db: Database): boolean {
  const s = states.get(db);
  return s !== undefined && s.rows !== undefined && s.rows !== "too-big" && s.stamp === writeStamp(db);
}

/**
 * A long-lived reader that will search again (the terminal UI, while it warms up): hold the recent text now,
 * when the tier is small, instead of at the next search.
 */
export function holdRecentText(db: Database): void {
  if (oneShot.has(db)) return;
  const s = stateNow(db);
  s.seen = Math.max(s.seen, BUILD_AFTER - 1); // this lookup is then the one that reads the text
  cachedRecentScan(db, [], {}, 1);
}

/** Index of the row whose text holds position `at` of the joined texts. */
function rowAt(starts: readonly number[], at: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * The seqs of the newest `limit` recent rows (all sessions) passing the filter whose text contains every
 * needle, ASCII case folded, exactly as `content LIKE '%needle%'` selects them; undefined when there is no
 * cache for the database as it is now (the caller runs the SQL).
 */
export function cachedRecentScan(
  db: Database,
  needles: readonly string[],
  f: MessageFilter,
  limit: number,
  /** This search asked already (cachedRecentRows): it is not counted again. */
  askedBefore = false,
): bigint[] | undefined {
  const found = matchingRows(db, needles, f, limit, !askedBefore);
  return found?.rows.map((i) => found.r.seq[i]!);
}

/** A row cachedRecentScan selects, with what ranking reads of it. */
export interface CachedRecentRow {
  seq: bigint;
  sendAt: bigint;
  sender: string | null;
  /** The content with ASCII letters in lower case only. */
  text: string;
}

/** cachedRecentScan's rows themselves, read from memory (no row of the table is read). */
export function cachedRecentRows(
  db: Database,
  needles: readonly string[],
  f: MessageFilter,
  limit: number,
): CachedRecentRow[] | undefined {
  const found = matchingRows(db, needles, f, limit);
  return found?.rows.map((i) => ({
    seq: found.r.seq[i]!,
    sendAt: found.r.sendAt[i]!,
    sender: found.r.sender[i]!,
    text: found.r.text[i]!,
  }));
}

/** This connection's state for the database as it is now (a new one, counting from zero, after any write). */
function stateNow(db: Database): State {
  const stamp = writeStamp(db);
  let s = states.get(db);
  if (!s || s.stamp !== stamp) {
    const since = s?.sinceTooBig === undefined ? undefined : s.sinceTooBig + 1;
    states.set(db, (s = { stamp, seen: 0 }));
    if (since !== undefined && since < RECHECK) {
      s.sinceTooBig = since;
      s.rows = "too-big";
    }
  }
  return s;
}

/** The cache and the indexes in it of cachedRecentScan's rows; undefined without a cache for this state. */
function matchingRows(
  db: Database,
  needles: readonly string[],
  f: MessageFilter,
  limit: number,
  count = true,
): { r: RecentText; rows: number[] } | undefined {
  if (oneShot.has(db)) return undefined;
  const s = stateNow(db);
  if (count) s.seen++;
  if (s.seen < BUILD_AFTER) return undefined;
  if (!s.rows) {
    s.rows = load(db);
    if (s.rows === "too-big") s.sinceTooBig = 0;
  }
  if (s.rows === "too-big") return undefined;
  const r = s.rows;
  const lowered = needles.map(asciiLower);
  const pass = (i: number) =>
    (f.since === undefined || r.sendAt[i]! >= f.since) &&
    (f.until === undefined || r.sendAt[i]! < f.until) &&
    (f.role === undefined || r.role[i] === f.role) &&
    (f.sender === undefined || r.sender[i] === f.sender) &&
    lowered.every((n) => r.text[i]!.includes(n));
  const out: number[] = [];
  if (lowered.some((n) => n === "" || n.includes(SEP))) {
    for (let i = 0; i < r.seq.length && out.length < limit; i++) if (pass(i)) out.push(i);
    return { r, rows: out };
  }
  // Rows holding every needle, newest first, found by native byte searches over the joined texts: each
  // needle jumps to its next row at or after the current one, until all land in the same row (then
  // pass() checks the filters and every needle in the row's own text).
  const bytes = lowered.map((n) => Buffer.from(n));
  let row = 0;
  scan: while (row < r.seq.length && out.length < limit) {
    for (const b of bytes) {
      const at = r.joined.indexOf(b, r.starts[row]!);
      if (at < 0) break scan;
      const i = rowAt(r.starts, at);
      if (i > row) {
        row = i;
        continue scan;
      }
    }
    if (pass(row)) out.push(row);
    row++;
  }
  return { r, rows: out };
}
