// Substring search through the substring index (substring-index.ts, a table per tier): the rows that can hold
// the needles, newest first, each checked for every needle (lower case, as the callers compare). A needle of
// three characters or more selects the rows holding all its trigrams; one of one or two characters is looked
// for in the newest rows first (a common one is there), then in the rows of the trigrams it begins, when few.
// A long needle's walk that finds its matches sparse checks the rows of a short needle instead, when few (see
// fewerRows).
import type { Database } from "bun:sqlite";
import type { StoredMessage } from "../../shared/message.ts";
import type { MessageFilter } from "../../shared/time-filter.ts";
import { andFilter } from "./message-filter-sql.ts";
import { toStored, M_MESSAGE_COLUMNS } from "./messages-repo.ts";
import { andWhere, type SqlArg } from "./sql-where.ts";
import { hasArchived, recentTierAtMost } from "./recent-tier-size.ts";
import { ftsTotals } from "./fts-totals.ts";
import { ARCHIVED_TRIGRAM, RECENT_TRIGRAM, trigramState, type TrigramState } from "./substring-index.ts";
import { writeStamp } from "./write-stamp.ts";
import { foldSafeRuns } from "./trigram-fold.ts";
import { andHoldsAll, firstHolding, foldsBeyondAscii, likeSelectsMore } from "./like-needle.ts";

export interface SubstringScope extends MessageFilter {
  session?: string;
  /** The tier: recent (true) or archived (false) rows. */
  recent: boolean;
}

/**
 * Rows of a short needle's trigrams read at most; past that it counts as common, and a newest-first scan
 * finds `limit` matches sooner. With n rows and a needle in a share f of them, reading its rows costs about
 * f·n, a scan about limit/f: they meet at f·n = √(limit·n).
 */
const shortCap = (db: Database, limit: number) => {
  const rows = Number((db.query("SELECT coalesce(max(seq), 0) AS n FROM messages").get() as { n: bigint }).n);
  return Math.round(Math.min(20_000, Math.max(500, Math.sqrt(limit * rows))));
};
/** Candidates checked at most before giving up (the caller scans instead). */
const MAX_CHECKED = 20_000;
/**
 * A tier of at most this many rows (of a session of at most this many messages; the recent tier across
 * sessions until the index is split by tier) is scanned: as fast as the index, and bounded. A table that holds
 * every tier, asked for the few recent rows of a mostly archived home, walks the archived rows' matches too (and
 * reads cold row lists in a fresh process).
 */
export const SCANNED_TIER = { rows: 20_000 };

/** Where a tier's rows are indexed: tables read newest first, each for the seqs in its bounds. */
interface Source {
  table: string;
  /** Only rows after this seq. */
  above?: bigint;
  /** Only rows up to this seq. */
  atMost?: bigint;
}

/** The index tables of a tier, newest rows first (see substring-index.ts: until the split is done, rows after its cursor are in the recent table). */
function tierSources(s: TrigramState, recent: boolean): Source[] {
  if (recent || !s.split) return [{ table: RECENT_TRIGRAM }];
  if (s.splitDone) return [{ table: ARCHIVED_TRIGRAM }];
  return [
    { table: RECENT_TRIGRAM, above: s.splitCursor },
    { table: ARCHIVED_TRIGRAM, atMost: s.splitCursor },
  ];
}

/** The bounds of a source as SQL over rowid (or `column`), with their arguments. */
function bounds(src: Source, column = "rowid"): { sql: string; args: bigint[] } {
  let sql = "";
  const args: bigint[] = [];
  if (src.above !== undefined) {
    sql += ` AND ${column} > ?`;
    args.push(src.above);
  }
  if (src.atMost !== undefined) {
    sql += ` AND ${column} <= ?`;
    args.push(src.atMost);
  }
  return { sql, args };
}
/** The newest limit × this many rows of the scope are checked first for short needles. */
const PROBE_FACTOR = 20;

type Row = Parameters<typeof toStored>[0];
const COLS = M_MESSAGE_COLUMNS;

const chars = (s: string) => Array.from(s.replace(/\s+/g, " ").toLowerCase());

/** Each select string's runs the index folds as the needles are (trigram-fold.ts). */
const selectRuns = (select: readonly string[]) => select.flatMap((s) => foldSafeRuns(chars(s)));

/**
 * The newest `limit` messages of the scope whose text holds every needle (`content.toLowerCase()` includes
 * it). `select`: strings every such message holds, whitespace runs as one space (default: the needles),
 * used to find the candidates. Undefined when the index cannot answer cheaply (not built yet, only common
 * short needles, or too many candidates that fail the check): the caller scans.
 */
export function substringMatches(
  db: Database,
  needles: readonly string[],
  scope: SubstringScope,
  limit: number,
  select: readonly string[] = needles,
  light?: LightRead,
): StoredMessage[] | LightMatch[] | undefined {
  const state = trigramState(db);
  if (needles.length === 0 || !state?.done || smallTier(db, scope, state)) return undefined;
  const lowered = needles.map((n) => n.toLowerCase());
  const holds = (content: string) => {
    const text = content.toLowerCase();
    return lowered.every((n) => text.includes(n));
  };
  const found = (rows: StoredMessage[]) => (light ? rows.slice(0, limit).map(lightOf) : rows.slice(0, limit));
  // A common needle is in `limit` of the scope's newest rows already. In a session that is looked for first,
  // whatever the needles: the index's candidates (of every session) would mostly be other sessions' rows. The
  // look reads every row of a small tier (a large session's recent rows, mostly archived).
  const probe = () => {
    const p = probeNewest(db, lowered, scope, limit * PROBE_FACTOR, limit);
    return { rows: p.rows.filter((m) => holds(m.content)), whole: p.whole };
  };
  const newest = scope.session !== undefined ? probe() : undefined;
  if (newest && (newest.rows.length >= limit || newest.whole)) return found(newest.rows);
  const sources = tierSources(state, scope.recent);
  const grams = selectRuns(select);
  const long = grams.filter((g) => g.length >= 3);
  if (long.length > 0) {
    const { expr, candidates, narrower } = matchExpr(db, sources[0]!.table, long);
    // The check in SQL costs each candidate a few times what a scan costs a row: a walk selecting most rows
    // goes through JS, where it gives up for the scan once too many candidates fail.
    const refine =
      candidates !== undefined && narrower ? { candidates, narrower, fewer: fewerRows(db, sources, grams) } : undefined;
    if (lowered.every(checkedInSql) && !(candidates !== undefined && candidates > CHECKED_WALK.share))
      return walkChecked(db, sources, expr, scope, limit, lowered, holds, light, refine);
    return walkTrigrams(db, sources, expr, scope, limit, holds, light, refine);
  }
  // Short needles only: a common one (`,`) is in `limit` of the newest rows. Else the rarest one's rows, longest
  // first (two characters are rarer than one).
  const newer = newest ?? probe();
  if (newer.rows.length >= limit) return found(newer.rows);
  const short = grams.filter((g) => g.length > 0).sort((a, b) => b.length - a.length);
  const cap = shortCap(db, limit);
  for (const g of short.slice(0, 3)) {
    const seqs = gramRows(db, sources, g.join(""), cap);
    if (seqs) return checkInChunks(seqs, db, scope, limit, holds, cap, light);
  }
  return undefined;
}

/**
 * The seqs of a tier's newest `size` rows that the substring index selects for every `select` string (they hold
 * the trigrams it looks for: every row holding the strings does, and few others), newest first. Undefined when the
 * index cannot say: not complete, or no string with a run of three characters.
 */
export function indexCandidates(db: Database, select: readonly string[], recent: boolean, size: number) {
  const state = trigramState(db);
  if (!state?.done) return undefined;
  const long = selectRuns(select).filter((g) => g.length >= 3);
  if (long.length === 0) return undefined;
  const sources = tierSources(state, recent);
  const table = sources[0]!.table;
  // A small table's row lists are short: all the strings' trigrams narrow the most. A large table's rarest ones
  // (matchExpr) narrow about as far, where reading the long row lists of common ones would cost more.
  const expr =
    ftsTotals(db, table).rows <= SMALL_TABLE.rows
      ? spread([...new Set(long.flatMap(measuredGrams))], MAX_TRIGRAMS)
          .map(quoted)
          .join(" AND ")
      : matchExpr(db, table, long).expr;
  const out: bigint[] = [];
  for (const src of sources) {
    if (out.length >= size) break;
    const b = bounds(src);
    const rows = db
      .query(`SELECT rowid FROM ${src.table} WHERE ${src.table} MATCH ?${b.sql} ORDER BY rowid DESC LIMIT ?`)
      .values(expr, ...b.args, size - out.length) as [bigint][];
    for (const [seq] of rows) out.push(seq);
  }
  return out;
}

/**
 * What a sparse walk may check instead of its older candidates, when they are fewer than the cap: the rows
 * holding a needle's run of two characters (the first of at most two in few enough rows: `s3` of "s3 bucket",
 * `js` of "node.js"; a single character is in most rows).
 */
function fewerRows(db: Database, sources: readonly Source[], grams: readonly string[][]): Refinement["fewer"] {
  const pairs = [...new Set(grams.filter((g) => g.length === 2).map((g) => g.join("")))].slice(0, 2);
  if (pairs.length === 0) return undefined;
  return (below, cap) => {
    for (const run of pairs) {
      const rows = gramRows(db, sources, run, cap, below);
      if (rows) return rows;
    }
    return undefined;
  };
}

const newestFirst = (seqs: Iterable<bigint>) =>
  [...seqs].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)).map((rowid) => ({ rowid }));

/**
 * The rows holding a run of one or two characters, newest first, below `below` when given: those of the
 * trigrams it begins (the index's form of a text ends in two spaces, so that every character begins one).
 * Undefined when they are `cap` or more.
 */
function gramRows(
  db: Database,
  sources: readonly Source[],
  run: string,
  cap: number,
  below?: bigint,
): { rowid: bigint }[] | undefined {
  const docs: [bigint][] = [];
  for (const src of sources) {
    const args: SqlArg[] = [run];
    const b = bounds(src, "doc");
    args.push(...b.args);
    const sql = andWhere(
      `SELECT doc FROM ${src.table}_terms WHERE term >= ?1 AND term <= ?1 || char(1114111)${b.sql}`,
      args,
      "doc < ?",
      below,
    );
    docs.push(...(db.query(`${sql} LIMIT ?`).values(...args, cap - docs.length) as [bigint][]));
    if (docs.length >= cap) return undefined;
  }
  return newestFirst(new Set(docs.map((d) => d[0])));
}

/**
 * An AND of trigrams (each one FTS5 string: detail=none has no phrases): the rarest of each needle by their
 * estimated share of rows, and a needle's next two while they narrow much (nextGrams). Every trigram of a
 * needle is in each row holding it, so any of them select a superset of the matches (checked after); a
 * common trigram narrows little and costs the walk the most (FTS5 reads its long row lists). At most
 * MAX_TRIGRAMS, the rarest.
 */
function matchExpr(
  db: Database,
  table: string,
  long: string[][],
): { expr: string; candidates?: number; narrower?: () => Narrower } {
  // A small table (the recent tier of a mostly archived home) is walked without measuring its trigrams: its
  // row lists are short, and measuring each one would cost more than reading it. Each needle's first and last
  // trigrams (and a lone needle's middle one) narrow it about as far as all of them, and every row list looked
  // up costs a fresh process a cold read.
  if (ftsTotals(db, table).rows <= SMALL_TABLE.rows) {
    const spread = long.flatMap((g) => {
      const at = long.length > 1 ? [0, g.length - 3] : [0, (g.length - 3) >> 1, g.length - 3];
      return at.map((i) => g.slice(i, i + 3).join(""));
    });
    return { expr: [...new Set(spread)].slice(0, MAX_TRIGRAMS).map(quoted).join(" AND ") };
  }
  const share = gramShares(db, table);
  const ranked: (readonly [string, number])[][] = [];
  for (const g of long) {
    const measured = measuredGrams(g).map((t) => [t, share(quoted(t))] as const);
    // A trigram no row holds: no row holds the needle, and walking that trigram alone finds none at once.
    const absent = measured.find(([, s]) => s === NO_ROW);
    if (absent) return { expr: quoted(absent[0]), candidates: 0 };
    ranked.push(measured.sort((a, b) => a[1] - b[1]));
  }
  // A needle whose rarest trigram is in most rows narrows the walk less than its row list costs to walk, when
  // another needle narrows it far: it is left out (every candidate's text is checked for it all the same).
  const narrowest = Math.min(...ranked.map((r) => r[0]![1]));
  const used = ranked.filter(
    (r) => r[0]![1] === narrowest || r[0]![1] <= CHECK_COST * Math.max(narrowest, 0) * (1 - r[0]![1]),
  );
  const { grams, candidates } = nextGrams(used, share);
  const exprOf = (picked: [string, number][]) =>
    [...new Map(picked)]
      .sort((a, b) => a[1] - b[1])
      .slice(0, MAX_TRIGRAMS)
      .map(([t]) => quoted(t))
      .join(" AND ");
  return {
    expr: exprOf(grams),
    candidates,
    narrower: () => {
      const next = nextGrams(used, share, ftsTotals(db, table).rows);
      return { expr: exprOf(next.grams), candidates: next.candidates };
    },
  };
}

/**
 * The trigrams walked: each needle's rarest, then a needle's next rarest ones while what they
 * strike from the candidates saves more checks than walking their row lists costs. The trigrams of one word go
 * together (most rows holding "kup" hold "cku"), so what a further trigram strikes is measured: the share of
 * rows holding it with the needle's trigrams picked so far. `candidates`: the share of rows they select, estimated.
 *
 * At first a needle's next two are measured, and the first that narrows too little ends its list. With the
 * table's `rows` (a walk that found its matches sparse, see walkChecked), every further one is measured while
 * the candidates left are worth more checks than a measure costs: a pair that narrows far may come later
 * ("anc" and "her" of "brancher" leave 14% of the rows "anc" selects, "nch" and "ran" none).
 */
function nextGrams(
  used: readonly (readonly (readonly [string, number])[])[],
  share: (expr: string) => number,
  rows?: number,
): { grams: [string, number][]; candidates: number } {
  const picked: [string, number][] = used.map((r) => [r[0]![0], r[0]![1]]);
  // The share of rows that are candidates, the needles taken as independent of each other.
  let candidates = picked.reduce((p, [, s]) => p * Math.max(s, 0), 1);
  for (const ranked of used) {
    let grams = [ranked[0]![0]];
    let held = Math.max(ranked[0]![1], 0);
    for (const [t, s] of rows === undefined ? ranked.slice(1, 3) : ranked.slice(1)) {
      // The most it can save: every candidate struck. A trigram in most rows strikes few.
      if (held === 0 || s > MOST_ROWS || candidates * CHECK_COST <= s) break;
      if (rows !== undefined && candidates * rows < REFINED_WALK.measure) break;
      const both = Math.max(share([...grams, t].map(quoted).join(" AND ")), 0);
      const kept = both / held;
      if (candidates * (1 - kept) * CHECK_COST <= s) {
        if (rows === undefined) break;
        continue;
      }
      picked.push([t, s]);
      grams = [...grams, t];
      candidates *= kept;
      held = both;
    }
  }
  return { grams: picked, candidates };
}

const quoted = (t: string) => `"${t.replaceAll('"', '""')}"`;

/** A trigram in at least this share of rows strikes few candidates, whatever it goes with. */
const MOST_ROWS = 0.5;

/** A table of at most this many rows is walked on all of a needle's trigrams (see matchExpr). */
export const SMALL_TABLE = { rows: 50_000 };

/**
 * What checking one candidate's text costs, in entries of a trigram's row list walked (about 3 µs against 30 ns):
 * a trigram in a share s of rows is worth walking while s is below this times the share of candidates it strikes.
 */
const CHECK_COST = 100;
/** Trigrams in one expression at most: the rarest narrow enough. */
const MAX_TRIGRAMS = 12;

/**
 * Trigrams of a needle measured at most: a pasted path or stack line has dozens, and each one measured costs a
 * fresh process a cold read of its row list. Spread along the needle, so that its rare stretches are likely in.
 */
const MEASURED_GRAMS = 12;

/** A needle's distinct trigrams, at most MEASURED_GRAMS of them spread evenly along it. */
function measuredGrams(g: readonly string[]): string[] {
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= g.length; i++) grams.add(g.slice(i, i + 3).join(""));
  return spread([...grams], MEASURED_GRAMS);
}

/** At most `n` of `all`, spread evenly along it (the first and the last among them). */
function spread<T>(all: readonly T[], n: number): T[] {
  if (all.length <= n) return [...all];
  return Array.from({ length: n }, (_, k) => all[Math.round((k * (all.length - 1)) / (n - 1))]!);
}

/** Newest rows of a trigram (or an AND of them) read to estimate its share of the index. */
const GRAM_PROBE = 64;
const GRAMS_KEPT = 4096;
/** gramShare of an expression no row of the table matches. */
const NO_ROW = -1;
const gramShareCache = new WeakMap<Database, { stamp: string; shares: Map<string, number> }>();

/**
 * The share of a table's rows an FTS expression of trigrams matches, as a sort key: the density of its newest
 * GRAM_PROBE rows over their seq span; below 0 (by count) when it has fewer, NO_ROW for none. Cached per
 * connection until the next write (the returned function measures at the state of the call that made it).
 */
function gramShares(db: Database, table: string): (expr: string) => number {
  const stamp = writeStamp(db);
  let c = gramShareCache.get(db);
  if (!c || c.stamp !== stamp) gramShareCache.set(db, (c = { stamp, shares: new Map() }));
  return (expr) => gramShare(db, table, expr, c);
}

function gramShare(db: Database, table: string, expr: string, c: { shares: Map<string, number> }): number {
  const key = `${table}:${expr}`;
  let v = c.shares.get(key);
  if (v !== undefined) return v;
  const seqs = db
    .query(`SELECT rowid FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid DESC LIMIT ?`)
    .values(expr, GRAM_PROBE) as [bigint][];
  v =
    seqs.length < GRAM_PROBE
      ? seqs.length / GRAM_PROBE - 1
      : GRAM_PROBE / (Number(seqs[0]![0] - seqs[seqs.length - 1]![0]) + 1);
  if (c.shares.size >= GRAMS_KEPT) c.shares.clear();
  c.shares.set(key, v);
  return v;
}

/** The index's matches newest first, checked in growing chunks, until `limit` rows pass or MAX_CHECKED were checked. */
function walkTrigrams(
  db: Database,
  sources: readonly Source[],
  expr: string,
  scope: SubstringScope,
  limit: number,
  holds: (content: string) => boolean,
  light?: LightRead,
  refine?: Refinement,
): StoredMessage[] | LightMatch[] | undefined {
  const progress = { passed: 0 };
  // One statement per table stepped lazily: FTS5 walks its row lists once, newest first, as far as needed. With
  // `refine`, a walk of many candidates goes on with the narrower AND past a first stretch that found too few
  // matches (see walkChecked).
  function* rowids(): Generator<{ rowid: bigint }> {
    let match = expr;
    const many = refine ? candidateRows(db, sources[0]!.table, refine.candidates) : 0;
    let stretch = many >= REFINED_WALK.candidates ? REFINED_WALK.stretch : 0;
    for (const src of sources) {
      const b = bounds(src);
      let below: bigint | undefined;
      walk: for (;;) {
        const args: SqlArg[] = [match, ...b.args];
        const sql = andWhere(
          `SELECT rowid FROM ${src.table} WHERE ${src.table} MATCH ?${b.sql}`,
          args,
          "rowid < ?",
          below,
        );
        for (const r of db.query(`${sql} ORDER BY rowid DESC`).iterate(...args) as IterableIterator<{
          rowid: bigint;
        }>) {
          yield r;
          if (stretch === 0 || --stretch > 0 || progress.passed >= limit) continue;
          const next = pastStretch(db, sources[0]!.table, refine!, r.rowid, progress.passed, limit);
          if ("rows" in next) {
            yield* next.rows;
            return;
          }
          if (next.expr === match) continue;
          match = next.expr;
          below = r.rowid;
          continue walk;
        }
        break;
      }
    }
  }
  return checkInChunks(rowids(), db, scope, limit, holds, MAX_CHECKED, light, progress);
}

/** A needle LIKE finds as the check does (see holdsLike). */
const checkedInSql = (n: string) => !foldsBeyondAscii(n);

/** The walk checks in SQL while the trigrams select at most this estimated share of rows (see substringMatches). */
export const CHECKED_WALK = { share: 0.25 };

/** A walk's candidates (their estimated share of the first table's rows), and the AND that narrows them further. */
interface Refinement {
  candidates: number;
  narrower: () => Narrower;
  /** Rows below a seq that hold every match below it (fewerRows), newest first, when fewer than `cap`. */
  fewer?: (below: bigint, cap: number) => { rowid: bigint }[] | undefined;
}

/** A walk's narrower AND (more of its needles' trigrams measured), and its candidates' estimated share of rows. */
interface Narrower {
  expr: string;
  candidates: number;
}

/**
 * Where a walk goes past a first stretch that found too few matches: the rows of fewerRows below it when they are
 * few, else the older candidates of the narrower AND.
 */
function pastStretch(
  db: Database,
  table: string,
  refine: Refinement,
  below: bigint,
  passed: number,
  limit: number,
): { rows: { rowid: bigint }[] } | { expr: string } {
  const next = refine.narrower();
  const rows = refine.fewer?.(below, fewerCap(candidateRows(db, table, next.candidates), passed, limit));
  return rows ? { rows } : { expr: next.expr };
}

/**
 * fewerRows' rows are read instead of the rest of a walk while at most half as many as its candidates left, and
 * fewer than the walk is expected to check for the matches still missing, at the rate its stretch found them.
 */
function fewerCap(candidates: number, passed: number, limit: number): number {
  const left = Math.max(0, Math.floor((candidates - REFINED_WALK.stretch) / 2));
  return passed > 0 ? Math.min(left, Math.ceil(((limit - passed) * REFINED_WALK.stretch) / passed)) : left;
}

/**
 * A walk of at least `candidates` candidates (estimated) checks its newest `stretch` of them first: three
 * stretches, as below that what a narrower AND saves is less than a second walk and the measures cost (`notes`
 * on 1M rows, 4,700 candidates and no trigram that narrows them: 13 ms in one walk, 16 in two). Refining
 * measures a trigram while more than `measure` candidates are left (a measure, a 64-row read of a row list,
 * costs 1-2 ms: about that many checks).
 */
export const REFINED_WALK = { candidates: 6000, stretch: 2000, measure: 500 };

/**
 * The index's matches newest first, each candidate's row looked up and checked with LIKE in the statement that
 * steps through the index (2-3 µs a candidate on a 1M-row table, against 7-9 µs read into JS and checked there),
 * until `limit` rows pass the check: the text is read only for the rows returned.
 *
 * With `refine`, a walk of many candidates checks its newest stretch first. When fewer than `limit` of them pass,
 * the matches are sparse (a needle in few rows, or none, whose trigrams are common): the older rows are walked
 * on the narrower AND, which measures more of the needle's trigrams. Else every candidate of its first trigrams
 * would be checked ("brancher" on 1M rows: the 95,000 rows holding "anc", 200 ms; with "her" and "che", 4,300).
 */
function walkChecked(
  db: Database,
  sources: readonly Source[],
  expr: string,
  scope: SubstringScope,
  limit: number,
  needles: readonly string[],
  holds: (content: string) => boolean,
  light?: LightRead,
  refine?: Refinement,
): StoredMessage[] | LightMatch[] {
  const covered = coveredRead(db, scope, light);
  // Read whole, a row's columns are read by the walk itself, not looked up again after it.
  const cols = light ? `m.seq, m.content, m.send_at${light.sender ? ", m.sender" : ""}` : COLS;
  // LIKE selects exactly the rows holding the needles unless it also looks for İ or the Kelvin sign (holdsLike):
  // only then is each row checked here.
  const exact = !likeSelectsMore(db, needles);
  const passed: Candidate[] = [];
  const done = () => (light ? matchesRead(db, passed, scope, light) : (passed as Row[]).map(toStored));
  let match = expr;
  for (const [i, src] of sources.entries()) {
    let below: bigint | undefined;
    // The first stretch's lowest seq excluded, while it is walked.
    const many = i === 0 && refine ? candidateRows(db, src.table, refine.candidates) : 0;
    let floor = many >= REFINED_WALK.candidates ? stretchFloor(db, src.table, many) : undefined;
    while (passed.length < limit) {
      const args: SqlArg[] = [match];
      let sql = `SELECT ${cols} FROM ${src.table} t CROSS JOIN messages m${covered ? " INDEXED BY messages_recent_text" : ""} ON m.seq = t.rowid WHERE ${src.table} MATCH ?`;
      const b = bounds(src, "t.rowid");
      sql += b.sql;
      args.push(...b.args);
      sql = andWhere(sql, args, "t.rowid < ?", below);
      sql = andWhere(sql, args, "t.rowid > ?", floor);
      // A literal tier, so that the planner may use the partial index.
      sql += ` AND m.recent = ${scope.recent ? 1 : 0}`;
      sql = andWhere(sql, args, "m.session_id = ?", scope.session);
      sql = andFilter(sql, args, scope, "m.");
      sql = andHoldsAll(db, sql, args, "m.content", needles);
      const wanted = limit - passed.length;
      const rows = db.query(`${sql} ORDER BY t.rowid DESC LIMIT ?`).all(...args, wanted) as Candidate[];
      for (const r of rows) if (exact || holds(r.content)) passed.push(r);
      if (rows.length < wanted) {
        if (floor === undefined) break;
        // The stretch is done and too few passed: the older rows.
        const next = pastStretch(db, src.table, refine!, floor + 1n, passed.length, limit);
        if ("rows" in next) {
          const older = checkedCandidates(next.rows, db, scope, limit - passed.length, holds, Infinity, light)!;
          return [...done(), ...matchesRead(db, older, scope, light)] as StoredMessage[] | LightMatch[];
        }
        match = next.expr;
        below = floor + 1n;
        floor = undefined;
        continue;
      }
      below = rows[rows.length - 1]!.seq;
    }
  }
  return done();
}

/** A walk's candidates (a share of the table's rows, estimated) in rows (a first stretch is checked apart from REFINED_WALK.candidates). */
function candidateRows(db: Database, table: string, share: number): number {
  return share * ftsTotals(db, table).rows;
}

/** Where the first stretch of a walk of `candidates` rows ends: the seq above which its newest candidates are. */
function stretchFloor(db: Database, table: string, candidates: number): bigint | undefined {
  // Two subqueries: each is one seek (min and max in one select read the whole table).
  const span = db
    .query(`SELECT (SELECT min(id) FROM ${table}_docsize) AS lo, (SELECT max(id) FROM ${table}_docsize) AS hi`)
    .get() as {
    lo: bigint | null;
    hi: bigint | null;
  };
  if (span.lo === null || span.hi === null) return undefined;
  // The table's rows taken as spread evenly over its seqs, and the candidates over its rows.
  const perSeq = candidates / (Number(span.hi - span.lo) + 1);
  return span.hi - BigInt(Math.ceil(REFINED_WALK.stretch / perSeq));
}

/** checkedCandidates' matches, read (or read light). */
function checkInChunks(...args: Parameters<typeof checkedCandidates>): StoredMessage[] | LightMatch[] | undefined {
  const passed = checkedCandidates(...args);
  const [, db, scope, , , , light] = args;
  return passed && matchesRead(db, passed, scope, light);
}

/**
 * Fetch and check candidate seqs (newest first) in growing chunks; undefined past `max` checked. After the
 * first chunk, the next one holds about as many candidates as the share passing so far says the matches
 * still missing need (at most four times the last one), so that few rows are read past the last match.
 * A candidate's text is read alone, and only the rows that pass are read whole (most candidates of a common
 * trigram fail), or not at all when read light. Returns the candidates that passed, as read for the check.
 */
function checkedCandidates(
  seqs: Iterable<{ rowid: bigint }>,
  db: Database,
  scope: SubstringScope,
  limit: number,
  holds: (content: string) => boolean,
  max: number,
  light?: LightRead,
  /** Set to how many have passed after each chunk checked. */
  progress?: { passed: number },
): Candidate[] | undefined {
  const covered = coveredRead(db, scope, light);
  const passed: Candidate[] = [];
  let chunk: bigint[] = [];
  let size = limit + 16;
  let checked = 0;
  const flush = () => {
    for (const r of candidateTexts(db, chunk, scope, covered, light?.sender === true))
      if (holds(r.content) && passed.length < limit) passed.push(r);
    if (progress) progress.passed = passed.length;
    checked += chunk.length;
    chunk = [];
    const needed =
      passed.length > 0 ? Math.ceil(((limit - passed.length) * checked * 1.25) / passed.length) + 16 : size * 4;
    size = Math.min(needed, size * 4, 4096);
  };
  for (const r of seqs) {
    chunk.push(r.rowid);
    if (chunk.length < size) continue;
    flush();
    if (passed.length >= limit) break;
    if (checked >= max) return undefined;
  }
  if (chunk.length > 0) flush();
  return passed;
}

/**
 * Whether candidates' text is read from the covering index messages_recent_text: recent rows beside archived
 * ones with no role or sender filter, and no sender to read (the index has none).
 */
function coveredRead(db: Database, scope: SubstringScope, light?: LightRead): boolean {
  return (
    scope.recent &&
    scope.role === undefined &&
    scope.sender === undefined &&
    !light?.sender &&
    hasArchived(db, undefined)
  );
}

/** The rows that passed, read light from what the check read, else read whole. */
function matchesRead(
  db: Database,
  passed: readonly Candidate[],
  scope: SubstringScope,
  light?: LightRead,
): StoredMessage[] | LightMatch[] {
  if (light)
    return passed.map((r) => {
      const m: LightMatch = { seq: r.seq, recent: scope.recent, sendAt: r.send_at, content: r.content, tokens: 0 };
      if (r.sender != null) m.sender = r.sender;
      return m;
    });
  return fetchRows(
    db,
    passed.map((r) => r.seq),
    scope,
  );
}

/** A candidate's row as read for the check. */
interface Candidate {
  seq: bigint;
  content: string;
  send_at: bigint;
  sender?: string | null;
}

/**
 * A match read light: its seq, tier, send time and text, and its sender when asked (a `WindowText` of ranking,
 * without a length: it is not ranked by bm25). The caller loads the messages it returns.
 */
export interface LightMatch {
  seq: bigint;
  recent: boolean;
  sendAt: bigint;
  content: string;
  tokens: number;
  sender?: string;
}

/** Matches read light (see LightMatch); `sender`: with their sender. */
export interface LightRead {
  sender: boolean;
}

const lightOf = (m: StoredMessage): LightMatch => {
  const l: LightMatch = { seq: m.seq, recent: m.recent, sendAt: m.sendAt, content: m.content, tokens: 0 };
  if (m.sender !== undefined) l.sender = m.sender;
  return l;
};

function smallTier(db: Database, scope: SubstringScope, state: TrigramState): boolean {
  // The recent tier's own table holds its rows only: it answers for a small tier too.
  if (scope.session === undefined) return scope.recent && !state.splitDone && recentTierAtMost(db, SCANNED_TIER.rows);
  // Its message count (kept by every write) bounds the tier's rows without counting them: either answer is right,
  // only slower when wrong.
  const r = db.query("SELECT message_count AS n FROM sessions WHERE id = ?").get(scope.session) as { n: bigint } | null;
  return r === null || Number(r.n) <= SCANNED_TIER.rows;
}

/**
 * Matches among the newest `size` rows of the scope, newest first, at most `limit`: the session's tier with
 * a session, the recent tier (its own index), else the archived rows among the newest `size` seqs (a bound
 * whatever the archive's share).
 * LIKE selects them in SQL where it means the same as the check (needles without cased non-ASCII letters).
 */
function probeNewest(
  db: Database,
  needles: readonly string[],
  scope: SubstringScope,
  size: number,
  limit: number,
): { rows: StoredMessage[]; whole: boolean } {
  /** The scope holds no more than `size` rows: every row was looked at. */
  let whole = false;
  const args: SqlArg[] = [scope.recent ? 1 : 0];
  let sql = `SELECT ${COLS} FROM messages m WHERE m.recent = ?`;
  if (scope.session === undefined && scope.recent) {
    sql +=
      " AND m.seq IN (SELECT seq FROM messages INDEXED BY messages_recent_text WHERE recent = 1 ORDER BY seq DESC LIMIT ?)";
    args.push(size);
  } else if (scope.session === undefined) {
    const top = (db.query("SELECT coalesce(max(seq), 0) AS n FROM messages").get() as { n: bigint }).n;
    sql = andWhere(sql, args, "m.seq > ?", top - BigInt(size));
  } else {
    // Above the session's (size + 1)-th newest row of the tier (its index, walked newest first, stops at `limit`).
    const below = db
      .query("SELECT seq FROM messages WHERE session_id = ? AND recent = ? ORDER BY seq DESC LIMIT 1 OFFSET ?")
      .get(scope.session, scope.recent ? 1 : 0, size) as { seq: bigint } | null;
    whole = below === null;
    sql = andWhere(sql, args, "m.session_id = ?", scope.session);
    sql = andWhere(sql, args, "m.seq > ?", below?.seq);
  }
  sql = andFilter(sql, args, scope, "m.");
  const like = !needles.some(foldsBeyondAscii);
  if (like) sql = andHoldsAll(db, sql, args, "m.content", needles);
  // LIKE may select rows that do not hold them: each is checked before it counts (firstHolding).
  if (like && likeSelectsMore(db, needles)) {
    args.push(size);
    const rows = firstHolding<Row>(db, `${sql} ORDER BY m.seq DESC LIMIT ?`, args, needles, limit, true);
    return { rows: rows.map(toStored), whole };
  }
  args.push(like ? limit : size);
  return { rows: (db.query(`${sql} ORDER BY m.seq DESC LIMIT ?`).all(...args) as Row[]).map(toStored), whole };
}

/**
 * The text and send time of these seqs' rows in the scope (their sender too with `sender`), newest first; `covered`: recent rows beside archived ones with no
 * role or sender filter, read from their covering index (far fewer pages than the table, which a fresh
 * process reads cold).
 */
function candidateTexts(
  db: Database,
  seqs: readonly bigint[],
  scope: SubstringScope,
  covered: boolean,
  sender: boolean,
): Candidate[] {
  if (seqs.length === 0) return [];
  const args: SqlArg[] = [JSON.stringify(seqs.map(String))];
  // A literal tier, so that the planner may use the partial index.
  let sql = `SELECT m.seq, m.content, m.send_at${sender ? ", m.sender" : ""} FROM messages m${covered ? " INDEXED BY messages_recent_text" : ""} WHERE m.seq IN (SELECT CAST(value AS INTEGER) FROM json_each(?)) AND m.recent = ${scope.recent ? 1 : 0}`;
  sql = andWhere(sql, args, "m.session_id = ?", scope.session);
  sql = andFilter(sql, args, scope, "m.");
  return db.query(`${sql} ORDER BY m.seq DESC`).all(...args) as Candidate[];
}

/** The rows of these seqs in the scope, newest first (rows deleted meanwhile are absent). */
function fetchRows(db: Database, seqs: readonly bigint[], scope: SubstringScope): StoredMessage[] {
  if (seqs.length === 0) return [];
  const args: SqlArg[] = [JSON.stringify(seqs.map(String)), scope.recent ? 1 : 0];
  let sql = `SELECT ${COLS} FROM messages m WHERE m.seq IN (SELECT CAST(value AS INTEGER) FROM json_each(?)) AND m.recent = ?`;
  sql = andWhere(sql, args, "m.session_id = ?", scope.session);
  sql = andFilter(sql, args, scope, "m.");
  return (db.query(`${sql} ORDER BY m.seq DESC`).all(...args) as Row[]).map(toStored);
}
