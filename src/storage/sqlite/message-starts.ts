// The start of each long message kept apart as ranking reads it (message_starts, 011-v0.7.sql), written by every
// writer of messages in the transaction that writes the message; triggers keep it on edits and removals.
import type { Database } from "bun:sqlite";
import { RANKED_CHARS } from "./ranked-text.ts";
import { schemaShape } from "./schema-shape.ts";

/**
 * Keeps the start of a message just inserted when it is longer than ranking reads (in UTF-8 bytes, as
 * octet_length counts them). A no-op on a home without the table. Call inside the write transaction.
 */
export function startsWriter(db: Database): (seq: bigint, content: string) => void {
  if (!schemaShape(db).messageStarts) return () => {};
  // One row of VALUES: a statement that may write several rows would open a statement journal, and FTS5 writes
  // its pending terms as a segment at each.
  const put = db.query(
    `INSERT OR REPLACE INTO message_starts (seq, head) VALUES (?, substr(?, 1, ${RANKED_CHARS + 1}))`,
  );
  return (seq, content) => {
    // A UTF-16 unit is 1 to 3 bytes of UTF-8 (a surrogate pair 4 for 2).
    if (content.length * 3 <= RANKED_CHARS) return;
    if (content.length <= RANKED_CHARS && Buffer.byteLength(content) <= RANKED_CHARS) return;
    put.run(seq, content);
  };
}
