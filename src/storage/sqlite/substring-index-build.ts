// The substring index's background build: index the messages after the cursor in short transactions, moving
// the cursor in the same transaction, until none is left (then the index is done, in that same transaction:
// no write can slip between). Resumable after a kill at any point; `add` never waits for more than one step.
// A bulk import defers the index the same way (deferTrigram) and runs the build when it ends.
import type { Database } from "bun:sqlite";
import { trigramState, trigramWriter } from "./substring-index.ts";
import { noSteps, runSteps, type SteppedJobOptions, type SteppedJobResult } from "./stepped-job.ts";

export interface TrigramBuildState {
  done: boolean;
  /** Messages indexed so far / messages in the archive. */
  copied: number;
  total: number;
}

/**
 * A cursor job's state over the messages: not there (`cursor` undefined: nothing done, nothing to do), done
 * (every message), or the messages up to the cursor.
 */
export function cursorJobState(db: Database, cursor: bigint | undefined, done: boolean): TrigramBuildState {
  const count = (sql: string, ...args: bigint[]) => Number((db.query(sql).get(...args) as { n: bigint }).n);
  const total = count("SELECT count(*) AS n FROM messages");
  if (cursor === undefined || done)
    return { done: cursor !== undefined, copied: cursor !== undefined ? total : 0, total };
  return { done: false, copied: count("SELECT count(*) AS n FROM messages WHERE seq <= ?", cursor), total };
}

export function trigramBuildState(db: Database): TrigramBuildState {
  const s = trigramState(db);
  return cursorJobState(db, s?.cursor, s?.done === true);
}

/**
 * Leave the rows written from now on to the build (a bulk import): the index is marked not done, its cursor at
 * the newest row, so writers skip the rows after it and search scans until the build is done. Those rows then
 * cost their writer nothing here, and the build indexes them in larger steps: about 30 µs a message instead of
 * 55 for a large import. Whether the build is to index them: false only when the database has no index (an
 * index not done already is left as it is). Call under the write lock.
 */
export function deferTrigram(db: Database): boolean {
  const s = trigramState(db);
  if (s?.done)
    db.run("UPDATE trigram_build SET done = 0, cursor = (SELECT coalesce(max(seq), 0) FROM messages) WHERE id = 1");
  return s !== undefined;
}

export type TrigramBuildOptions = SteppedJobOptions;
export type TrigramBuildResult = SteppedJobResult;

/** Run (or resume) the build until it is done or `signal` aborts. */
export async function buildTrigram(db: Database, options: TrigramBuildOptions = {}): Promise<TrigramBuildResult> {
  const batch = Math.max(1, options.batch ?? 500);
  const first = trigramBuildState(db);
  if (first.done || !trigramState(db)) return noSteps(first.done);
  let done = first.copied;
  const total = first.total;
  const read = db.query("SELECT seq, content, recent FROM messages WHERE seq > ? ORDER BY seq LIMIT ?");
  const move = db.query("UPDATE trigram_build SET cursor = ?, done = ? WHERE id = 1");
  return runSteps(db, options, () => {
    const s = trigramState(db)!;
    if (s.done) return { finished: true, rows: 0, progress: [done, Math.max(total, done)] }; // another process finished it
    const rows = read.all(s.cursor, batch) as { seq: bigint; content: string; recent: bigint | number }[];
    const last = rows.length ? rows[rows.length - 1]!.seq : s.cursor;
    // The writer of the state after this step: each row in its tier's table when the split has placed it.
    const write = trigramWriter(db, { ...s, cursor: last });
    for (const r of rows) write(r.seq, r.content, Number(r.recent) === 1);
    done += rows.length;
    move.run(last, rows.length < batch ? 1 : 0);
    return {
      finished: rows.length < batch,
      rows: rows.length,
      progress: [done, Math.max(total, done)],
    };
  });
}
