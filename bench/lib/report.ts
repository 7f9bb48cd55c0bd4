// How a bench script hands its figures to bench/run.ts: one `BENCH_ROWS <json>` line on stdout.
export interface BenchRow {
  /** What was measured, e.g. "import 1M messages". */
  name: string;
  /** The figure as shown, e.g. "23,400 msg/s". */
  value: string;
  /** The target as text, e.g. ">= 20,000 msg/s"; absent when the row is informational. */
  target?: string;
  /** Whether the target is met (only with a target). */
  ok?: boolean;
}

export const ROWS_PREFIX = "BENCH_ROWS ";

export function emitRows(rows: readonly BenchRow[]): void {
  process.stdout.write(ROWS_PREFIX + JSON.stringify(rows) + "\n");
}

/** `--quick` was given (smaller sizes: checks that the script still works). */
export const quick = process.argv.includes("--quick");

export function log(line: string): void {
  process.stderr.write(line + "\n");
}
