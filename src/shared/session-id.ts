// Session id rules: 1-128 of [A-Za-z0-9._-], not starting with "."; checked before any file is touched.
import { InputError } from "./errors.ts";

const SESSION_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

export class InvalidSessionIdError extends InputError {}

export function assertSessionId(id: unknown): string {
  if (typeof id !== "string" || !SESSION_ID.test(id)) {
    const shown = typeof id === "string" ? JSON.stringify(id) : String(id);
    throw new InvalidSessionIdError(
      `invalid session id ${shown}: use 1-128 characters of A-Z a-z 0-9 . _ - , not starting with "."`,
    );
  }
  return id;
}

export function isTempSession(id: string): boolean {
  return id.startsWith("temp-");
}

export function isSessionId(id: string): boolean {
  return SESSION_ID.test(id);
}
