// How an error leaves the process over HTTP or MCP: a status, a code (the error's class) and one line.
import { describeError, exitCodeOf } from "../../shared/describe-error.ts";
import { InputError, MemvoyError } from "../../shared/errors.ts";
import { postgresUnavailable } from "../../shared/postgres-failure.ts";

export interface ErrorBody {
  error: { code: string; message: string; status: number };
}

export function errorStatus(err: unknown): number {
  // Something named that does not exist (a session, a message, an error id): 404; any other bad input: 400.
  if (err instanceof InputError) return /^(Unknown|NoSuch)|NotFound/.test(err.name) ? 404 : 400;
  // The shared archive down, restarting or out of connections: the service is unavailable, a retry may do.
  if (postgresUnavailable(err)) return 503;
  if (err instanceof MemvoyError) return err.exitCode === 2 ? 400 : 500;
  // A home, sessions/ or session folder this user may not write: the setting to change the CLI exits 2 for.
  return exitCodeOf(err) === 2 ? 400 : 500;
}

/** The longest error line sent (it may quote what was given). */
const MAX_LINE = 1000;

/** One line of user text (describeError), never a stack, and never half a character (an emoji) at its end. */
export function errorLine(err: unknown): string {
  const line = describeError(err);
  const end = /[\uD800-\uDBFF]/.test(line[MAX_LINE - 1] ?? "") ? MAX_LINE - 1 : MAX_LINE;
  return line.slice(0, end);
}

export function errorBody(err: unknown, status = errorStatus(err)): ErrorBody {
  const code = err instanceof Error ? err.name : "Error";
  return { error: { code, message: errorLine(err), status } };
}
