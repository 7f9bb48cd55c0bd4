// Session id rules: 1-128 of [A-Za-z0-9._-], not starting with "."; checked before any file is touched.
import { namedError } from "./errors.ts";

const SESSION_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

export const InvalidSessionIdError = namedError<{ id: unknown }>(
  "InvalidSessionIdError",
  "input",
  (d) =>
    `invalid session id ${typeof d.id === "string" ? JSON.stringify(d.id) : String(d.id)}: use 1-128 characters of A-Z a-z 0-9 . _ - , not starting with "."`,
);
export type InvalidSessionIdError = InstanceType<typeof InvalidSessionIdError>;

export function assertSessionId(id: unknown): string {
  if (typeof id !== "string" || !SESSION_ID.test(id)) {
    throw new InvalidSessionIdError({ id });
  }
  return id;
}

export function isTempSession(id: string): boolean {
  return id.startsWith("temp-");
}

export function isSessionId(id: string): boolean {
  return SESSION_ID.test(id);
}
