// The substring index (messages_trigram, 008-v0.4.sql): its form of a text, its build state, and the writes
// that keep it in step with messages (insert, replace, delete). Rows with seq <= the build cursor are
// indexed by the build; writers index those rows, and every row once the build is done.
import type { Database } from "bun:sqlite";
import { schemaShape } from "./schema-shape.ts";

/** What the index holds of a text: runs of whitespace as one space, and two spaces after the text so that every character begins a trigram. */
export const trigramForm = (content: string) => content.replace(/\s+/g, " ") + "  ";

export interface TrigramState {
  /** Highest seq the build has indexed. */
  cursor: bigint;
  /** Every message is indexed (search may use it). */
  done: boolean;
}

/** Whether the database has the index (a read-only connection to a home not yet migrated has not). */
function hasIndex(db: Database): boolean {
  return schemaShape(db).trigramIndex;
}

/** The build state; undefined when the database has no substring index. */
export function trigramState(db: Database): TrigramState | undefined {
  if (!hasIndex(db)) return undefined;
  const r = db.query("SELECT cursor, done FROM trigram_build WHERE id = 1").get() as {
    cursor: bigint | number;
    done: bigint | number;
  } | null;
  return r ? { cursor: BigInt(r.cursor), done: Number(r.done) === 1 } : undefined;
}

/** Whether search may use the index: it holds every message. */
export function trigramReady(db: Database): boolean {
  return trigramState(db)?.done === true;
}

/** Writes a message's row, when the index is to hold it (see the header); call inside the write transaction. */
export function trigramWriter(db: Database): (seq: bigint, content: string) => void {
  const state = trigramState(db);
  if (!state) return () => {};
  const insert = db.query("INSERT INTO messages_trigram (rowid, body) VALUES (?, ?)");
  return (seq, content) => {
    if (state.done || seq <= state.cursor) insert.run(seq, trigramForm(content));
  };
}

/** Delete index rows; `seqs` is SQL selecting the seqs, with its arguments (rows never indexed are no matter). */
export function deleteTrigramRows(db: Database, seqs: string, ...args: (string | bigint | number)[]): void {
  if (hasIndex(db)) db.prepare(`DELETE FROM messages_trigram WHERE rowid IN (${seqs})`).run(...args);
}

/** Merge the index into one segment, so no deleted row's text stays in an old one (see purgeDeletedFromFts). */
export function optimizeTrigram(db: Database): void {
  if (hasIndex(db)) db.run("INSERT INTO messages_trigram(messages_trigram) VALUES ('optimize')");
}
