// An AND window beside words in many rows: FTS5 seeks through a long row list at every match of the other
// words, so `deploy server rollback incident` read its index ten times longer than `rollback incident`. Its
// matches come from the rarer words' matches instead, each checked for the common words as the index holds them.
import type { Database } from "bun:sqlite";
import { CJK_RUN, stemWord } from "../../shared/search-form.ts";
import { ftsHasSession, sessionToken } from "./fts-upgrade.ts";
import { maxSeq } from "./messages-repo.ts";

/** An AND expression in two parts: its rarer terms, and words in many rows (each one index token). */
export interface AndSplit {
  /** FTS expression: the AND of the other terms. */
  rarer: string;
  /** Porter2 stems of Latin words (letters only), as the index holds them, each once. */
  common: readonly string[];
  /** The share of rows each common word is in, summed: how much of their row lists FTS5 would read. */
  commonShare: number;
  /** The share of rows expected to hold every rarer term (their shares multiplied, as if independent). */
  rarerShare: number;
}

/**
 * Whether windows are found this way, when it costs less by these measures (µs on the 1M bench home): a candidate
 * row read and checked in JS; one looked up in the index instead; a row list entry FTS5 reads. Tests change them.
 */
export const RARER_FIRST = { on: true, cost: { candidate: 4, lookup: 60, entry: 0.0125 } };

/**
 * The newest `size` matches of `rarer AND common…` from seq `from` (below `below`), newest first, when the rarer
 * terms match fewer than `size` rows there (FTS5 would then read the common words' lists over the whole range)
 * and checking those rows costs less; undefined otherwise (the caller asks FTS5).
 */
export function rarerFirstMatches(
  db: Database,
  split: AndSplit,
  size: number,
  range: { from: bigint; below?: bigint },
): bigint[] | undefined {
  if (!RARER_FIRST.on) return undefined;
  const span = Number((range.below ?? maxSeq(db) + 1n) - range.from);
  const direct = split.commonShare * Math.max(0, span) * RARER_FIRST.cost.entry;
  // Reading the rarer terms' matches costs about what FTS5 reads of them within its own AND: not done when the
  // rows they are expected in would cost more to check than FTS5's walk.
  if (Math.min(size, split.rarerShare * span) * RARER_FIRST.cost.candidate >= direct) return undefined;
  let sql = "SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?";
  const args: (string | bigint | number)[] = [split.rarer];
  if (range.from > 0n) {
    sql += " AND rowid >= ?";
    args.push(range.from);
  }
  if (range.below !== undefined) {
    sql += " AND rowid < ?";
    args.push(range.below);
  }
  const seqs = (db.query(`${sql} ORDER BY rowid DESC LIMIT ?`).values(...args, size) as [bigint][]).map((r) => r[0]);
  if (seqs.length >= size) return undefined;
  if (seqs.length * RARER_FIRST.cost.candidate >= direct) return undefined;
  if (seqs.length === 0) return [];
  const rows = new Map(
    (
      db
        .query(
          "SELECT seq, content, session_id FROM messages WHERE seq IN (SELECT CAST(value AS INTEGER) FROM json_each(?))",
        )
        .values(JSON.stringify(seqs.map(String))) as [bigint, string, string][]
    ).map((r) => [r[0], r]),
  );
  const tokens = ftsHasSession(db);
  const kept = new Set<bigint>();
  const unknown: bigint[] = [];
  for (const seq of seqs) {
    const row = rows.get(seq);
    const holds = row && holdsAll(row[1], split.common, tokens ? row[2] : undefined);
    if (holds === undefined) unknown.push(seq);
    else if (holds) kept.add(seq);
  }
  if (seqs.length * RARER_FIRST.cost.candidate + unknown.length * RARER_FIRST.cost.lookup >= direct) return undefined;
  if (unknown.length > 0) {
    const lookup = db.query("SELECT 1 FROM messages_fts WHERE messages_fts MATCH ? AND rowid = ?");
    const all = split.common.map((s) => `"${s}"`).join(" AND ");
    for (const seq of unknown) if (lookup.get(all, seq) !== null) kept.add(seq);
  }
  return seqs.filter((s) => kept.has(s));
}

/** Whether the index holds every stem for this row (its text, its session's token); undefined when the text cannot tell. */
function holdsAll(text: string, stems: readonly string[], session: string | undefined): boolean | undefined {
  if (!plainForWords(text)) return undefined;
  const found = stemsHeld(text, stems);
  if (found === undefined) return undefined;
  return stems.every((s, i) => found[i] || (session !== undefined && s.startsWith("s") && sessionToken(session) === s));
}

/**
 * Characters beyond ASCII that split the index's tokens (unicode61 separators; test/core/rarer-first.test.ts
 * checks each against SQLite) and that searchForm leaves alone: inclusive ranges of code points.
 */
export const SEPARATORS: readonly [number, number][] = [
  [0xa0, 0xa0],
  [0xab, 0xab],
  [0xb7, 0xb7],
  [0xbb, 0xbb],
  [0x2010, 0x2015],
  [0x2018, 0x201f],
  [0x2022, 0x2022],
  [0x2026, 0x2026],
  [0x2030, 0x2030],
  [0x2032, 0x2033],
  [0x2039, 0x203a],
  [0x2190, 0x2193],
  [0x2212, 0x2212],
  [0x3000, 0x3003],
  [0x3008, 0x3011],
  [0x3014, 0x301b],
  [0xff01, 0xff0f],
  [0xff1a, 0xff20],
  [0xff3b, 0xff40],
  [0xff5b, 0xff65],
];

const hex = (c: number) => `\\u${c.toString(16).padStart(4, "0")}`;
// searchForm sets CJK apart with spaces: the characters of its CJK_RUN are plain too.
const CJK = CJK_RUN.source.replace(/^\[|\]\+$/g, "");
const PLAIN = new RegExp(`^[\\x00-\\x7f${SEPARATORS.map(([a, b]) => `${hex(a)}-${hex(b)}`).join("")}${CJK}]*$`);

/** Whether a text's index tokens of Latin words can be told from the text alone (stemsHeld). */
export const plainForWords = (text: string) => PLAIN.test(text);

const isAsciiAlnum = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);

/** Latin words (as searchForm finds them: a letter, then letters and apostrophes, ending in a letter) starting with one of `firsts`. */
const wordsStarting = (firsts: string) =>
  new RegExp(`(?<![A-Za-z]['\u2019]*)[${firsts}](?:[A-Za-z'\u2019]*[A-Za-z])?`, "gi");
const WORDS = new Map<string, RegExp>();
/** A word stemWord keeps as it is (over 40 characters), apostrophes and all: the index splits it at them. */
const OVERLONG = /[A-Za-z'\u2019]{41}/;

/**
 * Which of `stems` (Latin letters) the index's tokens of a plain text (plainForWords) include: its Latin words,
 * stemmed, each one token unless a digit touches it (a stem keeps its word's first letter, so only words
 * starting with a stem's first letter are stemmed). Undefined when a word is over 40 characters: stemWord keeps
 * it as it is, apostrophes and all, which the index splits further (every other word's stem is letters only).
 */
export function stemsHeld(text: string, stems: readonly string[]): boolean[] | undefined {
  if (OVERLONG.test(text)) return undefined;
  const found = stems.map(() => false);
  const firsts = [...new Set(stems.map((s) => s[0]!))].join("");
  let words = WORDS.get(firsts);
  if (!words) WORDS.set(firsts, (words = wordsStarting(firsts)));
  words.lastIndex = 0;
  let left = stems.length;
  for (let m = words.exec(text); m !== null && left > 0; m = words.exec(text)) {
    const k = stems.indexOf(stemWord(m[0]));
    if (k < 0 || found[k]) continue;
    const end = m.index + m[0].length;
    if (isAsciiAlnum(text.charCodeAt(m.index - 1)) || isAsciiAlnum(text.charCodeAt(end))) continue;
    found[k] = true;
    left--;
  }
  return found;
}
