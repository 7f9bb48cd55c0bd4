// The HTTP status of a failure matches the CLI's exit code: 400 where the CLI exits 2, 500 where it exits 1.
import { expect, test } from "bun:test";
import { errorBody, errorStatus } from "../../src/app/api/error-body.ts";
import { exitCodeOf } from "../../src/shared/describe-error.ts";

const systemError = (code: string, syscall: string, path: string) =>
  Object.assign(new Error(`${code}: ${syscall} '${path}'`), { code, syscall, path });

test("a folder this user may not write is 400 on every route, as the CLI's exit 2; a failing disk stays 500", () => {
  // An add into a session folder made read-only: the write of history.json's temp file is refused.
  const denied = systemError("EACCES", "open", "/h/sessions/s/.history.json.tmp");
  expect(exitCodeOf(denied)).toBe(2);
  expect(errorStatus(denied)).toBe(400);
  expect(errorStatus(systemError("EROFS", "mkdir", "/h/sessions/s2"))).toBe(400);
  expect(errorBody(denied).error.status).toBe(400);
  const failing = systemError("EIO", "write", "/h/.store/history.db");
  expect(exitCodeOf(failing)).toBe(1);
  expect(errorStatus(failing)).toBe(500);
  expect(errorStatus(new Error("something else"))).toBe(500);
});
