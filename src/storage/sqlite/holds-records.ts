// Whether an embedded home's archive holds anything of its own (a message, a session, an error record, a summary
// run, token usage): an empty one, made by a command run before the home was shared, has nothing to lose.
import { Database } from "bun:sqlite";

const TABLES = ["messages", "sessions", "error_records", "summary_runs", "llm_usage"];

/** True when it holds a row in any of them, or cannot be read (a copy to keep rather than to pass over). */
export function holdsRecords(path: string): boolean {
  let db: Database | undefined;
  try {
    db = new Database(path, { readonly: true });
    return TABLES.some((t) => db!.query(`SELECT 1 FROM ${t} LIMIT 1`).get() !== null);
  } catch {
    return true;
  } finally {
    db?.close();
  }
}
