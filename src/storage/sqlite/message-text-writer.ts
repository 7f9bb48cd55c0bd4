// What every writer of messages keeps beside a message's text, in the transaction that writes it: the start of a
// long message (message-starts.ts) and whether it holds İ or the Kelvin sign (folded-letters.ts).
import type { Database } from "bun:sqlite";
import { foldedLettersWriter } from "./folded-letters.ts";
import { startsWriter } from "./message-starts.ts";

/** Call the returned function for each message inserted, inside the write transaction. */
export function messageTextWriter(db: Database): (seq: bigint, content: string) => void {
  const starts = startsWriter(db);
  const folded = foldedLettersWriter(db);
  return (seq, content) => {
    starts(seq, content);
    folded(content);
  };
}
