// The words of an error-memory record, alike at every layer: the stored row, the checked input and the JSON result.
export type ErrorOutcome = "resolved" | "failed" | "abandoned";

export interface ErrorRecordText {
  tool: string;
  error: string;
  /** Why it happened; null when not given. */
  cause: string | null;
  fix: string;
  outcome: ErrorOutcome;
  keywords: string[];
}
