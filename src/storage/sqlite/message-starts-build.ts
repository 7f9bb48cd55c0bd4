// The background copy of long messages' starts (message_starts, 011-v0.7.sql) for messages written before the
// table existed: short transactions from a saved cursor up to the newest message of that time; the writers keep
// every later one (message-starts.ts). Resumable after a kill at any point; ranking reads a row not copied yet
// from messages, so nothing waits for it.
import type { Database } from "bun:sqlite";
import { RANKED_CHARS } from "./ranked-text.ts";
import { schemaShape } from "./schema-shape.ts";
import { nextSeqRange, runSeqJob, seqJobState, type SeqCursor, type SeqJobState } from "./seq-range-step.ts";
import type { SteppedJobOptions, SteppedJobResult } from "./stepped-job.ts";

/** The build's cursor; undefined on a home without the table (a connection to an older home). */
function cursorOf(db: Database): SeqCursor | undefined {
  if (!schemaShape(db).messageStarts) return undefined;
  const row = db.query("SELECT cursor, upto FROM message_starts_build WHERE id = 1").values()[0] as
    | [bigint | number, bigint | number]
    | undefined;
  return row && { cursor: BigInt(row[0]), upto: BigInt(row[1]) };
}

export const startsBuildState = (db: Database): SeqJobState => seqJobState(db, cursorOf(db));

/** Text a step reads at most (long messages are read whole to take their start), beside its row bound. */
const STEP_BYTES = 8 * 1024 * 1024;

/** Copy the starts of the long messages among the next `batch` after the cursor, and move the cursor past them. */
function copyStep(db: Database, batch: number): { rows: number; finished: boolean } {
  const c = cursorOf(db)!;
  if (c.cursor >= c.upto) return { rows: 0, finished: true }; // another process finished it
  // Long messages are read whole to take their start; the others not at all.
  const { end, rows } = nextSeqRange(db, c, batch, STEP_BYTES, (bytes) => (bytes > RANKED_CHARS ? bytes : 0));
  db.query(
    `INSERT OR IGNORE INTO message_starts (seq, head) SELECT seq, substr(content, 1, ${RANKED_CHARS + 1}) FROM messages
     WHERE seq > ? AND seq <= ? AND octet_length(content) > ${RANKED_CHARS}`,
  ).run(c.cursor, end);
  db.query("UPDATE message_starts_build SET cursor = ? WHERE id = 1").run(end);
  return { rows, finished: end >= c.upto };
}

/** Run (or resume) the copy until it is done or `signal` aborts. */
export const buildMessageStarts = (db: Database, options: SteppedJobOptions = {}): Promise<SteppedJobResult> =>
  runSeqJob(db, cursorOf(db), options, 2_000, (batch) => copyStep(db, batch));
