// The recent tier's text held in memory per connection: a long-lived process (TUI, daemon, MCP) that searches
// again before anything is written scans strings instead of running LIKE over every recent row, and reads a
// recent match window's rows from memory instead of the table. A small tier is held whole (the substring
// scan needs all of it); of a larger one, its newest rows up to the cap (match windows, newest first, mostly
// fall there, and so do the newest substring matches of a common needle). Built only once searches at one
// state of the database have cost about what building it costs (see BUILD_AFTER): a process that writes
// between its few searches (an agent's turn) never pays for it; one that searches on (the TUI) soon has it.
import type { Database } from "bun:sqlite";
import { sameSender, type MessageFilter } from "../../shared/time-filter.ts";
import { asciiLower, lowerCase } from "../../shared/lower-case.ts";
import { ftsHasSession } from "./fts-upgrade.ts";
import { docTokens } from "./fts-totals.ts";
import { windowTokensSql } from "./index-tokens.ts";
import { recentTierAtMost } from "./recent-tier-size.ts";
import { writeStamp } from "./write-stamp.ts";
import { foldLikeJs } from "./like-needle.ts";
import { RANKED_CHARS, rankedStart } from "./ranked-text.ts";

/**
 * Recent rows and text kept at most (`chars`, UTF-16 units): a tier with more is held in part, its newest rows,
 * and its substring scans run in SQL.
 */
export const RECENT_TEXT_CAP = { chars: 8_000_000, rows: 50_000 };

interface RecentText {
  /** Every recent row is held; else the newest ones, every recent row from the oldest held on. */
  complete: boolean;
  /** Newest first. */
  seq: bigint[];
  /** The same seqs as numbers, in one block: looked up by binary search (a BigInt is a separate object). */
  seqNum: Float64Array;
  sendAt: bigint[];
  role: string[];
  sender: (string | null)[];
  /** The content with ASCII letters in lower case (what LIKE and SQLite's lower() compare), İ and the Kelvin sign as JS lower-cases them. */
  text: string[];
  /** The text in Unicode lower case (lowerCase), set when a window first reads the row. */
  lower: (string | undefined)[];
  /** The row's length in index tokens, as the window SQL reads it (windowTokensSql). */
  tokens: number[];
  /** Every text in UTF-8, in the same order, joined by SEP (one byte search finds a needle's rows; a native
   * search, several times faster than String indexOf), and the byte where each starts. */
  joined: Buffer;
  starts: number[];
  /** 1 where the text may be longer than ranking reads (more UTF-8 bytes than RANKED_CHARS). */
  long: Uint8Array;
}

const SEP = "\u0000";

interface State {
  stamp: string;
  /** Searches seen at this stamp. */
  seen: number;
  rows?: RecentText;
}

/**
 * Searches at one state before the text is read into memory. Reading it costs what the SQL of about a dozen
 * searches costs over having it (a 10,000-row tier: 29 ms to read, 1.8-2.8 ms saved a search; the newest
 * 50,000 rows of a larger tier: 60-110 ms, 2-3 ms saved a multi-word search), so that many are paid first:
 * about twice the cost of the best choice made knowing how many searches would follow, at most.
 */
export const BUILD_AFTER = 12;

const states = new WeakMap<Database, State>();
/** Connections of a one-shot process: it will not search again, so loading the text would only cost. */
const oneShot = new WeakSet<Database>();

/** Never hold the recent text for this connection (a short-lived process: one command, then exit). */
export function skipRecentTextCache(db: Database): void {
  oneShot.add(db);
}

function load(db: Database): RecentText {
  const out: RecentText = {
    complete: true,
    seq: [],
    seqNum: new Float64Array(0),
    sendAt: [],
    role: [],
    sender: [],
    text: [],
    lower: [],
    tokens: [],
    joined: Buffer.alloc(0),
    starts: [],
    long: new Uint8Array(0),
  };
  let chars = 0;
  // SQLite's lower() folds ASCII letters only, as asciiLower does.
  const rows = db
    .query(
      `SELECT r.seq, r.send_at, m.role, m.sender, lower(r.content) AS text, ${windowTokensSql(db, ftsHasSession(db))} AS sz FROM messages AS r INDEXED BY messages_recent_text JOIN messages m ON m.seq = r.seq WHERE r.recent = 1 ORDER BY r.seq DESC LIMIT ?`,
    )
    .iterate(RECENT_TEXT_CAP.rows + 1) as IterableIterator<{
    seq: bigint;
    send_at: bigint;
    role: string;
    sender: string | null;
    text: string;
    sz: Uint8Array | bigint | null;
  }>;
  // Row by row, so a big tier stops at the cap instead of being read whole.
  for (const row of rows) {
    chars += row.text.length;
    if (chars > RECENT_TEXT_CAP.chars || out.seq.length === RECENT_TEXT_CAP.rows) {
      out.complete = false;
      break;
    }
    out.seq.push(row.seq);
    out.sendAt.push(row.send_at);
    out.role.push(row.role);
    out.sender.push(row.sender);
    out.text.push(foldLikeJs(row.text));
    out.lower.push(undefined);
    out.tokens.push(docTokens(row.sz));
  }
  out.seqNum = Float64Array.from(out.seq, Number);
  let at = 0;
  out.long = new Uint8Array(out.text.length);
  for (const [i, t] of out.text.entries()) {
    out.starts.push(at);
    const bytes = Buffer.byteLength(t);
    // The held text has at least as many bytes as the content has characters.
    if (bytes > RANKED_CHARS) out.long[i] = 1;
    at += bytes + 1;
  }
  // Written text by text: joining them first would hold a second copy of every text at once.
  out.joined = Buffer.alloc(at);
  for (const [i, t] of out.text.entries()) out.joined.write(t, out.starts[i]!); // SEP (a zero byte) between
  return out;
}

/** The rows held for the database as it is now; undefined when none are (never, or not since the last write). */
function heldNow(db: Database): RecentText | undefined {
  const s = states.get(db);
  return s?.rows && s.stamp === writeStamp(db) ? s.rows : undefined;
}

/** Whether this connection holds the recent text now (`whole`: all of the tier's). */
export function holdsRecentText(db: Database, whole = true): boolean {
  const r = heldNow(db);
  return r !== undefined && (r.complete || (!whole && r.seq.length > 0));
}

/**
 * A long-lived reader that will search again (the terminal UI, while it warms up): hold the recent text now,
 * when the tier is small (held whole), instead of at the next search.
 */
export function holdRecentText(db: Database): void {
  if (oneShot.has(db) || !recentTierAtMost(db, RECENT_TEXT_CAP.rows)) return;
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
  /** The content with ASCII letters in lower case, İ and the Kelvin sign as JS lower-cases them. */
  text: string;
}

/** cachedRecentScan's rows themselves, read from memory (no row of the table is read). */
export function cachedRecentRows(
  db: Database,
  needles: readonly string[],
  f: MessageFilter,
  limit: number,
  /** The share of rows expected to hold every needle: a tier held in part is looked in too (see matchingRows). */
  share?: () => number,
): CachedRecentRow[] | undefined {
  const found = matchingRows(db, needles, f, limit, true, share);
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
  if (!s || s.stamp !== stamp) states.set(db, (s = { stamp, seen: 0 }));
  return s;
}

/** Whether row `i` of the held text passes the filter. */
const passes = (r: RecentText, i: number, f: MessageFilter) =>
  (f.since === undefined || r.sendAt[i]! >= f.since) &&
  (f.until === undefined || r.sendAt[i]! < f.until) &&
  (f.role === undefined || r.role[i] === f.role) &&
  (f.sender === undefined || sameSender(r.sender[i], f.sender));

/** A recent window row read from memory (what keyword-queries.ts windowTexts reads from the table). */
export interface HeldWindowRow {
  seq: bigint;
  sendAt: bigint;
  sender: string | null;
  /** The content in Unicode lower case. */
  lower: string;
  /** Length in index tokens. */
  tokens: number;
  /** `lower` is the start of a longer text, as ranking reads it from the table (ranked-text.ts). */
  cut?: true;
}

/**
 * The held rows of this state: whether they are the whole tier, and the seqs of the oldest and the newest;
 * undefined for none.
 */
export function heldRecentRows(db: Database): { complete: boolean; floor: bigint; newest: bigint } | undefined {
  const r = heldNow(db);
  // Nothing held of a tier too big for even its newest row is nothing to read from.
  if (!r || (!r.complete && r.seq.length === 0)) return undefined;
  return { complete: r.complete, floor: r.seq.at(-1) ?? 0n, newest: r.seq[0] ?? 0n };
}

/**
 * The recent rows among `seqs` (each at or after the oldest row held) that pass the filter, in the order of
 * `seqs` (newest first), read from memory: a seq that is not held is not a recent row. Undefined when the
 * database was written since heldRecentRows (`seqs` may then hold rows written since), or when a row's start
 * as ranking reads it may differ from the table's.
 */
export function heldWindowRows(db: Database, seqs: readonly bigint[], f: MessageFilter): HeldWindowRow[] | undefined {
  const r = heldNow(db);
  if (!r) return undefined;
  const out: HeldWindowRow[] = [];
  // Both lists newest first: each seq is looked for past the last one found.
  let i = 0;
  for (const seq of seqs) {
    const n = Number(seq);
    i = firstAtMost(r.seqNum, n, i);
    if (i === r.seqNum.length) break;
    if (r.seqNum[i] !== n || !passes(r, i, f)) continue;
    const start = r.long[i] === 1 ? rankedStart(r.text[i]!) : undefined;
    // The table's start counts İ as one character, held as two (i̇): with one there, the ends may differ.
    if (start?.cut && start.text.includes("\u0307")) return undefined;
    const row: HeldWindowRow = { seq, sendAt: r.sendAt[i]!, sender: r.sender[i]!, lower: "", tokens: r.tokens[i]! };
    if (start?.cut) {
      row.lower = lowerCase(start.text);
      row.cut = true;
    } else row.lower = r.lower[i] ??= lowerCase(r.text[i]!);
    out.push(row);
  }
  return out;
}

/** The first index from `from` on whose seq is at most `seq` in a list newest first (its length when none). */
function firstAtMost(seqs: Float64Array, seq: number, from: number): number {
  let lo = from;
  let hi = seqs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (seqs[mid]! > seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The cache and the indexes in it of cachedRecentScan's rows; undefined without a cache for this state. */
function matchingRows(
  db: Database,
  needles: readonly string[],
  f: MessageFilter,
  limit: number,
  count = true,
  /**
   * Of a tier held in part, answer when `limit` rows held match: they are the newest matches, as every recent row
   * from the oldest held on is held. Else the SQL scan answers (the matches may go on in rows not held). Looked
   * for only when this share of rows expected to hold the needles says half as many again should: a look that
   * falls short is time lost before the SQL runs.
   */
  share?: () => number,
): { r: RecentText; rows: number[] } | undefined {
  if (oneShot.has(db)) return undefined;
  const s = stateNow(db);
  if (count) s.seen++;
  if (s.seen < BUILD_AFTER) return undefined;
  s.rows ??= load(db);
  if (!s.rows.complete && !(share && share() * s.rows.seq.length >= 1.5 * limit)) return undefined;
  const found = scanHeld(s.rows, needles, f, limit);
  return s.rows.complete || found.rows.length >= limit ? found : undefined;
}

/**
 * The held rows passing the filter whose text holds every needle (ASCII case folded), newest first, at most
 * `limit`.
 */
function scanHeld(
  r: RecentText,
  needles: readonly string[],
  f: MessageFilter,
  limit: number,
): { r: RecentText; rows: number[] } {
  const lowered = needles.map(asciiLower);
  const pass = (i: number) => passes(r, i, f) && lowered.every((n) => r.text[i]!.includes(n));
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
