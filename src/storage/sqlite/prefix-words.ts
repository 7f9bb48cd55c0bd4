// The words a typed prefix stands for in the newest rows of a scope, spelled out for FTS5: it merges every
// row list a prefix names before it returns a row (tens of ms for a common prefix over 1M rows), while an OR
// of words is read newest first and stops at the window's end.
import type { Database } from "bun:sqlite";
import { indexTokensStarting } from "../../shared/index-tokens.ts";

export interface PrefixWords {
  /** The index's words beginning with the prefix in the rows read (see indexTokensStarting). */
  words: string[];
  /** The oldest seq read: every row of the scope at or above it was read. */
  from: bigint;
  /** Every row of the scope was read. */
  whole: boolean;
}

/** The words beginning with `prefix` in the newest `rows` rows of the session (or of all). */
export function newestPrefixWords(
  db: Database,
  prefix: string,
  session: string | undefined,
  rows: number,
): PrefixWords {
  const read = (
    session === undefined
      ? db.query("SELECT seq, content FROM messages ORDER BY seq DESC LIMIT ?").values(rows)
      : db
          .query("SELECT seq, content FROM messages WHERE session_id = ? ORDER BY seq DESC LIMIT ?")
          .values(session, rows)
  ) as [bigint, string][];
  const words = new Set<string>();
  for (const [, content] of read) for (const w of indexTokensStarting(content, prefix)) words.add(w);
  return { words: [...words], from: read.at(-1)?.[0] ?? 0n, whole: read.length < rows };
}
