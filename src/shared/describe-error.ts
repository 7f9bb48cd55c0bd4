// The one place a thrown value becomes user text: one line, the same in the CLI, the TUI and the daemon log.
// A full disk and a refused permission read the same wherever they surface (errno or SQLite code, also as a cause).
import { lstatSync, readFileSync, readlinkSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { formatNamedError, MemvoyError } from "./errors.ts";
import { postgresReason } from "./postgres-failure.ts";
import { redactSecrets, secretValues } from "./redact.ts";

type SystemFailure = "no-space" | "too-big" | "permission" | "disk-io";

const NO_SPACE = /SQLITE_FULL|database or disk is full/i;
const READ_ONLY = /SQLITE_READONLY|attempt to write a readonly database/i;
const DISK_IO = /SQLITE_IOERR|disk I\/O error/i;
// LanceDB's errors (from Rust) end in the errno: "(os error 13)".
const OS_NO_SPACE = /\(os error (?:28|122)\)|kind: (?:StorageFull|QuotaExceeded)\b/;
const OS_TOO_BIG = /\(os error 27\)|kind: FileTooLarge\b/;
const OS_DENIED = /\(os error (?:1|13|30)\)|kind: (?:PermissionDenied|ReadOnlyFilesystem)\b/;

/**
 * One line of user text for any thrown value: a named error's formatter applied to its data, else the message;
 * secrets redacted (it may quote a server's answer or a URL).
 */
export function describeError(err: unknown): string {
  return redactSecrets(describe(err), secretValues()).text;
}

function describe(err: unknown): string {
  const text = formatNamedError(err) ?? thrownText(err);
  const line = lanceLine(firstLine(text)) || (err instanceof Error ? err.name : "unknown error");
  // SQLite found damage in the middle of a query (the file opened fine): name the file and the way out.
  const code = String((err as { code?: unknown })?.code ?? "");
  if (code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB") {
    return `the archive .store/history.db is broken (${line}): run \`memvoy doctor\` to see what can be saved, then \`memvoy doctor --repair\``;
  }
  // A table or column of the archive another program dropped (a full-text index: doctor --repair makes it again).
  if (code === "SQLITE_ERROR" && /^no such (table|column): /.test(line))
    return `the archive .store/history.db lacks part of memvoy's schema (${line}): run \`memvoy doctor\` to see what is wrong, then \`memvoy doctor --repair\``;
  if (/^(no space left|permission denied|a file would grow past)/.test(line)) return line; // described already (e.g. by a worker)
  // An error of ours that says what a full disk stopped after part of the work was stored ("300 message(s) removed,
  // but … failed (no space left on the device: database or disk is full)"): never "nothing was changed".
  if (err instanceof MemvoyError && /no space left on the device|a file would grow past/.test(line)) return line;
  // The shared archive failed after it opened (the server stopped, the connection was cut): say which store.
  const pg = err instanceof MemvoyError ? undefined : postgresReason(err);
  if (pg !== undefined) return `the PostgreSQL archive failed: ${pg}`;
  const blocking = inTheWay(err);
  if (blocking) return blocking;
  switch (systemFailure(err)) {
    case "no-space":
      return `no space left on the device; nothing was changed (${line})`;
    case "too-big":
      return `a file would grow past the largest size allowed here (the shell's ulimit -f, or the file system's limit); nothing was changed (${line})`;
    case "permission":
      return permissionLine(err) ?? `permission denied: ${line}`;
    case "disk-io":
      return `no space left on the device, or the disk failed a write; nothing was changed (${line})`;
    default:
      return line;
  }
}

/**
 * The message of a thrown value: an Error's, or that of an object carrying one (what some libraries throw), else the
 * value as text. Never throws itself (an object without a prototype has no toString).
 */
function thrownText(err: unknown): string {
  if (err instanceof Error) return String(err.message);
  try {
    const message = (err as { message?: unknown } | null | undefined)?.message;
    if (typeof message === "string") return message;
    if (typeof err === "object" && err !== null && !Array.isArray(err)) {
      const text = Object.getPrototypeOf(err) === Object.prototype || Object.getPrototypeOf(err) === null;
      if (text) return JSON.stringify(err) ?? "";
    }
    return String(err);
  } catch {
    return "";
  }
}

/** describeError for a failure after part of the work was stored: it must not say that nothing was changed. */
export function describeAfterSome(err: unknown): string {
  return describeError(err)
    .replace(/^no space left on the device; nothing was changed \((.*)\)$/, "no space left on the device ($1)")
    .replace(/; nothing was changed/g, "");
}

/**
 * The exit code for a thrown value: the error's own (2 usage/config/input), else 2 for a file or folder this user
 * may not write (a home that cannot be used is a setting to change, as one that cannot be made), else 1.
 */
export function exitCodeOf(err: unknown): 1 | 2 {
  if (err instanceof MemvoyError) return err.exitCode;
  return systemFailure(err) === "permission" ? 2 : 1;
}

/** A folder mkdir may not make there, named with the folder that refused it. */
function permissionLine(err: unknown): string | undefined {
  const e = err as { syscall?: unknown; path?: unknown; code?: unknown } | undefined;
  if (e?.syscall !== "mkdir" || typeof e.path !== "string") return undefined;
  const why = e.code === "EROFS" ? "is on a read-only file system" : "takes no new folder (permission denied)";
  return `cannot make the folder ${e.path}: ${dirname(e.path)} ${why}`;
}

/** The error's name for machine-readable output ("Error" for anything not ours). */
export function errorCode(err: unknown): string {
  return err instanceof MemvoyError ? err.name : "Error";
}

function firstLine(text: string): string {
  return text.split("\n")[0]!.trim();
}

/**
 * LanceDB's other error form, a Rust debug dump (`IO { source: ... Os { code: 13, kind: PermissionDenied, message:
 * "Permission denied" } ... }`): the words before it, then the OS error and the path it names.
 */
function rustDebugLine(line: string): string {
  const os = /Os \{ code: (\d+), kind: \w+, message: "([^"]*)" \}/.exec(line);
  const dump = /\b\w+ \{ /.exec(line);
  if (!os || !dump) return line;
  const path = /path: Some\("([^"]*)"\)/.exec(line)?.[1];
  return `${line.slice(0, dump.index)}${os[2]}${path ? `: ${path}` : ""} (os error ${os[1]})`;
}

/** The first line of a LanceDB error's text, read as lanceLine does (its innermost cause). */
export function lanceReason(text: string): string {
  return lanceLine(firstLine(text));
}

/**
 * A LanceDB error as one readable line: it repeats itself in a chain of "Caused by:" with the Rust source location
 * of each step (2 KB for a file it may not open); the innermost cause says it, without its wrappers' names.
 */
function lanceLine(line: string): string {
  const at = line.search(/lance error: /i);
  if (at < 0) return rustDebugLine(line);
  const inner = line
    .slice(at)
    .split(/\s+Caused by:\s+/)
    .at(-1)!
    .replace(/,\s*\/\S+\.rs:\d+:\d+/g, "")
    .replace(/^(?:lance error:\s*|LanceError\(\w+\):\s*|Generic [\w ]*?error:\s*)+/i, "");
  return `${line.slice(0, at)}lance error: ${inner.trim()}`;
}

/**
 * A file where memvoy keeps a folder (ENOTDIR, or EEXIST from mkdir), or a folder where it keeps a file (EISDIR):
 * the path in the way, which the errno's own text names only indirectly or not at all.
 */
function inTheWay(err: unknown): string | undefined {
  const e = err as { code?: unknown; syscall?: unknown; path?: unknown } | undefined;
  if (typeof e?.path !== "string") return undefined;
  if (e.code === "EISDIR") return `${e.path} is a folder where memvoy keeps a file: move it aside`;
  if (e.code !== "ENOTDIR" && !(e.code === "EEXIST" && e.syscall === "mkdir")) return undefined;
  for (let p = e.path; p !== dirname(p); p = dirname(p)) {
    const kind = pathKind(p);
    if (kind === "file") return `${p} is a file where memvoy keeps a folder: move it aside`;
    if (kind === "dangling")
      return `${p} is a symbolic link to ${readlinkSync(p)}, which does not exist (a disk not mounted?); nothing was changed`;
  }
  return undefined;
}

/** What is at `path`; a link (the home and .store may be links) is what it points to, or "dangling". */
function pathKind(path: string): "folder" | "file" | "dangling" | undefined {
  try {
    const st = lstatSync(path);
    if (!st.isSymbolicLink()) return st.isDirectory() ? "folder" : "file";
    const target = statSync(path, { throwIfNoEntry: false });
    return target === undefined ? "dangling" : target.isDirectory() ? "folder" : "file";
  } catch {
    return undefined; // missing, or under a file
  }
}

/** Whether the error is a write the disk refused for want of room (full, over a size limit, or failing). */
/**
 * A full disk, a refused permission, a failing disk, or a file or folder in the way of one memvoy keeps:
 * describeError says all there is to say about it.
 */
export function isSystemFailure(err: unknown): boolean {
  return systemFailure(err) !== undefined || inTheWay(err) !== undefined;
}

export function isNoRoom(err: unknown): boolean {
  const kind = systemFailure(err);
  return kind === "no-space" || kind === "too-big" || kind === "disk-io";
}

/**
 * Whether this process has a file-size limit (ulimit -f, a service's LimitFSIZE): SQLite reports a write past it
 * as a bare "disk I/O error", on a disk with room to spare.
 */
function fileSizeLimited(): boolean {
  try {
    const limit = /^Max file size\s+(\S+)/m.exec(readFileSync("/proc/self/limits", "utf8"))?.[1];
    return limit !== undefined && limit !== "unlimited";
  } catch {
    return false; // not Linux
  }
}

/** Looks through the error and its causes for a full disk, a refused permission or a failing disk. */
function systemFailure(err: unknown): SystemFailure | undefined {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = String((e as { code?: unknown }).code ?? "");
    const message = e instanceof Error ? e.message : "";
    if (code === "ENOSPC" || code === "EDQUOT" || NO_SPACE.test(code) || NO_SPACE.test(message)) return "no-space";
    if (OS_NO_SPACE.test(message)) return "no-space";
    if (code === "EFBIG" || OS_TOO_BIG.test(message)) return "too-big";
    if (code === "EACCES" || code === "EPERM" || code === "EROFS" || READ_ONLY.test(code) || READ_ONLY.test(message))
      return "permission";
    if (OS_DENIED.test(message)) return "permission";
    if (DISK_IO.test(code) || DISK_IO.test(message)) return fileSizeLimited() ? "too-big" : "disk-io";
    if (!(e instanceof Error)) break;
  }
  return undefined;
}
