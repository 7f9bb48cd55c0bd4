// describeError: one line of user text for every kind of error, with full disks and refused permissions named.
import { expect, test } from "bun:test";
import { Glob } from "bun";
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DemoHomeNotAFolderError, DemoHomeNotEmptyError } from "../../src/app/demo/seed-demo.ts";
import { ConfigError } from "../../src/config/load.ts";
import { DaemonStoppingError, WorkerExitError } from "../../src/daemon/workers.ts";
import { InvalidBaseUrlError, LlmCallError, MissingApiKeyError } from "../../src/llm/llm-errors.ts";
import { AmbiguousErrorIdError, UnknownErrorIdError } from "../../src/memory/error-memory/error-ids.ts";
import { DeletionUnfinishedError, UnknownSessionError } from "../../src/memory/session-admin.ts";
import { describeError, errorCode, exitCodeOf } from "../../src/shared/describe-error.ts";
import { InputError, namedError, RuntimeFailure, UsageError } from "../../src/shared/errors.ts";
import { LockTimeoutError } from "../../src/shared/file-lock.ts";
import { assertSessionId, InvalidSessionIdError } from "../../src/shared/session-id.ts";
import { InvalidTimeError } from "../../src/shared/time.ts";
import { CorruptHistoryError } from "../../src/storage/history/history-file.ts";
import { SchemaTooNewError } from "../../src/storage/sqlite/open-database.ts";
import { VectorDimensionError } from "../../src/storage/lance/vector-dimension.ts";
import { VectorTableDamagedError } from "../../src/storage/lance/damaged-table.ts";
import { NoExecTempError } from "../../src/storage/lance/load-lancedb.ts";
import { InvalidSearchOptionError } from "../../src/app/search-option-error.ts";
import { CommandUsageError, StdinInputError } from "../../src/cli/usage-errors.ts";
import { DaemonAlreadyRunningError } from "../../src/daemon/daemon.ts";
import { DaemonStopError } from "../../src/daemon/status.ts";
import { WordVectorAssetError } from "../../src/embed/builtin/word-vectors.ts";
import {
  EmbedderConfigError,
  EmbedderRejectedError,
  EmbedderResponseError,
  EmbedderUnavailableError,
} from "../../src/embed/embedder.ts";
import { LlmAbortedError, LlmAnswerError } from "../../src/llm/llm-errors.ts";
import { InvalidErrorInputError } from "../../src/memory/error-memory/error-input.ts";
import { InvalidMessageError } from "../../src/memory/message-input.ts";
import { UnknownMessageError } from "../../src/memory/remove-message.ts";
import { InvalidSummaryInputError, SummaryBusyError } from "../../src/memory/summary/import-summary.ts";
import { InvalidSummaryError } from "../../src/memory/summary/summary-schema.ts";
import { LockFailedError } from "../../src/shared/file-lock.ts";
import { namedErrorNames } from "../../src/shared/errors.ts";
import { ErrorVectorStoreError } from "../../src/storage/lance/error-vectors.ts";
import { NotThisFormatError } from "../../src/import/import-types.ts";
import { CorruptCompressedFileError, LimitError, TruncatedFileError } from "../../src/import/read-lines.ts";
import { OpencodeDatabaseError } from "../../src/import/sources/opencode.ts";
import { NotAZipError } from "../../src/import/zip-entries.ts";
import { ApiInputError } from "../../src/app/api/schemas.ts";
import { ConnectOptionsError, RemoteError, RemoteInputError } from "../../src/app/api/http-memory-api.ts";
import { MemoryOptionsError } from "../../src/app/api/local-memory-api.ts";
import { MemoryClosedError } from "../../src/app/api/memory-closed.ts";
import { HomeMissingError } from "../../src/app/open-memory.ts";
import { HomeNotMadeError, LinkToNothingError, TempFolderError } from "../../src/shared/folder-made.ts";
import { HomeGoneError } from "../../src/storage/sqlite/db-in-place.ts";
import { NoAnswerPossibleError } from "../../src/mcp/stdio-answers.ts";
import { ArgumentEncodingError, PartialAddError } from "../../src/cli/usage-errors.ts";
import { WorkerFailedError } from "../../src/daemon/workers.ts";
import { BodyShapeError, BodyTooLargeError } from "../../src/http/body.ts";
import { UnknownClientError } from "../../src/mcp/client-config.ts";
import { ToolArgumentError } from "../../src/mcp/tools.ts";
import { InvalidLastError } from "../../src/memory/history-view.ts";
import { TokenBudgetSpentError } from "../../src/memory/summary/token-budget.ts";
import { EmptyTimeWindowError, InvalidFilterError, InvalidTimeBoundError } from "../../src/shared/time-filter.ts";
import { ForeignDatabaseError } from "../../src/storage/foreign/foreign-sqlite.ts";
import { NotAFileError, SessionFolderAliasError, SymlinkRefusedError } from "../../src/storage/history/no-symlink.ts";
import { HomeFileNotRegularError, HomeLinkRefusedError } from "../../src/shared/no-follow.ts";
import { DatabaseNotWritableError } from "../../src/storage/sqlite/open-database.ts";
import { FolderUnchangeableError } from "../../src/memory/deletion-folders.ts";
import { BrokenDatabaseError } from "../../src/storage/sqlite/broken-database.ts";
import { NoSpaceError } from "../../src/storage/sqlite/no-space.ts";
import { VectorStoreError } from "../../src/storage/lance/vector-store.ts";
import { VectorStoreRefusedError } from "../../src/storage/lance/store-refused.ts";
import { VectorsBusyError } from "../../src/app/shared/shared-vectors.ts";
import {
  CopyMismatchError,
  NoArchiveUrlError,
  NoSourceArchiveError,
  TargetNotEmptyError,
  TargetWrittenError,
} from "../../src/app/migrate-archive.ts";
import {
  MigrateBusyError,
  VectorCopyFailedError,
  VectorCopyRefusedError,
  VectorWriteBusyError,
} from "../../src/app/migrate-turns.ts";
import { SessionLockTimeoutError } from "../../src/storage/ports/archive-errors.ts";
import {
  NotInSharedModeError,
  SharedVectorsMissingError,
  UncopiedHomeError,
} from "../../src/app/shared/shared-mode-errors.ts";
import { SummaryChangedError, SummaryRunEndedError } from "../../src/app/shared/shared-summary-store.ts";
import { SummaryMessageRemovedError } from "../../src/memory/summary/summary-store.ts";
import { UnwritableOutputError } from "../../src/shared/atomic-stream.ts";
import { OutputWriteError } from "../../src/shared/stdout.ts";
import { NoUserHomeError } from "../../src/shared/user-home.ts";
import {
  PgAccessError,
  PgConnectError,
  PgPrivilegeError,
  PgUrlError,
} from "../../src/storage/postgres/pg-connect-error.ts";
import { PgSchemaTooNewError } from "../../src/storage/postgres/pg-migrate.ts";
import { VectorKeysMissingError } from "../../src/storage/ports/vector-location.ts";
import { VectorCopyMismatchError } from "../../src/memory/embedding/copy-vectors.ts";

function errno(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

test("a named error carries its data, its name and its exit code; the text is composed from the data", () => {
  const e = new UnknownSessionError({ session: "s1", home: "/h" });
  expect(e).toBeInstanceOf(InputError);
  expect(e.data).toEqual({ session: "s1", home: "/h" });
  expect(e.name).toBe("UnknownSessionError");
  expect(describeError(e)).toBe('no such session "s1" in /h');
  expect(exitCodeOf(e)).toBe(2);
  expect(errorCode(e)).toBe("UnknownSessionError");

  const Made = namedError<{ n: number }>("MadeError", "runtime", (d) => `made ${d.n}`);
  const m = new Made({ n: 3 }, { cause: new Error("below") });
  expect(m).toBeInstanceOf(RuntimeFailure);
  expect([m.name, m.message, exitCodeOf(m), (m.cause as Error).message]).toEqual(["MadeError", "made 3", 1, "below"]);
  // A subclass keeps the given name, whatever its own class is called (a compiled binary minifies class names).
  const wL = class extends Made {};
  expect([new wL({ n: 4 }).name, errorCode(new wL({ n: 4 }))]).toEqual(["MadeError", "MadeError"]);
});

test("each named error kind reads as one line with its facts", () => {
  const cases: [Error, RegExp, 1 | 2][] = [
    [new UsageError("unknown flag --x"), /^unknown flag --x$/, 2],
    [
      new ConfigError({
        problem: "invalid",
        source: "/c.toml",
        issues: [{ path: "http.port", problem: "unknown key" }],
      }),
      /^config error in \/c\.toml: http\.port/,
      2,
    ],
    [
      (() => {
        try {
          assertSessionId("../x");
        } catch (e) {
          return e as Error;
        }
        return new Error("not thrown");
      })(),
      /^invalid session id "\.\.\/x": use 1-128/,
      2,
    ],
    [new InvalidSessionIdError({ id: 42 }), /^invalid session id 42:/, 2],
    [new MissingApiKeyError(), /^ANTHROPIC_API_KEY is not set/, 2],
    [
      new InvalidBaseUrlError({ variable: "ANTHROPIC_BASE_URL", value: "localhost:8080" }),
      /^ANTHROPIC_BASE_URL "localhost:8080" is not an http\(s\) URL/,
      2,
    ],
    [
      new LlmCallError({
        purpose: "summary",
        model: "m",
        url: "https://api.anthropic.com/v1/messages",
        kind: "auth",
        status: 401,
        attempts: 1,
        problem: "HTTP 401: the API key was refused",
      }),
      /HTTP 401/,
      1,
    ],
    [
      new CorruptHistoryError({ file: "/h/history.json", where: "record 2", detail: "expected an object" }),
      /^\/h\/history\.json is corrupt \(record 2: expected an object\)/,
      2,
    ],
    [
      new SchemaTooNewError({ path: "/h/db", version: 9, known: 6 }),
      /^\/h\/db has schema version 9; this memvoy knows 6: upgrade memvoy$/,
      1,
    ],
    [
      new LockTimeoutError({ path: "/h/.lock", timeoutMs: 500 }),
      /^timed out after 500 ms waiting for the write lock \/h\/\.lock$/,
      1,
    ],
    [new VectorDimensionError({ got: 3, expected: 4 }), /^vector of 3 dimensions for a 4-dimensional table$/, 1],
    [
      new WorkerExitError({ kind: "embeddings", pid: 7, code: 1, stderr: "boom" }),
      /^the embeddings worker \(pid 7\) exited with code 1 before answering: boom$/,
      1,
    ],
    [
      new WorkerExitError({ kind: "maintenance", pid: 8, code: null, signal: "SIGKILL" }),
      /exited with SIGKILL before answering$/,
      1,
    ],
    [new DaemonStoppingError({}), /^the daemon is stopping$/, 1],
    [
      new InvalidTimeError({ what: "--since", text: "yesterday-ish" }),
      /^invalid --since "yesterday-ish": use RFC 3339/,
      2,
    ],
    [new DemoHomeNotEmptyError({ home: "/h" }), /^\/h already holds memvoy data/, 2],
    [new UnknownErrorIdError({ id: "abc", malformed: false }), /^no error record with id "abc"/, 2],
    [new UnknownErrorIdError({ id: '"xyz"', malformed: true }), /^"xyz" is not an error id: ids are hex/, 2],
    [
      new AmbiguousErrorIdError({
        prefix: "3f",
        matches: [
          { id: "3f000001", tool: "git" },
          { id: "3f000002", tool: "npm" },
        ],
      }),
      /^error id prefix "3f" is ambiguous: 3f000001 \(git\), 3f000002 \(npm\); give more characters$/,
      2,
    ],
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

const URL_ = "https://api.example.test/v1/embeddings";
const LABEL = `openai embeddings (${URL_})`;
const ANTHROPIC = "https://api.anthropic.com/v1/messages";

/** Every named error kind with its data, the exact line describeError gives, and its exit code. */
const KINDS: [Error & { data: object }, string, 1 | 2][] = [
  [new UnknownSessionError({ session: "s1", home: "/h" }), 'no such session "s1" in /h', 2],
  [
    new DeletionUnfinishedError({ command: "reset", session: "s1", removed: 3, why: "no space left on the device" }),
    "reset s1: 3 message(s) removed, but removing every copy of their text failed (no space left on the device); the next memvoy command on this home finishes it",
    1,
  ],
  [
    // SQLite's words in the reason (the FTS purge ran out of room) must not make it read "nothing was changed".
    new DeletionUnfinishedError({
      command: "reset",
      session: "s1",
      removed: 3,
      why: "no space left on the device: database or disk is full",
    }),
    "reset s1: 3 message(s) removed, but removing every copy of their text failed (no space left on the device: database or disk is full); the next memvoy command on this home finishes it",
    1,
  ],
  [new UnknownMessageError({ id: "01ABC", where: "/h" }), 'no message "01ABC" in /h', 2],
  [
    new InvalidSessionIdError({ id: ".x" }),
    'invalid session id ".x": use 1-128 characters of A-Z a-z 0-9 . _ - , not starting with "."',
    2,
  ],
  [
    new InvalidTimeError({ what: "--at", text: "soon" }),
    'invalid --at "soon": use RFC 3339 (2026-05-01T09:30:00Z), local "2026-05-01 09:30[:00]", or unix seconds (a fraction allowed: 1765000000.5), ms, us or ns',
    2,
  ],
  [
    new LockTimeoutError({ path: "/h/.lock", timeoutMs: 500 }),
    "timed out after 500 ms waiting for the write lock /h/.lock",
    1,
  ],
  [new LockFailedError({ path: "/h/.lock", errno: 9 }), "cannot lock /h/.lock (errno 9)", 1],
  [
    new SchemaTooNewError({ path: "/h/db", version: 9, known: 6 }),
    "/h/db has schema version 9; this memvoy knows 6: upgrade memvoy",
    1,
  ],
  [
    new DemoHomeNotEmptyError({ home: "/h" }),
    "/h already holds memvoy data; give demo an empty or new folder with --home",
    2,
  ],
  [
    new DemoHomeNotAFolderError({ home: "/h" }),
    "/h is a file, or lies under one; give demo an empty or new folder with --home",
    2,
  ],
  [
    new UnknownErrorIdError({ id: "abc", malformed: false }),
    'no error record with id "abc" (see memvoy errors list)',
    2,
  ],
  [
    new AmbiguousErrorIdError({ prefix: "3f", matches: [{ id: "3f01", tool: "git" }] }),
    'error id prefix "3f" is ambiguous: 3f01 (git); give more characters',
    2,
  ],
  [new VectorDimensionError({ got: 3, expected: 4 }), "vector of 3 dimensions for a 4-dimensional table", 1],
  [
    new VectorTableDamagedError({ table: "messages_x", reason: "lance error: file size is too small" }),
    "the vector table messages_x is damaged (lance error: file size is too small); run memvoy reindex to rebuild it from the archive",
    1,
  ],
  [
    new WorkerExitError({ kind: "embeddings", pid: 7, code: 1 }),
    "the embeddings worker (pid 7) exited with code 1 before answering",
    1,
  ],
  [new DaemonStoppingError({}), "the daemon is stopping", 1],
  [
    new ConfigError({ problem: "unreadable", file: "/c.toml", reason: "EISDIR: illegal operation on a directory" }),
    "cannot read config /c.toml: EISDIR: illegal operation on a directory",
    2,
  ],
  [
    new ConfigError({ problem: "syntax", source: "/c.toml", detail: "unexpected character", line: 3, column: 7 }),
    "config error in /c.toml: TOML syntax error at line 3, column 7: unexpected character",
    2,
  ],
  [
    new ConfigError({ problem: "syntax", source: "/c.toml", detail: "unexpected end" }),
    "config error in /c.toml: TOML syntax error: unexpected end",
    2,
  ],
  [
    new ConfigError({
      problem: "aliases-differ",
      source: "/c.toml",
      key: "summary.decision_model",
      value: "a",
      alias: "decision_model",
      aliasValue: "b",
    }),
    'config error in /c.toml: summary.decision_model ("a") and decision_model ("b") differ: set one of them',
    2,
  ],
  [
    new ConfigError({
      problem: "invalid",
      source: "/c.toml",
      issues: [
        { path: "http.port", problem: "unknown key" },
        { path: "summary.model", problem: "expected string" },
      ],
    }),
    "config error in /c.toml: http.port: unknown key; summary.model: expected string",
    2,
  ],
  [
    new ConfigError({
      problem: "cron",
      source: "MEMVOY_DAEMON_SWEEP_CRON (environment)",
      key: "daemon.sweep_cron",
      pattern: "61 * * * *",
      reason: "bad minute",
    }),
    'config error in MEMVOY_DAEMON_SWEEP_CRON (environment): daemon.sweep_cron: invalid cron pattern "61 * * * *": bad minute',
    2,
  ],
  [
    new DaemonStopError({ problem: "no-pid", home: "/h" }),
    "a daemon holds /h/daemon.lock but its pid is unknown; stop it with your service manager",
    1,
  ],
  [
    new DaemonStopError({ problem: "signal-refused", pid: 42, reason: "EPERM" }),
    "cannot signal the daemon (pid 42): EPERM",
    1,
  ],
  [
    new DaemonStopError({ problem: "still-running", pid: 42, timeoutMs: 10_000 }),
    "the daemon (pid 42) did not stop within 10 s",
    1,
  ],
  [
    new DaemonAlreadyRunningError({ home: "/h", pid: 42, since: "2026-05-01T09:30:00Z" }),
    "a memvoy daemon is already running on /h (pid 42, since 2026-05-01T09:30:00Z); stop it with: memvoy daemon stop --home /h",
    1,
  ],
  [
    new DaemonAlreadyRunningError({ home: "/h", pid: null }),
    "a memvoy daemon is already running on /h (pid unknown); stop it with: memvoy daemon stop --home /h",
    1,
  ],
  [
    new MissingApiKeyError(),
    "ANTHROPIC_API_KEY is not set: summaries need the Anthropic API (set it, and ANTHROPIC_BASE_URL for a proxy); nothing was changed",
    2,
  ],
  [
    new InvalidBaseUrlError({ variable: "ANTHROPIC_BASE_URL", value: "localhost:8080" }),
    'ANTHROPIC_BASE_URL "localhost:8080" is not an http(s) URL (e.g. https://api.anthropic.com or http://127.0.0.1:8080); nothing was changed',
    2,
  ],
  [
    new LlmCallError({
      purpose: "summary",
      model: "m",
      url: ANTHROPIC,
      kind: "auth",
      status: 401,
      attempts: 1,
      problem: "HTTP 401: the API key was refused",
    }),
    "summary call to m failed: HTTP 401: the API key was refused",
    1,
  ],
  [
    new LlmCallError({
      purpose: "summary",
      model: "m",
      url: ANTHROPIC,
      kind: "server",
      status: 500,
      attempts: 3,
      problem: "HTTP 500 server error",
    }),
    "summary call to m failed: HTTP 500 server error (after 3 attempts)",
    1,
  ],
  [
    new LlmCallError({
      purpose: "summary",
      model: "m",
      url: ANTHROPIC,
      kind: "rate-limit",
      status: 429,
      attempts: 2,
      problem: "HTTP 429 rate limited",
      noTimeLeft: true,
    }),
    "summary call to m failed: HTTP 429 rate limited; no time left to retry",
    1,
  ],
  [
    new LlmCallError({
      purpose: "relevance",
      model: "m",
      url: ANTHROPIC,
      kind: "timeout",
      attempts: 1,
      deadlineMs: 9000,
    }),
    "relevance call to m timed out after 9000 ms",
    1,
  ],
  [new LlmAnswerError({ purpose: "summary", model: "m", problem: "empty" }), "summary answer from m was empty", 1],
  [
    new LlmAnswerError({ purpose: "summary", model: "m", problem: "no-json", length: 5 }),
    "summary answer from m held no JSON (5 characters of text)",
    1,
  ],
  [
    new LlmAnswerError({ purpose: "summary", model: "m", problem: "no-summary" }),
    "summary answer from m held no valid summary (it needs key_decisions, past_discussions and current_discussion)",
    1,
  ],
  [
    new LlmAnswerError({ purpose: "relevance", problem: "shape" }),
    "relevance answer did not have the expected shape",
    1,
  ],
  [new LlmAbortedError({ purpose: "summary", model: "m" }), "summary call to m was aborted", 1],
  [
    new CorruptHistoryError({ file: "/h/history.json", where: "record 2", detail: "expected an object" }),
    "/h/history.json is corrupt (record 2: expected an object); it was left untouched. Run `memvoy doctor --repair` to rebuild it from the archive",
    2,
  ],
  [
    new VectorStoreError({ op: "open", dir: "/h/.store/lance", reason: "boom" }),
    "cannot open the vector store /h/.store/lance: boom",
    1,
  ],
  [
    new VectorStoreError({ op: "create-table", table: "v_builtin", reason: "boom" }),
    "cannot create vector table v_builtin: boom",
    1,
  ],
  [
    new ErrorVectorStoreError({ op: "open", dir: "/h/.store/lance", reason: "boom" }),
    "cannot open the vector store /h/.store/lance: boom",
    1,
  ],
  [
    new ErrorVectorStoreError({ op: "create-table", embedderId: "builtin:v1:384", reason: "boom" }),
    "cannot create the error vector table for builtin:v1:384: boom",
    1,
  ],
  [
    new VectorStoreRefusedError({ label: "s3://b/p", reason: "NoSuchBucket", check: "the bucket in [vectors] uri" }),
    "cannot open the vector store s3://b/p: NoSuchBucket (check the bucket in [vectors] uri)",
    2,
  ],
  [
    new VectorCopyFailedError({ cause: "cannot open the vector store s3://team/x: Connection refused" }),
    "the messages are copied, the vectors are not: cannot open the vector store s3://team/x: Connection refused; run memvoy migrate-archive again once the vector store answers (it copies only what is missing)",
    1,
  ],
  [
    new VectorCopyRefusedError({ cause: "the bucket team does not exist" }),
    "the messages are copied, the vectors are not: the bucket team does not exist; run memvoy migrate-archive again once the vector store answers (it copies only what is missing)",
    2,
  ],
  [
    new VectorsBusyError({ holder: "build-7:4242#a1b2" }),
    "the shared vectors are being written by build-7:4242#a1b2",
    1,
  ],
  [
    new VectorKeysMissingError({ uri: "s3://team/x", missing: ["MEMVOY_S3_ACCESS_KEY_ID / AWS_ACCESS_KEY_ID"] }),
    "vectors.uri is s3://team/x but MEMVOY_S3_ACCESS_KEY_ID / AWS_ACCESS_KEY_ID is not set",
    2,
  ],
  [
    new VectorCopyMismatchError({ kind: "messages", embedderId: "builtin:v1:384", missing: 3, source: 10 }),
    "the copy of the messages vectors of builtin:v1:384 is incomplete: 3 of 10 rows are not in the target; run it again",
    1,
  ],
  [
    new WordVectorAssetError({ problem: "format" }),
    "word-vector asset is not in the expected format (rebuild with scripts/build-word-vectors.ts)",
    1,
  ],
  [new WordVectorAssetError({ problem: "truncated" }), "word-vector asset is truncated", 1],
  [
    new WordVectorAssetError({ problem: "unreadable", path: "/a.bin", reason: "ENOENT" }),
    "cannot read the builtin word vectors (/a.bin): ENOENT",
    1,
  ],
  [
    new EmbedderConfigError({ problem: "not-a-url", baseUrl: "x", example: "https://api.openai.com/v1" }),
    '[embedder] base_url "x" is not a URL (e.g. https://api.openai.com/v1)',
    2,
  ],
  [
    new EmbedderConfigError({ problem: "not-http", baseUrl: "ftp://x" }),
    '[embedder] base_url "ftp://x" must start with http:// or https://',
    2,
  ],
  [
    new EmbedderConfigError({ problem: "missing-key", provider: "openai", keyVar: "OPENAI_API_KEY" }),
    'embedder "openai" needs an API key: set OPENAI_API_KEY in the environment',
    2,
  ],
  [
    new EmbedderConfigError({
      problem: "key-wanted",
      provider: "openai",
      label: LABEL,
      status: 401,
      keyVar: "OPENAI_API_KEY",
    }),
    `${LABEL} wants an API key (401) and none is set: set OPENAI_API_KEY in the environment`,
    2,
  ],
  [
    new EmbedderConfigError({ problem: "key-wanted", provider: "ollama", label: LABEL, status: 403 }),
    `${LABEL} wants an API key (403), which the ollama provider never sends: use provider = "openai" with OPENAI_API_KEY`,
    2,
  ],
  [
    new EmbedderUnavailableError({ label: LABEL, url: URL_, problem: "timeout", timeoutMs: 100 }),
    `${LABEL} timed out after 100 ms`,
    1,
  ],
  [
    new EmbedderUnavailableError({ label: LABEL, url: URL_, problem: "unreachable", reason: "host not found" }),
    `cannot reach ${LABEL}: host not found`,
    1,
  ],
  [
    new EmbedderUnavailableError({ label: LABEL, url: URL_, problem: "kept-failing", status: 429, attempts: 3 }),
    `${LABEL} kept rate-limiting (429) after 3 attempts`,
    1,
  ],
  [
    new EmbedderUnavailableError({
      label: LABEL,
      url: URL_,
      problem: "kept-failing",
      status: 503,
      attempts: 3,
      detail: "down",
    }),
    `${LABEL} kept failing (503) after 3 attempts: down`,
    1,
  ],
  [
    new EmbedderUnavailableError({ label: LABEL, url: URL_, problem: "dropped", attempts: 1 }),
    `${LABEL} closed the connection before answering (1 attempt)`,
    1,
  ],
  [
    new EmbedderUnavailableError({ label: LABEL, url: URL_, problem: "dropped", attempts: 5, midAnswer: true }),
    `${LABEL} closed the connection mid-answer (5 attempts)`,
    1,
  ],
  [
    new EmbedderResponseError({ label: LABEL, url: URL_, problem: "not-json", detail: "<html>" }),
    `${LABEL} answered with something that is not JSON: <html>`,
    1,
  ],
  [
    new EmbedderResponseError({ label: LABEL, problem: "malformed", why: "no `data` array" }),
    `${LABEL} returned a malformed response: no \`data\` array`,
    1,
  ],
  [
    new EmbedderRejectedError({ label: LABEL, url: URL_, status: 401, detail: "bad key ***" }),
    `${LABEL} rejected the API key (401): bad key ***`,
    1,
  ],
  [new EmbedderRejectedError({ label: LABEL, url: URL_, status: 400 }), `${LABEL} refused the request (400)`, 1],
  [
    new InvalidSummaryError({ issues: [{ path: "key_decisions", problem: "too many" }] }),
    "invalid summary: key_decisions: too many",
    1,
  ],
  [
    new InvalidSummaryInputError({ problem: "invalid", issues: [{ path: "(top level)", problem: "expected object" }] }),
    "summary: (top level): expected object",
    2,
  ],
  [
    new InvalidSummaryInputError({ problem: "no-messages", session: "s1" }),
    "session s1 has no messages: a summary needs messages to stand for",
    2,
  ],
  [new SummaryBusyError({ session: "s1" }), "session s1 is being summarized right now; try again when it is done", 1],
  [
    new InvalidMessageError({ where: "stdin line 3", problem: "not-json" }),
    "stdin line 3: not valid JSON; nothing was written",
    2,
  ],
  [
    new InvalidMessageError({
      where: "message",
      problem: "fields",
      issues: [{ path: "role", problem: "role must be user or assistant" }],
    }),
    "message: role: role must be user or assistant",
    2,
  ],
  [
    new InvalidMessageError({ where: "message", problem: "role", role: "bot" }),
    'message: unknown role "bot" (use user or assistant)',
    2,
  ],
  [new InvalidMessageError({ where: "message", problem: "empty" }), "message: content is empty", 2],
  [
    new InvalidMessageError({ where: "message", problem: "nul", offset: 4 }),
    "message: content contains a NUL character at offset 4",
    2,
  ],
  [
    new InvalidMessageError({ where: "message", problem: "unpaired-surrogate" }),
    "message: content is not valid Unicode (unpaired surrogate)",
    2,
  ],
  [
    new InvalidMessageError({ where: "message", problem: "unpaired-surrogate", field: "sender" }),
    "message: sender is not valid Unicode (unpaired surrogate)",
    2,
  ],
  [
    new InvalidMessageError({ where: "message", problem: "too-big", bytes: 2 * 1024 * 1024, maxBytes: 1024 * 1024 }),
    "message: content is 2.0 MiB, over limits.max_message_bytes (1.0 MiB)",
    2,
  ],
  [
    new InvalidMessageError({ where: "message", problem: "sender" }),
    "message: sender must be text of at most 256 characters",
    2,
  ],
  [
    new InvalidErrorInputError({
      what: "error record",
      problem: "invalid",
      issues: [{ path: "tool", problem: "tool is required" }],
    }),
    "error record: tool: tool is required",
    2,
  ],
  [
    new InvalidErrorInputError({
      what: "error record",
      problem: "keyword-too-long",
      keyword: "k".repeat(100),
      maxChars: 64,
    }),
    `error record: keyword "${"k".repeat(80)}" must be at most 64 characters on one line`,
    2,
  ],
  [
    new InvalidErrorInputError({ what: "error record", problem: "too-many-keywords", count: 40, max: 32 }),
    "error record: at most 32 keywords (got 40)",
    2,
  ],
  [new InvalidSearchOptionError({ option: "query" }), "search needs a query", 2],
  [new InvalidSearchOptionError({ option: "range", value: "2w" }), 'invalid range "2w": use 1d, 7d, 30d, 1y or all', 2],
  [
    new InvalidSearchOptionError({ option: "limit", value: 0 }),
    "invalid limit 0: use a whole number from 1 to 1000",
    2,
  ],
  [
    new InvalidSearchOptionError({ option: "order", value: "oldest" }),
    'invalid order "oldest": use relevance or newest',
    2,
  ],
  [
    new InvalidSearchOptionError({ option: "match", value: "fuzzy" }),
    'invalid match mode "fuzzy": use keyword, semantic or hybrid',
    2,
  ],
  [new CommandUsageError({ problem: "missing-command" }), "missing command (see memvoy --help)", 2],
  [
    new CommandUsageError({ problem: "unknown-command", command: "frob" }),
    'unknown command "frob" (see memvoy --help)',
    2,
  ],
  [
    new CommandUsageError({ problem: "dumb-terminal" }),
    "the terminal UI cannot run with TERM=dumb (no cursor movement); run it as  TERM=xterm-256color memvoy  or use the commands (memvoy --help)",
    2,
  ],
  [
    new CommandUsageError({ problem: "missing-subcommand", command: "daemon", choices: ["status", "stop"] }),
    "daemon: missing subcommand: use status or stop (see memvoy daemon --help)",
    2,
  ],
  [
    new CommandUsageError({
      problem: "unknown-subcommand",
      command: "config",
      subcommand: "x",
      choices: ["show", "path", "check"],
    }),
    'config: unknown subcommand "x": use show, path or check',
    2,
  ],
  [
    new CommandUsageError({ problem: "unknown-option", command: "add", option: "--bogus" }),
    "add: unknown option --bogus (see memvoy add --help)",
    2,
  ],
  [
    new CommandUsageError({ problem: "flag-takes-no-value", command: "add", flag: "--json" }),
    "add: --json takes no value",
    2,
  ],
  [
    new CommandUsageError({ problem: "flag-needs-value", command: "add", flag: "--role" }),
    "add: --role needs a value",
    2,
  ],
  [
    new CommandUsageError({ problem: "flag-not-integer", command: "search", flag: "--limit", got: "x" }),
    'search: --limit must be a whole number, got "x"',
    2,
  ],
  [
    new CommandUsageError({ problem: "flag-required", command: "errors record", flag: "--tool", seeHelp: true }),
    "errors record: --tool is required (see memvoy errors record --help)",
    2,
  ],
  [
    new CommandUsageError({ problem: "flag-required", command: "daemon work", flag: "--home", seeHelp: false }),
    "daemon work: --home is required",
    2,
  ],
  [
    new CommandUsageError({ problem: "flag-rule", command: "sessions", flag: "--sort", rule: "recent or name" }),
    "sessions: --sort must be recent or name",
    2,
  ],
  [
    new CommandUsageError({ problem: "flags-need", command: "add", flags: ["--content", "--at"], needs: "--role" }),
    "add: --content and --at need --role",
    2,
  ],
  [
    new CommandUsageError({
      problem: "flags-need",
      command: "errors search",
      flags: ["--other-tools"],
      needs: "--tool",
    }),
    "errors search: --other-tools needs --tool",
    2,
  ],
  [
    new CommandUsageError({ problem: "missing-argument", command: "search", argument: "QUERY" }),
    "search: missing QUERY (see memvoy search --help)",
    2,
  ],
  [
    new CommandUsageError({ problem: "unexpected-argument", command: "config", argument: "x" }),
    'config: unexpected argument "x"',
    2,
  ],
  [
    new CommandUsageError({ problem: "unknown-value", command: "daemon work", what: "kind", value: "x" }),
    'daemon work: unknown kind "x"',
    2,
  ],
  [
    new CommandUsageError({
      problem: "no-input",
      command: "add",
      give: "--content TEXT or pipe the text on stdin",
      seeHelp: false,
    }),
    "add: give --content TEXT or pipe the text on stdin",
    2,
  ],
  [
    new ArgumentEncodingError({ command: "add", argument: "--content" }),
    "add: --content is not valid UTF-8; nothing was written",
    2,
  ],
  [
    new CommandUsageError({
      problem: "unknown-choice",
      command: "completion",
      what: "shell",
      value: "tcsh",
      choices: ["bash", "zsh", "fish"],
    }),
    'completion: unknown shell "tcsh": use bash, zsh or fish',
    2,
  ],
  [
    new CommandUsageError({
      problem: "either-or",
      command: "export",
      one: "SESSION names",
      other: "--all",
      given: "both",
    }),
    "export: give SESSION names or --all, not both",
    2,
  ],
  [
    new CommandUsageError({ problem: "stdin-is-terminal", command: "mcp", startedBy: "an MCP client" }),
    "mcp: stdin is a terminal; an MCP client starts this command (see memvoy mcp --help)",
    2,
  ],
  [new ApiInputError({ what: "search", issues: [{ path: "limit", problem: "missing" }] }), "search: limit: missing", 2],
  [
    new ToolArgumentError({ problem: "needed", tool: "chat_history", field: "query", mode: "search" }),
    "chat_history: query is needed for mode search.",
    2,
  ],
  [
    new ToolArgumentError({
      problem: "invalid",
      tool: "summary",
      issues: [{ path: "session", problem: "unknown field" }],
    }),
    "summary: session: unknown field.",
    2,
  ],
  [
    new RemoteError({ problem: "timeout", base: "http://127.0.0.1:1", timeoutMs: 1000 }),
    "memvoy at http://127.0.0.1:1 did not answer within 1000 ms (timeoutMs): the request may still be carried out (retry an add with the same idempotencyKey)",
    1,
  ],
  [
    new RemoteError({ problem: "cut-off", base: "http://127.0.0.1:1", reason: "ECONNRESET: closed" }),
    "memvoy at http://127.0.0.1:1 closed the connection before its answer was complete (ECONNRESET: closed): the request may still have been carried out (retry an add with the same idempotencyKey)",
    1,
  ],
  [
    new RemoteError({ problem: "failed", base: "http://127.0.0.1:1", status: 500, message: "boom" }),
    "memvoy at http://127.0.0.1:1: boom (HTTP 500)",
    1,
  ],
  [
    new RemoteInputError({
      base: "http://127.0.0.1:1",
      status: 404,
      code: "UnknownSessionError",
      message: "no session",
    }),
    "no session",
    2,
  ],
  [new ConnectOptionsError({ problem: "token" }), "connectMemory: token is empty", 2],
  [
    new MemoryOptionsError({ home: "" }),
    "openMemory: home is empty: name a folder, or leave home out for the default home",
    2,
  ],
  [new MemoryOptionsError({ home: 5 }), "openMemory: home 5 is not a folder path (text)", 2],
  [
    new MemoryClosedError({ open: "openMemory" }),
    "this memory was closed (close() was called): make a new one with openMemory",
    2,
  ],
  [
    new ConnectOptionsError({ problem: "timeout", timeoutMs: -1 }),
    "connectMemory: timeoutMs -1 is not a number of milliseconds above 0 (Infinity: no timeout)",
    2,
  ],
  [
    new ConnectOptionsError({ problem: "url", url: "localhost:7411" }),
    'connectMemory: url "localhost:7411" is not an http:// URL (e.g. http://127.0.0.1:7411)',
    2,
  ],
  [new BodyTooLargeError({ maxBytes: 10, declared: 20 }), "the body is 20 bytes, over [http] max_body_bytes (10)", 2],
  [new BodyShapeError({ problem: "not-object" }), "the body must be a JSON object", 2],
  [
    new BodyShapeError({ problem: "not-utf8" }),
    "the body is not valid UTF-8 (JSON is sent as UTF-8); nothing was written",
    2,
  ],
  [
    new UnknownClientError({ client: "vim" }),
    'mcp --print-config: unknown client "vim"; use one of claude-code, codex, opencode, gemini',
    2,
  ],
  [new InvalidLastError({ last: 0 }), "invalid last 0: use a whole number from 1 to 1000000", 2],
  [new InvalidTimeBoundError({ kind: "since" }), "invalid since: give a time as text, unix time or UTC nanoseconds", 2],
  [new InvalidFilterError({ field: "role", value: "system" }), 'invalid role "system": use user or assistant', 2],
  [
    new EmptyTimeWindowError({ since: "1d", until: "2d" }),
    '--since "1d" is not before --until "2d": no message can fall between them (are the two swapped?)',
    2,
  ],
  [
    new TokenBudgetSpentError({ used: 12, budget: 10, day: "2026-05-01", purpose: "summary" }),
    "the daily token budget is spent: 12 of 10 tokens used on 2026-05-01 (UTC) ([summary] daily_token_budget); no summary call is made until 00:00 UTC",
    1,
  ],
  [new HomeMissingError({ home: "/h" }), "/h holds no memvoy home (it may have been removed); nothing was created", 1],
  [
    new HomeNotMadeError({ home: "/srv/m", reason: "permission denied on /srv" }),
    "cannot create the home /srv/m: permission denied on /srv; give --home (or MEMVOY_HOME) a folder you may write to",
    2,
  ],
  [
    new LinkToNothingError({ link: "/mnt/usb", target: "/media/usb" }),
    "/mnt/usb is a symbolic link to /media/usb, which does not exist (a disk not mounted?); nothing was changed",
    1,
  ],
  [
    new TempFolderError({ dir: "/nonexistent", reason: "it does not exist", fromEnv: true }),
    "cannot make a temporary folder in /nonexistent (TMPDIR): it does not exist; set TMPDIR to a folder you may write to",
    2,
  ],
  [
    new NoExecTempError({ dir: "/tmp", fromEnv: false }),
    "cannot load the vector store's native module: memvoy unpacks it into the temporary folder /tmp, whose file system is mounted noexec; set TMPDIR to a folder where programs may run",
    2,
  ],
  [new NoAnswerPossibleError({}), "stdout is closed: the call was not carried out, as its answer could not be sent", 1],
  [
    new HomeGoneError({ home: "/h", replaced: true }),
    "the home /h was replaced while this process had it open; its old files are neither read nor written any more (a write would be lost): open the home again to use the new one",
    1,
  ],
  [
    new ForeignDatabaseError({ path: "/x.db", reason: "file is not a database" }),
    "cannot open /x.db read-only: file is not a database",
    1,
  ],
  [
    new SymlinkRefusedError({ path: "/h/sessions/s" }),
    "/h/sessions/s is a symbolic link; memvoy never follows a link inside a session, and nothing was changed. Replace it with the real file or folder",
    2,
  ],
  [
    new SessionFolderAliasError({ session: "ab", other: "Ab", dir: "/h/sessions/ab" }),
    'session "ab": its folder /h/sessions/ab is the folder of session "Ab" (this file system does not tell upper from lower case), and nothing was changed. Use "Ab", or an id that differs in more than case',
    2,
  ],
  [
    new DatabaseNotWritableError({ path: "/h/.store/history.db", reason: "read-only" }),
    "cannot open /h/.store/history.db: its folder is on a read-only file system; memvoy writes to its home, even to read it",
    2,
  ],
  [
    new DatabaseNotWritableError({ path: "/h/.store/history.db", reason: "permission" }),
    "cannot open /h/.store/history.db: permission denied on its folder; memvoy writes to its home, even to read it",
    2,
  ],
  [
    new FolderUnchangeableError({ command: "reset", session: "s", dir: "/h/sessions/s", reason: "permission" }),
    "reset s: /h/sessions/s may not be written by this user (permission denied); nothing was changed",
    2,
  ],
  [
    new FolderUnchangeableError({ command: "rm", session: "s", dir: "/h/sessions", reason: "read-only" }),
    "rm s: /h/sessions is on a read-only file system; nothing was changed",
    2,
  ],
  [
    new HomeLinkRefusedError({ path: "/h/.store/write.lock" }),
    "/h/.store/write.lock is a symbolic link; memvoy never follows a link for its own files, and nothing was changed. Remove the link (memvoy creates the file again)",
    2,
  ],
  [
    new HomeLinkRefusedError({ path: "/h/.store/history.db", fix: "Put what it points to in its place" }),
    "/h/.store/history.db is a symbolic link; memvoy never follows a link for its own files, and nothing was changed. Put what it points to in its place",
    2,
  ],
  [
    new HomeFileNotRegularError({ path: "/h/.store/write.lock" }),
    "/h/.store/write.lock is not a regular file (a named pipe, socket or device); nothing was changed. Move it aside (memvoy creates the file again)",
    1,
  ],
  [
    new NotAFileError({ path: "/h/sessions/s/history.json" }),
    "/h/sessions/s/history.json is not a regular file (a named pipe, socket or device): move it aside",
    1,
  ],
  [
    new BrokenDatabaseError({ path: "/h/.store/history.db", detail: "the header is wrong" }),
    "/h/.store/history.db is broken (the header is wrong): run `memvoy doctor` to see what can be saved, then `memvoy doctor --repair` to rebuild it",
    1,
  ],
  [
    new NoSpaceError({ what: "add", dir: "/h/.store", free: 2048 }),
    "no space left on the device (2 KiB free in /h/.store): add failed; nothing was changed",
    1,
  ],
  [new WorkerFailedError({ kind: "embeddings", pid: 7, error: "the embedder is down" }), "the embedder is down", 1],
  [
    new NotThisFormatError({ file: "/x.jsonl", expected: "a Codex rollout", because: "no line is a record" }),
    "/x.jsonl: not a Codex rollout (no line is a record)",
    2,
  ],
  [
    new LimitError({ problem: "line", file: "/x.jsonl", line: 3, limit: 256 * 1024 * 1024 }),
    "/x.jsonl:3: a line is over the 256 MiB line limit",
    2,
  ],
  [
    new LimitError({ problem: "zip-entry", file: "/x.zip", entry: "a.json", inflated: true, limit: 64 * 1024 * 1024 }),
    "/x.zip: a.json inflates past the 64 MiB limit for one zip entry",
    2,
  ],
  [
    new CorruptCompressedFileError({ file: "/x.zst", reason: "bad magic" }),
    "/x.zst: not a valid zstd file (bad magic)",
    2,
  ],
  [
    new TruncatedFileError({ file: "/x.zst", size: 1200 }),
    "/x.zst: truncated: the file (1200 bytes) ends inside a zstd frame, so its last lines are missing (an interrupted copy or download?)",
    2,
  ],
  [
    new NotAZipError({ problem: "method", file: "/x.zip", entry: "a.json", method: 12 }),
    "/x.zip: a.json uses an unsupported compression method (12)",
    2,
  ],
  [
    new OpencodeDatabaseError({ file: "/o.db", reason: "locked" }),
    "/o.db: cannot read the opencode database (locked); nothing was imported from it",
    1,
  ],
  [
    new PartialAddError({ session: "s", stored: 2, lastLine: 2, cause: "no space left on the device" }),
    "stored 2 message(s) in s (stdin lines 1-2), then failed: no space left on the device; the lines after 2 were not stored (resume with: tail -n +3)",
    1,
  ],
  [new StdinInputError({ command: "add", problem: "empty" }), "add: stdin held no messages", 2],
  [
    new NotInSharedModeError({ command: "stats" }),
    "stats does not run on a shared archive yet ([archive] url or MEMVOY_ARCHIVE_URL is set): see docs/many-machines.md for what does",
    2,
  ],
  [
    new SharedVectorsMissingError({ home: "/h" }),
    'the archive is shared ([archive] url) but the vectors are not: set [vectors] uri = "s3://bucket/prefix" in config.toml, so that every host sees the same vectors',
    2,
  ],
  [
    new UncopiedHomeError({ home: "/h", archive: "memvoy@db:5432/mem" }),
    "/h holds its own archive (.store/history.db), never copied into the shared archive at memvoy@db:5432/mem; in shared mode its session folders would be taken for caches of the shared archive and overwritten. Run memvoy migrate-archive to copy it there first, or move .store aside to use this home as a new one on the shared archive",
    2,
  ],
  [
    new SummaryChangedError({ session: "s1" }),
    "the summary of s1 was changed by another writer while this run held it; nothing was saved (the next run starts from theirs)",
    1,
  ],
  [
    new SummaryRunEndedError({ session: "s1" }),
    "the summary of s1 was removed (rm, reset --all or rm-message --drop-summary) while this run went on; nothing was saved",
    1,
  ],
  [
    new SummaryMessageRemovedError({ session: "s1" }),
    "a message of s1 was removed (rm-message) while this run went on; nothing was saved (the next run summarizes without it)",
    1,
  ],
  [
    new SessionLockTimeoutError({ session: "s1", timeoutMs: 100 }),
    'timed out after 100 ms waiting for the lock of session "s1"',
    1,
  ],
  [
    new PgSchemaTooNewError({ version: 9, known: 1 }),
    "the PostgreSQL archive has schema version 9; this memvoy knows 1: upgrade memvoy",
    1,
  ],
  [
    new PgConnectError({ where: "bob@db:5432/memvoy", reason: "connection refused" }),
    "cannot open the PostgreSQL archive at bob@db:5432/memvoy: connection refused",
    1,
  ],
  [
    new PgAccessError({ where: "bob@db:5432/memvoy", reason: 'password authentication failed for user "bob"' }),
    'cannot open the PostgreSQL archive at bob@db:5432/memvoy: password authentication failed for user "bob" (check the user, database and password: [archive] url, MEMVOY_ARCHIVE_URL or PGPASSWORD)',
    2,
  ],
  [
    new PgPrivilegeError({ where: "bob@db:5432/memvoy", reason: "permission denied for schema public", user: "bob" }),
    "cannot open the PostgreSQL archive at bob@db:5432/memvoy: permission denied for schema public (memvoy creates and migrates its own tables: connect as the database's owner, or grant bob CREATE on its schema and the privileges on memvoy's tables)",
    2,
  ],
  [
    new PgUrlError({ where: "bob@db:5432/memvoy", reason: "a %-escape in it is malformed (write % as %25)" }),
    "the PostgreSQL archive URL (bob@db:5432/memvoy) is not valid: a %-escape in it is malformed (write % as %25)",
    2,
  ],
  [
    new NoArchiveUrlError({ home: "/h" }),
    'no archive URL is configured: set [archive] url = "postgres://user@host/db" in config.toml or MEMVOY_ARCHIVE_URL (the password comes from MEMVOY_ARCHIVE_URL or PGPASSWORD)',
    2,
  ],
  [
    new NoSourceArchiveError({ path: "/h/.store/history.db" }),
    "nothing to migrate: no archive at /h/.store/history.db",
    2,
  ],
  [
    new TargetNotEmptyError({ messages: 3 }),
    "the target archive already holds 3 messages that were not copied from this home: migrate into an empty database",
    2,
  ],
  [
    new TargetWrittenError({ change: "2 removal(s) this home did not make", home: "/h" }),
    "the target archive was written since this home's last run, by memvoy in shared mode (2 removal(s) this home did not make): this home can no longer be copied into it. Bring what it added since with memvoy export --all here and memvoy import jsonl on a host of the shared archive",
    2,
  ],
  [
    new MigrateBusyError({ home: "/h" }),
    "another memvoy migrate-archive of /h is running into this archive: let it finish (it copies everything), or stop it and run this again",
    2,
  ],
  [
    new VectorWriteBusyError({ holder: "db1:42#ab12cd34", waitedMs: 30_250 }),
    "the shared vectors stayed busy for 30 s (written by db1:42#ab12cd34): the messages are copied; run memvoy migrate-archive again to copy the vectors",
    1,
  ],
  [
    new CopyMismatchError({ what: "messages", source: 5, target: 4 }),
    "the copy does not match: messages 5 in the home, 4 in the target archive",
    1,
  ],
  [
    new StdinInputError({ command: "add", problem: "not-utf8" }),
    "add: stdin is not valid UTF-8; nothing was written",
    2,
  ],
  [
    new UnwritableOutputError({ path: "/proc/x.jsonl", reason: "its folder does not take new files" }),
    "cannot write /proc/x.jsonl: its folder does not take new files",
    2,
  ],
  [
    new OutputWriteError({ reason: "ENOSPC: no space left on device, write" }),
    "could not write the output to stdout (ENOSPC: no space left on device, write)",
    1,
  ],
  [
    new NoUserHomeError({ needed: "give --home DIR or set MEMVOY_HOME" }),
    "HOME is not set and this user has no home folder in the system's user list: give --home DIR or set MEMVOY_HOME",
    2,
  ],
];

test("every named error kind: its data, its exact line, its exit code, and text composed by its formatter", () => {
  for (const [err, line, code] of KINDS) {
    expect(describeError(err)).toBe(line);
    expect(err.message).toBe(line);
    expect(exitCodeOf(err)).toBe(code);
    expect(errorCode(err)).toBe(err.name);
    expect(typeof err.data).toBe("object");
    // The line comes from the data through the registered formatter, not from a message set elsewhere.
    const copy = Object.assign(Object.create(Object.getPrototypeOf(err)), err, { message: "overwritten" });
    expect(describeError(copy)).toBe(line);
  }
  // Every named error defined anywhere in src/ (found in the source, loaded or not) has a case above.
  const covered = new Set(KINDS.map(([e]) => e.name));
  const defined = new Set<string>();
  const src = join(import.meta.dir, "../../src");
  for (const file of new Glob("**/*.ts").scanSync(src)) {
    for (const m of readFileSync(join(src, file), "utf8").matchAll(
      /"([A-Z][A-Za-z]+Error)",\s*"(?:usage|input|runtime)"/g,
    ))
      defined.add(m[1]!);
  }
  expect(defined.size).toBeGreaterThan(30);
  expect([...defined].filter((n) => !covered.has(n))).toEqual([]);
  expect(namedErrorNames().filter((n) => n !== "MadeError" && !covered.has(n))).toEqual([]);
});

test("the typed data keeps the cause's facts: HTTP status and URL, never a secret; instanceof holds for each class", () => {
  const call = new LlmCallError({
    purpose: "summary",
    model: "m",
    url: ANTHROPIC,
    kind: "request",
    status: 404,
    attempts: 1,
    problem: "HTTP 404",
  });
  expect([call.kind, call.status, call.attempts, call.fatal, call.data.url]).toEqual([
    "request",
    404,
    1,
    true,
    ANTHROPIC,
  ]);
  expect(call.failure).toEqual({
    kind: "request",
    status: 404,
    attempts: 1,
    fatal: true,
    message: "summary call to m failed: HTTP 404",
  });
  expect(call).toBeInstanceOf(RuntimeFailure);
  const rejected = new EmbedderRejectedError({ label: LABEL, url: URL_, status: 413 });
  expect([rejected.status, rejected.data.url]).toEqual([413, URL_]);
  expect(rejected).toBeInstanceOf(EmbedderRejectedError);
  expect(new MissingApiKeyError()).toBeInstanceOf(InputError);
  expect(new MissingApiKeyError().data).toEqual({ variable: "ANTHROPIC_API_KEY" });
  expect(new CommandUsageError({ problem: "missing-command" })).toBeInstanceOf(UsageError);
});

test("only the first line of a message is shown; anything thrown becomes text", () => {
  expect(describeError(new Error("first\nsecond\nthird"))).toBe("first");
  expect(describeError("a string")).toBe("a string");
  expect(describeError(42)).toBe("42");
  expect(describeError(new TypeError(""))).toBe("TypeError");
  // An object thrown by another library: its message, else its fields; never "[object Object]", never a throw.
  expect(describeError({ code: -32000, message: "server busy" })).toBe("server busy");
  expect(describeError({ status: 503 })).toBe('{"status":503}');
  expect(describeError(Object.create(null))).toBe("{}");
  expect(describeError(Object.assign(Object.create(null), { message: "no prototype" }))).toBe("no prototype");
  const unprintable = {
    toString() {
      throw new Error("no");
    },
  };
  expect(describeError(Object.setPrototypeOf(unprintable, {}))).toBe("unknown error");
  expect(exitCodeOf(new Error("x"))).toBe(1);
  expect(errorCode(new Error("x"))).toBe("Error");
});

test("ENOSPC, EDQUOT and a full SQLite database read as no space left, nothing changed", () => {
  const full = errno("ENOSPC", "ENOSPC: no space left on device, write");
  expect(describeError(full)).toBe(
    "no space left on the device; nothing was changed (ENOSPC: no space left on device, write)",
  );
  expect(describeError(errno("EDQUOT", "EDQUOT: disk quota exceeded"))).toStartWith(
    "no space left on the device; nothing was changed",
  );
  expect(describeError(Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" }))).toBe(
    "no space left on the device; nothing was changed (database or disk is full)",
  );
  expect(describeError(Object.assign(new Error("disk I/O error"), { code: "SQLITE_IOERR_WRITE" }))).toBe(
    "no space left on the device, or the disk failed a write; nothing was changed (disk I/O error)",
  );
  // Also when ours wraps it, and the same text in every front-end (described twice, it stays the same).
  const wrapped = new RuntimeFailure("cannot write /h/history.json", { cause: full });
  expect(describeError(wrapped)).toBe(
    "no space left on the device; nothing was changed (cannot write /h/history.json)",
  );
  expect(describeError(new Error(describeError(wrapped)))).toBe(describeError(wrapped));
});

test("EFBIG (a file-size limit) and LanceDB's os error 27 read as a file past the largest size allowed", () => {
  const line =
    "a file would grow past the largest size allowed here (the shell's ulimit -f, or the file system's limit); nothing was changed";
  expect(describeError(errno("EFBIG", "EFBIG: file too large, write"))).toBe(`${line} (EFBIG: file too large, write)`);
  expect(describeError(new Error("lance error: IO: File too large (os error 27)"))).toStartWith(line);
  expect(describeError(new Error(describeError(errno("EFBIG", "EFBIG: file too large"))))).toStartWith(line);
});

test("EACCES, EPERM, EROFS and a read-only SQLite database read as permission denied", () => {
  expect(describeError(errno("EACCES", "EACCES: permission denied, open '/h/x'"))).toBe(
    "permission denied: EACCES: permission denied, open '/h/x'",
  );
  expect(describeError(errno("EPERM", "EPERM: operation not permitted, rename"))).toStartWith("permission denied: ");
  expect(describeError(errno("EROFS", "EROFS: read-only file system"))).toStartWith("permission denied: ");
  expect(describeError(new Error("attempt to write a readonly database"))).toBe(
    "permission denied: attempt to write a readonly database",
  );
  expect(describeError(new Error(describeError(errno("EACCES", "EACCES: x"))))).toBe("permission denied: EACCES: x");
  // A folder mkdir may not make is named with the folder that refused it; a home that cannot be used exits 2.
  const mkdir = Object.assign(errno("EACCES", "EACCES: permission denied, mkdir '/h/sessions/s2'"), {
    syscall: "mkdir",
    path: "/h/sessions/s2",
  });
  expect(describeError(mkdir)).toBe(
    "cannot make the folder /h/sessions/s2: /h/sessions takes no new folder (permission denied)",
  );
  expect(
    [mkdir, errno("EROFS", "EROFS: x"), new Error("attempt to write a readonly database")].map(exitCodeOf),
  ).toEqual([2, 2, 2]);
  expect(exitCodeOf(errno("ENOSPC", "ENOSPC: x"))).toBe(1);
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

    // A part of the schema gone (a table another program dropped) names it and the way to doctor.
    const gone = new Database(":memory:");
    let missing: unknown;
    try {
      gone.run("SELECT * FROM messages_fts_data");
    } catch (e) {
      missing = e;
    }
    gone.close();
    expect(describeError(missing)).toBe(
      "the archive .store/history.db lacks part of memvoy's schema (no such table: messages_fts_data): run `memvoy doctor` to see what is wrong, then `memvoy doctor --repair`",
    );

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
