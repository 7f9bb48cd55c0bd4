// How an error leaves the process over HTTP or MCP: a status, a code (the error's class) and one line.
import { describeError } from "../../shared/describe-error.ts";
import { InputError, MemvoyError } from "../../shared/errors.ts";

export interface ErrorBody {
  error: { code: string; message: string; status: number };
}

export function errorStatus(err: unknown): number {
  // Something named that does not exist (a session, a message, an error id): 404; any other bad input: 400.
  if (err instanceof InputError) return /^(Unknown|NoSuch)|NotFound/.test(err.name) ? 404 : 400;
  if (err instanceof MemvoyError) return err.exitCode === 2 ? 400 : 500;
  return 500;
}

/** One line of user text (describeError), never a stack. */
export function errorLine(err: unknown): string {
  return describeError(err).slice(0, 1000);
}

export function errorBody(err: unknown, status = errorStatus(err)): ErrorBody {
  const code = err instanceof Error ? err.name : "Error";
  return { error: { code, message: errorLine(err), status } };
}
