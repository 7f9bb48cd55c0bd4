// The background scan for İ and the Kelvin sign (folded_letters, 012-v0.8.sql) over the messages written before
// the table existed: short transactions from a saved cursor up to the newest message of that time; the writers
// note every later one (folded-letters.ts). It stops at the first message holding either. Resumable after a kill
// at any point; until it is done, substring SQL looks for them as before.
import type { Database } from "bun:sqlite";
import { foldedScan } from "./folded-letters.ts";
import { nextSeqRange, runSeqJob, seqJobState, type SeqJobState } from "./seq-range-step.ts";
import type { SteppedJobOptions, SteppedJobResult } from "./stepped-job.ts";

export const foldedScanState = (db: Database): SeqJobState => seqJobState(db, foldedScan(db));

/** Text a step reads at most, beside its row bound. */
const STEP_BYTES = 8 * 1024 * 1024;

/** Look through the next `batch` messages after the cursor, and move the cursor past them (to the end at a find). */
function scanStep(db: Database, batch: number): { rows: number; finished: boolean } {
  const s = foldedScan(db)!;
  if (s.cursor >= s.upto) return { rows: 0, finished: true }; // another process finished it
  let { end, rows } = nextSeqRange(db, s, batch, STEP_BYTES);
  const found = db
    .query(
      "SELECT 1 FROM messages WHERE seq > ? AND seq <= ? AND (instr(content, char(304)) > 0 OR instr(content, char(8490)) > 0) LIMIT 1",
    )
    .get(s.cursor, end);
  if (found) end = s.upto;
  db.query("UPDATE folded_letters SET cursor = ?, seen = seen OR ? WHERE id = 1").run(end, found ? 1 : 0);
  return { rows, finished: end >= s.upto };
}

/** Run (or resume) the scan until it is done or `signal` aborts. */
export const scanFoldedLetters = (db: Database, options: SteppedJobOptions = {}): Promise<SteppedJobResult> =>
  runSeqJob(db, foldedScan(db), options, 20_000, (batch) => scanStep(db, batch));
