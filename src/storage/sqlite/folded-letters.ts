// Whether the home's messages may hold İ or the Kelvin sign (folded_letters, 012-v0.8.sql): the only characters
// JS lower-cases into what LIKE does not fold them to. Substring SQL looks for them beside a needle's LIKE only
// where they may be there (like-needle.ts). The writers of messages note them in the transaction that writes
// the message; a trigger notes them on edits.
import type { Database } from "bun:sqlite";
import { schemaShape } from "./schema-shape.ts";
import { scoped } from "./write-stamp.ts";

const DOTTED_I = "\u0130";
const KELVIN = "\u212a";

/** Whether a text holds either character. */
// A string JSC keeps in one byte a character cannot hold them: indexOf answers at once.
export const holdsFolded = (text: string): boolean => text.indexOf(DOTTED_I) >= 0 || text.indexOf(KELVIN) >= 0;

/** The scan of the messages written before the table existed (folded-letters-build.ts). */
export interface FoldedScan {
  seen: boolean;
  cursor: bigint;
  upto: bigint;
}

/** The table's row; undefined on a home without it (a connection to an older home). */
export function foldedScan(db: Database): FoldedScan | undefined {
  if (!schemaShape(db).foldedLetters) return undefined;
  const row = db.query("SELECT seen, cursor, upto FROM folded_letters WHERE id = 1").values()[0] as
    | [bigint | number, bigint | number, bigint | number]
    | undefined;
  return row && { seen: Number(row[0]) === 1, cursor: BigInt(row[1]), upto: BigInt(row[2]) };
}

/** Whether a message may hold İ or the Kelvin sign: one does, or the older ones are not all scanned yet. */
export function mayHoldFolded(db: Database): boolean {
  return scoped(db, "mayHoldFolded", () => {
    const s = foldedScan(db);
    return s === undefined || s.seen || s.cursor < s.upto;
  });
}

/** Notes a message just inserted that holds either character. A no-op on a home without the table. */
export function foldedLettersWriter(db: Database): (content: string) => void {
  if (!schemaShape(db).foldedLetters) return () => {};
  const mark = db.query("UPDATE folded_letters SET seen = 1 WHERE id = 1 AND seen = 0");
  let marked = false;
  return (content) => {
    if (marked || !holdsFolded(content)) return;
    mark.run();
    marked = true;
  };
}
