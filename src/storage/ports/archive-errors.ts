// Errors every archive implementation raises alike.
import { namedError } from "../../shared/errors.ts";

export const SessionLockTimeoutError = namedError<{ session: string; timeoutMs: number }>(
  "SessionLockTimeoutError",
  "runtime",
  (d) => `timed out after ${d.timeoutMs} ms waiting for the lock of session ${JSON.stringify(d.session)}`,
);
export type SessionLockTimeoutError = InstanceType<typeof SessionLockTimeoutError>;
