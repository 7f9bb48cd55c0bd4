// The substring index's split by tier in the background (010-v0.6.sql): once the index is built, move the
// archived rows it holds to messages_trigram_archived in short transactions, moving the split cursor in the
// same transaction; once the cursor has reached the newest row, merge the recent table in short steps (the
// moved rows are only marked deleted there, and a search would still walk them); the step that finds nothing
// left to move or merge marks the split done. Resumable after a kill at any point; `add` never waits for more
// than one step.
import type { Database } from "bun:sqlite";
import { moveToArchived, RECENT_TRIGRAM, trigramState } from "./substring-index.ts";
import { cursorJobState, type TrigramBuildState } from "./substring-index-build.ts";
import { noSteps, runSteps, type SteppedJobOptions, type SteppedJobResult } from "./stepped-job.ts";

/** Messages the split has gone past / messages in the archive. */
export type TrigramSplitState = TrigramBuildState;

export function trigramSplitState(db: Database): TrigramSplitState {
  const s = trigramState(db);
  return cursorJobState(db, s?.split ? s.splitCursor : undefined, s?.splitDone === true);
}

/** Messages looked at per transaction at most (a home with few archived rows goes through many at a time). */
export const SPLIT_SPAN = { rows: 20_000 };
/** Pages one merge step of the recent table writes: the fewer, the shorter the step (each reads the marked rows it drops). */
const MERGE_PAGES = 4;

/** Run (or resume) the split until it is done or `signal` aborts; nothing to do before the index is built. */
export async function splitTrigram(db: Database, options: SteppedJobOptions = {}): Promise<SteppedJobResult> {
  const batch = Math.max(1, options.batch ?? 500);
  const first = trigramSplitState(db);
  const state = trigramState(db);
  if (first.done || !state?.split || !state.done) return noSteps(first.done);
  const total = first.total;
  const read = db.query(
    "SELECT seq, content FROM messages WHERE seq > ?1 AND seq <= ?1 + ?2 AND recent = 0 ORDER BY seq LIMIT ?3",
  );
  const top = db.query("SELECT coalesce(max(seq), 0) AS n FROM messages");
  const save = db.query("UPDATE trigram_split SET cursor = ?, moved = moved + ?, done = ? WHERE id = 1");
  const moved = db.query("SELECT moved FROM trigram_split WHERE id = 1");
  const changes = db.query("SELECT total_changes() AS n");
  /** One merge step of the recent table; whether it did work (total_changes moves by 2 or more, as FTS5 documents). */
  const merge = () => {
    const before = Number((changes.get() as { n: bigint }).n);
    db.run(`INSERT INTO ${RECENT_TRIGRAM}(${RECENT_TRIGRAM}, rank) VALUES ('merge', -${MERGE_PAGES})`);
    return Number((changes.get() as { n: bigint }).n) - before >= 2;
  };
  return runSteps(db, options, () => {
    const s = trigramState(db)!;
    if (s.splitDone) return { finished: true, rows: 0, progress: [total, total] }; // another process finished it
    const rows = read.all(s.splitCursor, SPLIT_SPAN.rows, batch) as { seq: bigint; content: string }[];
    moveToArchived(db, rows);
    const end = (top.get() as { n: bigint }).n;
    const full = rows.length >= batch;
    const at = full ? rows[rows.length - 1]!.seq : s.splitCursor + BigInt(SPLIT_SPAN.rows);
    const cursor = at < end ? at : end;
    // Every row placed: the recent table is merged, a step at a time, when the split moved rows out of it.
    const placed = !full && cursor >= end;
    const everMoved = Number((moved.get() as { moved: bigint }).moved) + rows.length > 0;
    const finished = placed && !(everMoved && merge());
    save.run(cursor, rows.length, finished ? 1 : 0);
    // Progress in messages gone past, as their share of the seqs (counting them would cost a pass each step).
    const share = end === 0n ? 1 : Math.min(1, Number(cursor) / Number(end));
    return { finished, rows: rows.length, progress: [Math.round(total * share), total] };
  });
}
