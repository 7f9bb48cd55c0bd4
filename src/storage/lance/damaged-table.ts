// A vector table LanceDB can no longer read (a data file or manifest missing, cut short or garbled): named with
// the way out, since every vector is made again from the archive.
import { lanceReason } from "../../shared/describe-error.ts";
import { errorMessage, namedError } from "../../shared/errors.ts";

export const VectorTableDamagedError = namedError<{ table: string; reason: string }>(
  "VectorTableDamagedError",
  "runtime",
  (d) => `the vector table ${d.table} is damaged (${d.reason}); run memvoy reindex to rebuild it from the archive`,
);
export type VectorTableDamagedError = InstanceType<typeof VectorTableDamagedError>;

// LanceDB's words for a file of the table that is gone or unreadable (read by experiment on each kind of damage).
const DAMAGE =
  /\bNot found: \S*\.(?:lance|manifest|txn)\b|\bcorrupt\b|file size is too small|failed to fill whole buffer|Invalid range \d+\.\.\d+ for object of size/i;

/** `err` as a VectorTableDamagedError of `table` when it says a file of the table is damaged or missing. */
export function asDamaged(err: unknown, table: string): unknown {
  if (err instanceof VectorTableDamagedError) return err;
  const text = errorMessage(err);
  return DAMAGE.test(text) ? new VectorTableDamagedError({ table, reason: lanceReason(text) }, { cause: err }) : err;
}
