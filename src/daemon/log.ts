// The daemon's log: one line per event in <home>/daemon.log, rotated by size, secrets redacted.
import { closeSync, fstatSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { openAppendNoFollow } from "../shared/no-follow.ts";
import { pathIdentity } from "../shared/path-identity.ts";
import { redactSecrets, secretValues } from "../shared/redact.ts";

export const KEEP_ROTATED = 3;
const MAX_VALUE_CHARS = 300;

export type LogLevel = "info" | "warn" | "error";
export type LogFields = Record<string, string | number | boolean | bigint | null | undefined>;

/** Secret values from the environment (API keys, tokens) that must never reach a log line. */
export { secretValues };

export function redact(text: string, secrets: readonly string[]): string {
  return redactSecrets(text, secrets).text;
}

function formatValue(v: LogFields[string]): string {
  let s = String(v);
  if (s.length > MAX_VALUE_CHARS) s = `${s.slice(0, MAX_VALUE_CHARS - 1)}…`;
  return /^[^\s"=]+$/.test(s) ? s : JSON.stringify(s.replace(/\s+/g, " "));
}

export function formatLine(at: Date, level: LogLevel, event: string, fields: LogFields = {}): string {
  const parts = [at.toISOString(), level.toUpperCase().padEnd(5), event];
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) parts.push(`${k}=${formatValue(v)}`);
  return parts.join(" ");
}

export interface DaemonLogOptions {
  path: string;
  maxBytes: number;
  /** Mirror each line to stderr. */
  verbose?: boolean;
  env?: Record<string, string | undefined>;
}

export class DaemonLog {
  private fd: number;
  private size: number;
  private readonly secrets: string[];
  /** The folder the log was opened in: the file is made again only there. */
  private readonly folder: string | undefined;

  constructor(private readonly options: DaemonLogOptions) {
    this.secrets = secretValues(options.env);
    this.folder = pathIdentity(dirname(options.path));
    this.fd = openAppendNoFollow(options.path);
    this.size = fstatSync(this.fd).size;
  }

  info(event: string, fields?: LogFields): void {
    this.write("info", event, fields);
  }
  warn(event: string, fields?: LogFields): void {
    this.write("warn", event, fields);
  }
  error(event: string, fields?: LogFields): void {
    this.write("error", event, fields);
  }

  /** Scrub a message (an error text) the way every log line is scrubbed. */
  scrub(text: string): string {
    return redact(text, this.secrets);
  }

  write(level: LogLevel, event: string, fields?: LogFields): void {
    const line = redact(formatLine(new Date(), level, event, fields), this.secrets) + "\n";
    const buf = Buffer.from(line, "utf8");
    this.reopenIfMoved();
    if (this.size > 0 && this.size + buf.length > this.options.maxBytes) this.rotate();
    try {
      writeSync(this.fd, buf);
      this.size += buf.length;
    } catch {
      // A full disk must not stop the daemon; the line is lost.
    }
    if (this.options.verbose) process.stderr.write(line);
  }

  /**
   * The file open is no longer the one at the path (removed, or moved aside by logrotate): the next lines go to a
   * new file at the path; the one still there has its size read again. Never in a home deleted or replaced
   * meanwhile (the daemon stops then, writing nothing).
   */
  private reopenIfMoved(): void {
    try {
      const open = fstatSync(this.fd, { bigint: true });
      if (pathIdentity(this.options.path) === `${open.dev}:${open.ino}`) {
        // Emptied in place (logrotate's copytruncate): the size counted so far would rotate it early.
        this.size = Number(open.size);
        return;
      }
      if (pathIdentity(dirname(this.options.path)) !== this.folder) return;
      const fd = openAppendNoFollow(this.options.path);
      closeSync(this.fd);
      this.fd = fd;
      this.size = fstatSync(fd).size;
    } catch {
      // keep writing to the file open
    }
  }

  private rotate(): void {
    const p = this.options.path;
    closeSync(this.fd);
    try {
      rmSync(`${p}.${KEEP_ROTATED}`, { force: true });
      for (let i = KEEP_ROTATED - 1; i >= 1; i--) {
        try {
          renameSync(`${p}.${i}`, `${p}.${i + 1}`);
        } catch {
          // that generation does not exist yet
        }
      }
      renameSync(p, `${p}.1`);
    } catch {
      // keep appending to the current file if it cannot be moved
    }
    this.fd = openAppendNoFollow(p);
    this.size = fstatSync(this.fd).size;
  }

  close(): void {
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
  }
}
