// Which rows of a match window hold every term as a substring (the spec's recent match), read in their whole text.
import type { Db } from "../storage/sqlite/db.ts";
import { wholeLower, withLower, type WindowText } from "../storage/sqlite/keyword-queries.ts";
import { needleOf, type QueryTerm } from "./query-terms.ts";

/**
 * The rows whose text in lower case holds every term of `used`, in the order given, each with the text a match's
 * quality is computed on (its content when read). A row ranking read only the start of is checked in whole.
 */
export function rowsHoldingAll(
  db: Db,
  rows: readonly WindowText[],
  used: readonly QueryTerm[],
): { row: WindowText; text: string }[] {
  withLower(db, rows);
  const whole = wholeLower(db, rows);
  const out: { row: WindowText; text: string }[] = [];
  for (const r of rows) {
    const text = whole.get(r.seq) ?? (r.cut ? undefined : r.lower);
    if (text !== undefined && used.every((t) => text.includes(needleOf(t))))
      out.push({ row: r, text: r.content ?? text });
  }
  return out;
}
