// Reports an error to the user: its one line (from describeError) on stderr, and the exit code (2 usage/input, 1 runtime).
import { describeError, errorCode, exitCodeOf } from "../shared/describe-error.ts";
import { writeOut } from "../shared/stdout.ts";

export function reportError(err: unknown, json: boolean): number {
  const code = exitCodeOf(err);
  const line = describeError(err);
  if (json) writeOut(JSON.stringify({ error: { message: line, code: errorCode(err), exitCode: code } }) + "\n");
  process.stderr.write(`memvoy: ${line}\n`);
  return code;
}
