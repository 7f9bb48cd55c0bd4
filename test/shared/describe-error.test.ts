// describeError: one line of user text for every kind of error, with full disks and refused permissions named.
import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DemoHomeNotEmptyError } from "../../src/app/demo/seed-demo.ts";
import { ConfigError } from "../../src/config/load.ts";
import { DaemonStoppingError, WorkerExitError } from "../../src/daemon/workers.ts";
import { LlmCallError, MissingApiKeyError } from "../../src/llm/llm-errors.ts";
import { AmbiguousErrorIdError, UnknownErrorIdError } from "../../src/memory/error-memory/error-ids.ts";
import { UnknownSessionError } from "../../src/memory/session-admin.ts";
import { describeError, errorCode, exitCodeOf } from "../../src/shared/describe-error.ts";
import { InputError, namedError, RuntimeFailure, UsageError } from "../../src/shared/errors.ts";
import { LockTimeoutError } from "../../src/shared/file-lock.ts";
import { assertSessionId, InvalidSessionIdError } from "../../src/shared/session-id.ts";
import { InvalidTimeError } from "../../src/shared/time.ts";
import { CorruptHistoryError } from "../../src/storage/history/history-file.ts";
import { SchemaTooNewError } from "../../src/storage/sqlite/open-database.ts";
import { VectorDimensionError } from "../../src/storage/lance/vector-dimension.ts";

function errno(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

test("a named error carries its data, its name and its exit code; the text is composed from the data", () => {
  const e = new UnknownSessionError({ session: "s1", home: "/h" });
  expect(e).toBeInstanceOf(InputError);
  expect(e.data).toEqual({ session: "s1", home: "/h" });
  expect(e.name).toBe("UnknownSessionError");
  expect(describeError(e)).toBe('no session "s1" in /h');
  expect(exitCodeOf(e)).toBe(2);
  expect(errorCode(e)).toBe("UnknownSessionError");

  const Made = namedError<{ n: number }>("MadeError", "runtime", (d) => `made ${d.n}`);
  const m = new Made({ n: 3 }, { cause: new Error("below") });
  expect(m).toBeInstanceOf(RuntimeFailure);
  expect([m.name, m.message, exitCodeOf(m), (m.cause as Error).message]).toEqual(["MadeError", "made 3", 1, "below"]);
});

test("each named error kind reads as one line with its facts", () => {
  const cases: [Error, RegExp, 1 | 2][] = [
    [new UsageError("unknown flag --x"), /^unknown flag --x$/, 2],
    [new ConfigError("config error in /c.toml: http.port: unknown key"), /^config error in \/c\.toml: http\.port/, 2],
    [(() => { try { assertSessionId("../x"); } catch (e) { return e as Error; } return new Error("not thrown"); })(), /^invalid session id "\.\.\/x": use 1-128/, 2],
    [new InvalidSessionIdError({ id: 42 }), /^invalid session id 42:/, 2],
    [new MissingApiKeyError(), /^ANTHROPIC_API_KEY is not set/, 2],
    [new LlmCallError("summary call to m failed: HTTP 401: the API key was refused", "auth", 401, 1), /HTTP 401/, 1],
    [new CorruptHistoryError("/h/history.json", "record 2", "expected an object"), /^\/h\/history\.json is corrupt \(record 2: expected an object\)/, 1],
    [new SchemaTooNewError({ path: "/h/db", version: 9, known: 6 }), /^\/h\/db has schema version 9; this memvoy knows 6: upgrade memvoy$/, 1],
    [new LockTimeoutError({ path: "/h/.lock", timeoutMs: 500 }), /^timed out after 500 ms waiting for the write lock \/h\/\.lock$/, 1],
    [new VectorDimensionError({ got: 3, expected: 4 }), /^vector of 3 dimensions for a 4-dimensional table$/, 1],
    [new WorkerExitError({ kind: "embeddings", pid: 7, code: 1, stderr: "boom" }), /^the embeddings worker \(pid 7\) exited with code 1 before answering: boom$/, 1],
    [new WorkerExitError({ kind: "maintenance", pid: 8, code: null, signal: "SIGKILL" }), /exited with SIGKILL before answering$/, 1],
    [new DaemonStoppingError({}), /^the daemon is stopping$/, 1],
    [new InvalidTimeError({ what: "--since", text: "yesterday-ish" }), /^invalid --since "yesterday-ish": use RFC 3339/, 2],
    [new DemoHomeNotEmptyError({ home: "/h" }), /^\/h already holds memvoy data/, 2],
    [new UnknownErrorIdError({ id: "abc", malformed: false }), /^no error record with id "abc"/, 2],
    [new UnknownErrorIdError({ id: '"xyz"', malformed: true }), /^"xyz" is not an error id: ids are hex/, 2],
    [new AmbiguousErrorIdError({ prefix: "3f", matches: [{ id: "3f000001", tool: "git" }, { id: "3f000002", tool: "npm" }] }), /^error id prefix "3f" is ambiguous: 3f000001 \(git\), 3f000002 \(npm\); give more characters$/, 2],
  ];
  for (const [err, text, code] of cases) {
    const line = describeError(err);
    expect(line).toMatch(text);
    expect(line).not.toContain("\n");
    expect(exitCodeOf(err)).toBe(code);
  }
  expect(new WorkerExitError({ kind: "embeddings", pid: 7, code: 0 }).data.code).toBe(0);
  expect(new VectorDimensionError({ got: 3, expected: 4 }).data).toEqual({ got: 3, expected: 4 });
});

test("only the first line of a message is shown; anything thrown becomes text", () => {
  expect(describeError(new Error("first\nsecond\nthird"))).toBe("first");
  expect(describeError("a string")).toBe("a string");
  expect(describeError(42)).toBe("42");
  expect(describeError(new TypeError(""))).toBe("TypeError");
  expect(exitCodeOf(new Error("x"))).toBe(1);
  expect(errorCode(new Error("x"))).toBe("Error");
});

test("ENOSPC, EDQUOT and a full SQLite database read as no space left, nothing changed", () => {
  const full = errno("ENOSPC", "ENOSPC: no space left on device, write");
  expect(describeError(full)).toBe("no space left on the device; nothing was changed (ENOSPC: no space left on device, write)");
  expect(describeError(errno("EDQUOT", "EDQUOT: disk quota exceeded"))).toStartWith("no space left on the device; nothing was changed");
  expect(describeError(Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" }))).toBe(
    "no space left on the device; nothing was changed (database or disk is full)",
  );
  expect(describeError(Object.assign(new Error("disk I/O error"), { code: "SQLITE_IOERR_WRITE" }))).toBe(
    "no space left on the device, or the disk failed a write; nothing was changed (disk I/O error)",
  );
  // Also when ours wraps it, and the same text in every front-end (described twice, it stays the same).
  const wrapped = new RuntimeFailure("cannot write /h/history.json", { cause: full });
  expect(describeError(wrapped)).toBe("no space left on the device; nothing was changed (cannot write /h/history.json)");
  expect(describeError(new Error(describeError(wrapped)))).toBe(describeError(wrapped));
});

test("EACCES, EPERM, EROFS and a read-only SQLite database read as permission denied", () => {
  expect(describeError(errno("EACCES", "EACCES: permission denied, open '/h/x'"))).toBe("permission denied: EACCES: permission denied, open '/h/x'");
  expect(describeError(errno("EPERM", "EPERM: operation not permitted, rename"))).toStartWith("permission denied: ");
  expect(describeError(errno("EROFS", "EROFS: read-only file system"))).toStartWith("permission denied: ");
  expect(describeError(new Error("attempt to write a readonly database"))).toBe("permission denied: attempt to write a readonly database");
  expect(describeError(new Error(describeError(errno("EACCES", "EACCES: x"))))).toBe("permission denied: EACCES: x");
});

test("real failures from the file system and SQLite are mapped", () => {
  const dir = mkdtempSync(join(tmpdir(), "memvoy-describe-"));
  try {
    const ro = join(dir, "ro.sqlite");
    new Database(ro).close();
    const db = new Database(ro, { readonly: true });
    let caught: unknown;
    try {
      db.run("CREATE TABLE t (x)");
    } catch (e) {
      caught = e;
    }
    db.close();
    expect(describeError(caught)).toStartWith("permission denied: ");

    if (process.getuid?.() !== 0) {
      const locked = join(dir, "locked");
      writeFileSync(locked, "x", { mode: 0o000 });
      let denied: unknown;
      try {
        readFileSync(locked);
      } catch (e) {
        denied = e;
      }
      expect(describeError(denied)).toStartWith("permission denied: EACCES");
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
