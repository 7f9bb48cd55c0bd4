// LIKE for substring needles: SQLite's LIKE folds ASCII letters as JS toLowerCase does, and nothing else.
import type { Database } from "bun:sqlite";
import type { SqlArg } from "./sql-where.ts";
import { mayHoldFolded } from "./folded-letters.ts";

/** LIKE pattern for a literal substring ("\" escapes). LIKE folds ASCII case only, exactly as lower() does. */
export function likePattern(needle: string): string {
  return "%" + needle.replace(/[\\%_]/g, (c) => "\\" + c) + "%";
}

/** A needle with cased letters outside ASCII, which LIKE and the recent text cache do not fold. */
export const foldsBeyondAscii = (n: string) => /[^\0-\x7f]/.test(n) && n.toUpperCase() !== n;

/**
 * The only characters JS lower-cases into what LIKE does not fold them to, and the needles they can make up part
 * of: İ becomes i̇ (an i and a combining dot), so a needle ending in that i or holding the dot; the Kelvin sign
 * becomes k.
 */
const FOLDED_INTO: [(needle: string) => boolean, string][] = [
  [(n) => n.endsWith("i") || n.includes("\u0307"), "\u0130"],
  [(n) => n.includes("k"), "\u212a"],
];

/** The characters a text may hold instead, for a needle to be found in its JS lower case (see FOLDED_INTO). */
export const foldedFrom = (needles: readonly string[]): string[] => [
  ...new Set(FOLDED_INTO.filter(([madeUp]) => needles.some(madeUp)).map(([, from]) => from)),
];

/** foldedFrom, or none when no message of the home holds such a character (folded-letters.ts). */
export const foldedIn = (db: Database, needles: readonly string[]): string[] =>
  mayHoldFolded(db) ? foldedFrom(needles) : [];

/** LIKE patterns are capped at 50,000 bytes: a longer needle is looked for with instr(lower()), the same match. */
const LIKE_CHARS = 10_000;

/**
 * SQL over `column` true for every row whose text in JS lower case holds `needle` (a needle without cased
 * letters beyond ASCII, in lower case): LIKE, or a character JS folds into one of the needle's. The caller
 * checks the rows it selects when the needle holds such a letter.
 */
export function holdsLike(db: Database, column: string, needle: string): { sql: string; args: SqlArg[] } {
  const from = foldedIn(db, [needle]);
  const [sql, arg] =
    needle.length <= LIKE_CHARS
      ? [`${column} LIKE ? ESCAPE '\\'`, likePattern(needle)]
      : [`instr(lower(${column}), ?) > 0`, needle];
  if (from.length === 0) return { sql, args: [arg] };
  return { sql: `(${[sql, ...from.map(() => `instr(${column}, ?) > 0`)].join(" OR ")})`, args: [arg, ...from] };
}

/**
 * A text with ASCII letters in lower case (what LIKE and SQLite's lower() compare) with İ and the Kelvin sign
 * also as JS lower-cases them: an ASCII needle is then found in it where it is in the JS lower case.
 */
export const foldLikeJs = (asciiLower: string): string => asciiLower.replace(EACH_FOLDED, (c) => c.toLowerCase());
const EACH_FOLDED = /[\u0130\u212a]/g;

/** `sql` with ` AND holdsLike(db, column, n)` for every needle, their arguments pushed onto `args`. */
export function andHoldsAll(
  db: Database,
  sql: string,
  args: SqlArg[],
  column: string,
  needles: readonly string[],
): string {
  for (const n of needles) {
    const h = holdsLike(db, column, n);
    sql += ` AND ${h.sql}`;
    args.push(...h.args);
  }
  return sql;
}

/** Whether holdsLike selects more rows than hold the needles (İ or the Kelvin sign, see foldedIn). */
export const likeSelectsMore = (db: Database, needles: readonly string[]): boolean => foldedIn(db, needles).length > 0;

/**
 * The first `limit` rows of a newest-first statement (no LIMIT) whose content in JS lower case holds every needle.
 * By a LIMIT in SQL when the statement selects with andHoldsAll and LIKE selects exactly those rows; else (its
 * LIKE selects more, likeSelectsMore, or `checkEach`: it selects without LIKE) each row is read and checked until
 * `limit` pass, so that rows not holding them never take the place of rows that do.
 */
export function firstHolding<T extends { content: string }>(
  db: Database,
  sql: string,
  args: readonly SqlArg[],
  needles: readonly string[],
  limit: number,
  checkEach = likeSelectsMore(db, needles),
): T[] {
  if (!checkEach) return db.query(`${sql} LIMIT ?`).all(...args, limit) as T[];
  const lowered = needles.map((n) => n.toLowerCase());
  const out: T[] = [];
  if (limit <= 0) return out;
  for (const r of db.query(sql).iterate(...args) as IterableIterator<T>) {
    const text = r.content.toLowerCase();
    if (!lowered.every((n) => text.includes(n))) continue;
    out.push(r);
    if (out.length >= limit) break;
  }
  return out;
}
