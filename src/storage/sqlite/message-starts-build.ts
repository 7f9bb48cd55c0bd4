// The background copy of long messages' starts (message_starts, 011-v0.7.sql) for messages written before the
// table existed: short transactions from a saved cursor up to the newest message of that time; the writers keep
// every later one (message-starts.ts). Resumable after a kill at any point; ranking reads a row not copied yet
// from messages, so nothing waits for it.
import type { Database } from "bun:sqlite";
import { messagesUpTo } from "./messages-repo.ts";
import { RANKED_CHARS } from "./ranked-text.ts";
import { schemaShape } from "./schema-shape.ts";
import { noSteps, runSteps, type SteppedJobOptions, type SteppedJobResult } from "./stepped-job.ts";

export interface StartsBuildState {
  done: boolean;
  /** Messages gone over so far / messages in the archive. */
  copied: number;
  total: number;
}

interface Cursor {
  cursor: bigint;
  upto: bigint;
}

/** The build's cursor; undefined on a home without the table (a connection to an older home). */
function cursorOf(db: Database): Cursor | undefined {
  if (!schemaShape(db).messageStarts) return undefined;
  const row = db.query("SELECT cursor, upto FROM message_starts_build WHERE id = 1").values()[0] as
    | [bigint | number, bigint | number]
    | undefined;
  return row && { cursor: BigInt(row[0]), upto: BigInt(row[1]) };
}

export function startsBuildState(db: Database): StartsBuildState {
  const total = messagesUpTo(db);
  const c = cursorOf(db);
  if (!c) return { done: false, copied: 0, total };
  const done = c.cursor >= c.upto;
  return { done, copied: done ? total : c.cursor > 0n ? messagesUpTo(db, c.cursor) : 0, total };
}

/** Text a step reads at most (long messages are read whole to take their start), beside its row bound. */
const STEP_BYTES = 8 * 1024 * 1024;

/** Copy the starts of the long messages among the next `batch` after the cursor, and move the cursor past them. */
function copyStep(db: Database, batch: number): { rows: number; finished: boolean } {
  const c = cursorOf(db)!;
  if (c.cursor >= c.upto) return { rows: 0, finished: true }; // another process finished it
  const next = db
    .query("SELECT seq, octet_length(content) FROM messages WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?")
    .values(c.cursor, c.upto, batch) as [bigint, bigint][];
  let end = c.upto;
  let rows = next.length;
  if (next.length === batch) {
    let bytes = 0;
    rows = 0;
    for (const [seq, size] of next) {
      if (size > RANKED_CHARS) bytes += Number(size);
      end = seq;
      rows++;
      if (bytes >= STEP_BYTES) break;
    }
  }
  db.query(
    `INSERT OR IGNORE INTO message_starts (seq, head) SELECT seq, substr(content, 1, ${RANKED_CHARS + 1}) FROM messages
     WHERE seq > ? AND seq <= ? AND octet_length(content) > ${RANKED_CHARS}`,
  ).run(c.cursor, end);
  db.query("UPDATE message_starts_build SET cursor = ? WHERE id = 1").run(end);
  return { rows, finished: end >= c.upto };
}

/** Run (or resume) the copy until it is done or `signal` aborts. */
export async function buildMessageStarts(db: Database, options: SteppedJobOptions = {}): Promise<SteppedJobResult> {
  const state = startsBuildState(db);
  if (state.done || !cursorOf(db)) return noSteps(state.done);
  const batch = Math.max(1, options.batch ?? 2_000);
  let copied = state.copied;
  return runSteps(db, options, () => {
    const s = copyStep(db, batch);
    copied += s.rows;
    return { ...s, progress: [copied, Math.max(state.total, copied)] };
  });
}
