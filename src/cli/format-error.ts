// The one place errors become user text: one line on stderr, and the exit code (2 usage/input, 1 runtime).
import { MemvoyError } from "../shared/errors.ts";
import { redactSecrets, secretValues } from "../shared/redact.ts";

export function reportError(err: unknown, json: boolean): number {
  const code = err instanceof MemvoyError ? err.exitCode : 1;
  let message = err instanceof Error ? err.message : String(err);
  if (!(err instanceof MemvoyError)) {
    const errno = (err as NodeJS.ErrnoException)?.code;
    if (errno === "ENOSPC") message = `no space left on the device; nothing was changed (${message})`;
    else if (errno === "EACCES" || errno === "EPERM") message = `permission denied: ${message}`;
    else if (err instanceof Error && /SQLITE_FULL|database or disk is full/i.test(message)) message = `no space left on the device; nothing was changed (${message})`;
  }
  // No secret reaches stderr: error texts can quote a server's answer or a URL with a password.
  const line = redactSecrets(message.split("\n")[0]!, secretValues()).text;
  if (json) process.stdout.write(JSON.stringify({ error: { message: line, code: err instanceof MemvoyError ? err.name : "Error", exitCode: code } }) + "\n");
  process.stderr.write(`memvoy: ${line}\n`);
  return code;
}
