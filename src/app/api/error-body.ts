// How an error leaves the process over HTTP or MCP: a status, a code (the error's class) and one line.
import { InputError, MemvoyError } from "../../shared/errors.ts";

export interface ErrorBody {
  error: { code: string; message: string; status: number };
}

export function errorStatus(err: unknown): number {
  if (err instanceof InputError) return /^Unknown|NotFound/.test(err.name) ? 404 : 400;
  if (err instanceof MemvoyError) return err.exitCode === 2 ? 400 : 500;
  return 500;
}

/** One line: the message of a memvoy error, else the error's class and first line (no stack, no paths of ours). */
export function errorLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split("\n")[0]!.slice(0, 1000);
}

export function errorBody(err: unknown, status = errorStatus(err)): ErrorBody {
  const code = err instanceof Error ? err.name : "Error";
  return { error: { code, message: errorLine(err), status } };
}
