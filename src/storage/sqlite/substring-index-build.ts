// The substring index's background build: index the messages after the cursor in short transactions, moving
// the cursor in the same transaction, until none is left (then the index is done, in that same transaction:
// no write can slip between). Resumable after a kill at any point; `add` never waits for more than one step.
import type { Database } from "bun:sqlite";
import { trigramState, trigramWriter } from "./substring-index.ts";

export interface TrigramBuildState {
  done: boolean;
  /** Messages indexed so far / messages in the archive. */
  copied: number;
  total: number;
}

const count = (db: Database, sql: string, ...args: bigint[]) => Number((db.query(sql).get(...args) as { n: bigint }).n);

export function trigramBuildState(db: Database): TrigramBuildState {
  const total = count(db, "SELECT count(*) AS n FROM messages");
  const s = trigramState(db);
  if (!s || s.done) return { done: s !== undefined, copied: s ? total : 0, total };
  return { done: false, copied: count(db, "SELECT count(*) AS n FROM messages WHERE seq <= ?", s.cursor), total };
}

export interface TrigramBuildOptions {
  signal?: AbortSignal;
  /** Messages indexed per transaction: each one is a write a concurrent `add` may wait for. */
  batch?: number;
  /** Pause between transactions so other writers get the lock. */
  pauseMs?: number;
  progress?: (copied: number, total: number) => void;
}

export interface TrigramBuildResult {
  done: boolean;
  copied: number;
  longestStepMs: number;
  ms: number;
}

/** Run (or resume) the build until it is done or `signal` aborts. */
export async function buildTrigram(db: Database, options: TrigramBuildOptions = {}): Promise<TrigramBuildResult> {
  const [batch, pause] = [Math.max(1, options.batch ?? 500), options.pauseMs ?? 2];
  const started = performance.now();
  let copied = 0;
  let longest = 0;
  const result = (done: boolean) => ({ done, copied, longestStepMs: longest, ms: performance.now() - started });
  const first = trigramBuildState(db);
  if (first.done || !trigramState(db)) return result(first.done);
  let done = first.copied;
  const total = first.total;
  const read = db.query("SELECT seq, content, recent FROM messages WHERE seq > ? ORDER BY seq LIMIT ?");
  const move = db.query("UPDATE trigram_build SET cursor = ?, done = ? WHERE id = 1");
  for (;;) {
    if (options.signal?.aborted) return result(false);
    const t = performance.now();
    const finished = db
      .transaction(() => {
        const s = trigramState(db)!;
        if (s.done) return true; // another process finished it
        const rows = read.all(s.cursor, batch) as { seq: bigint; content: string; recent: bigint | number }[];
        // The writer of the state after this step: each row in its tier's table when the split has placed it.
        const write = trigramWriter(db, { ...s, cursor: rows.length ? rows[rows.length - 1]!.seq : s.cursor });
        for (const r of rows) write(r.seq, r.content, Number(r.recent) === 1);
        copied += rows.length;
        done += rows.length;
        const last = rows.length ? rows[rows.length - 1]!.seq : s.cursor;
        move.run(last, rows.length < batch ? 1 : 0);
        return rows.length < batch;
      })
      .immediate();
    longest = Math.max(longest, performance.now() - t);
    options.progress?.(Math.min(done, Math.max(total, done)), Math.max(total, done));
    if (finished) return result(true);
    await Bun.sleep(pause);
  }
}
