// Reports an error to the user: its one line (from describeError) on stderr, and the exit code (2 usage/input, 1 runtime).
import { describeError, errorCode, exitCodeOf } from "../shared/describe-error.ts";
import { writeOut } from "../shared/stdout.ts";
import { lineText } from "../shared/terminal-text.ts";

export function reportError(err: unknown, json: boolean): number {
  const code = exitCodeOf(err);
  const line = describeError(err);
  if (json) {
    try {
      writeOut(JSON.stringify({ error: { message: line, code: errorCode(err), exitCode: code } }) + "\n");
    } catch {
      // stdout itself failed (a full disk, /dev/full): the line on stderr says so
    }
  }
  // A stderr that takes no write (a full disk) must not turn the exit code into a crash's 1.
  process.stderr.once("error", () => {});
  // The line may quote what was typed or what a server answered: no escape sequence of it reaches the terminal.
  process.stderr.write(`memvoy: ${lineText(line)}\n`);
  return code;
}
