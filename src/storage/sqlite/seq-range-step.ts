// What the background jobs that go over the messages by seq share (the starts' copy, the scan for İ and the
// Kelvin sign): a cursor saved in the job's row up to a bound, its progress, and a step's range of rows.
import type { Database } from "bun:sqlite";
import { messagesUpTo } from "./messages-repo.ts";
import { noSteps, runSteps, type SteppedJobOptions, type SteppedJobResult } from "./stepped-job.ts";

/** The last seq gone over, and the newest message the job has to go over (the newest when it was made). */
export interface SeqCursor {
  cursor: bigint;
  upto: bigint;
}

export interface SeqJobState {
  done: boolean;
  /** Messages gone over so far / messages in the archive. */
  copied: number;
  total: number;
}

/** A job's progress from its cursor; not done (and nothing gone over) when the home has no such job. */
export function seqJobState(db: Database, c: SeqCursor | undefined): SeqJobState {
  const total = messagesUpTo(db);
  if (!c) return { done: false, copied: 0, total };
  const done = c.cursor >= c.upto;
  return { done, copied: done ? total : c.cursor > 0n ? messagesUpTo(db, c.cursor) : 0, total };
}

/**
 * The next step's rows after the cursor: at most `batch`, and no more than it takes for their texts to weigh
 * `maxBytes` (`weight` of each text's length in bytes). `end`: the last seq of the step.
 */
export function nextSeqRange(
  db: Database,
  c: SeqCursor,
  batch: number,
  maxBytes: number,
  weight: (bytes: number) => number = (bytes) => bytes,
): { end: bigint; rows: number } {
  const next = db
    .query("SELECT seq, octet_length(content) FROM messages WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?")
    .values(c.cursor, c.upto, batch) as [bigint, bigint][];
  if (next.length < batch) return { end: c.upto, rows: next.length };
  let end = c.upto;
  let bytes = 0;
  let rows = 0;
  for (const [seq, size] of next) {
    bytes += weight(Number(size));
    end = seq;
    rows++;
    if (bytes >= maxBytes) break;
  }
  return { end, rows };
}

/**
 * Run (or resume) a job from its cursor until it is done or `signal` aborts: `step` goes over the next `batch`
 * messages in one write transaction (`defaultBatch` unless the options say) and says whether it finished the job.
 */
export function runSeqJob(
  db: Database,
  c: SeqCursor | undefined,
  options: SteppedJobOptions,
  defaultBatch: number,
  step: (batch: number) => { rows: number; finished: boolean },
): Promise<SteppedJobResult> {
  const state = seqJobState(db, c);
  if (state.done || !c) return Promise.resolve(noSteps(state.done));
  const batch = Math.max(1, options.batch ?? defaultBatch);
  let copied = state.copied;
  return runSteps(db, options, () => {
    const s = step(batch);
    // A job may finish before its bound (the scan, at the first find): it has gone over every message then.
    copied = s.finished ? Math.max(state.total, copied + s.rows) : copied + s.rows;
    return { ...s, progress: [copied, Math.max(state.total, copied)] };
  });
}
