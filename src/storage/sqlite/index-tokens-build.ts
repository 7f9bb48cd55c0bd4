// The background count of index tokens for messages written before the column existed (index-tokens.ts):
// short transactions from a saved cursor, each moving the cursor with its rows, the last one marking the
// build done. Resumable after a kill at any point; writers count their own rows meanwhile, and ranking reads
// docsize for the rows not counted yet, so nothing waits for it.
import type { Database } from "bun:sqlite";
import { bodyTokens, hasTokenColumn } from "./index-tokens.ts";
import { messagesUpTo } from "./messages-repo.ts";
import type { SteppedJobOptions, SteppedJobResult } from "./stepped-job.ts";

export interface TokenBuildState {
  done: boolean;
  /** Messages counted so far / messages in the archive. */
  copied: number;
  total: number;
}

interface Cursor {
  cursor: bigint;
  done: boolean;
}

/** The build's cursor; undefined on a home without the column (a read-only connection to an older home). */
function cursorOf(db: Database): Cursor | undefined {
  if (!hasTokenColumn(db)) return undefined;
  const row = db.query("SELECT cursor, done FROM index_tokens_build WHERE id = 1").values()[0] as
    | [bigint | number, bigint | number]
    | undefined;
  if (row === undefined) return undefined;
  return { cursor: BigInt(row[0]), done: Number(row[1]) === 1 };
}

export function tokenBuildState(db: Database): TokenBuildState {
  const total = messagesUpTo(db);
  const c = cursorOf(db);
  if (!c) return { done: false, copied: 0, total };
  return { done: c.done, copied: c.done ? total : c.cursor > 0n ? messagesUpTo(db, c.cursor) : 0, total };
}

export type TokenBuildOptions = SteppedJobOptions;
export type TokenBuildResult = SteppedJobResult;

/** Count the next `batch` messages after the cursor; true once none was left (the build is then done). */
function countStep(db: Database, batch: number): { rows: number; finished: boolean } {
  const c = cursorOf(db)!;
  if (c.done) return { rows: 0, finished: true }; // another process finished it
  const rows = db
    .query(
      "SELECT m.seq, d.sz FROM messages m LEFT JOIN messages_fts_docsize d ON d.id = m.seq WHERE m.seq > ? ORDER BY m.seq LIMIT ?",
    )
    .values(c.cursor, batch) as [bigint, Uint8Array | null][];
  const set = db.query("UPDATE messages SET index_tokens = ? WHERE seq = ?");
  for (const [seq, sz] of rows) set.run(bodyTokens(sz) ?? null, seq);
  const finished = rows.length < batch;
  db.query("UPDATE index_tokens_build SET cursor = ?, done = ? WHERE id = 1").run(
    rows.length ? rows[rows.length - 1]![0] : c.cursor,
    finished ? 1 : 0,
  );
  return { rows: rows.length, finished };
}

/** Run (or resume) the count until it is done or `signal` aborts. */
export async function buildTokenCounts(db: Database, options: TokenBuildOptions = {}): Promise<TokenBuildResult> {
  const started = performance.now();
  const out: TokenBuildResult = { done: false, copied: 0, longestStepMs: 0, ms: 0 };
  const state = tokenBuildState(db);
  out.done = state.done;
  if (!state.done && cursorOf(db)) {
    const batch = Math.max(1, options.batch ?? 500);
    let counted = state.copied;
    while (!options.signal?.aborted) {
      await options.waitForWriters?.();
      if (options.signal?.aborted) break;
      const t = performance.now();
      const step = db.transaction(() => countStep(db, batch)).immediate();
      out.longestStepMs = Math.max(out.longestStepMs, performance.now() - t);
      out.copied += step.rows;
      counted += step.rows;
      options.progress?.(counted, Math.max(state.total, counted));
      if (step.finished) {
        out.done = true;
        break;
      }
      await Bun.sleep(options.pauseMs ?? 2);
    }
  }
  out.ms = performance.now() - started;
  return out;
}
