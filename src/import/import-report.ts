// What one import pass of one source reports: files, sessions, messages, redactions, skipped lines, failures.
import { existsSync } from "node:fs";
import type { ImportTarget } from "../app/import-target.ts";
import { describeAfterSome, describeError } from "../shared/describe-error.ts";
import type { Problem } from "./import-types.ts";

export interface SourceReport {
  source: string;
  /** Where the files were looked for. */
  paths: string[];
  files: { found: number; read: number; unchanged: number; failed: number };
  sessions: number;
  /** removed: gone from the source (a rewind, a message re-keyed) and removed here; tombstoned: removed once, kept out. */
  /** extended: stored messages whose text grew (more of a streamed reply arrived). */
  messages: { added: number; existing: number; removed: number; tombstoned: number; extended: number };
  /** Messages with at least one secret redacted. */
  redacted: number;
  /** The first skipped lines or records, with their reason (skippedCount is exact). */
  skipped: Problem[];
  skippedCount: number;
  failed: Problem[];
  /** Messages the tool removed (a rewind) that could not be removed here. */
  notRemoved: number;
  dryRun: boolean;
  /** `import auto`: found, not found, or why the source was skipped. */
  note?: string;
}

/** How many skipped lines a report lists one by one (the count is always exact). */
const MAX_LISTED = 200;

export function newReport(source: string, paths: readonly string[], dryRun: boolean): SourceReport {
  return {
    source,
    paths: [...paths],
    files: { found: 0, read: 0, unchanged: 0, failed: 0 },
    sessions: 0,
    messages: { added: 0, existing: 0, removed: 0, tombstoned: 0, extended: 0 },
    redacted: 0,
    skipped: [],
    skippedCount: 0,
    failed: [],
    notRemoved: 0,
    dryRun,
  };
}

export function addSkipped(report: SourceReport, p: Problem): void {
  report.skippedCount++;
  if (report.skipped.length < MAX_LISTED) report.skipped.push(p);
}

export interface ImportOptions {
  /** Files or folders; the source's default locations when empty. */
  paths?: readonly string[];
  /** Only messages sent at or after this time (UTC ns). */
  since?: bigint;
  dryRun?: boolean;
  /** Keep secrets in imported text (default: redacted). */
  keepSecrets?: boolean;
  env?: Record<string, string | undefined>;
  onProgress?: (p: ImportProgress) => void;
  /** Aborted: the import stops after the write under way (what it stored stays; a new run adds the rest). */
  signal?: AbortSignal;
}

export interface ImportProgress {
  source: string;
  filesDone: number;
  files: number;
  messages: number;
  /** The share (0-1) of the file being read that is done, while it is read: a single large file shows progress. */
  fileShare?: number;
  /** While the file is read: its bytes read so far (from its start, compressed for a .zst) and its size. */
  fileBytes?: { done: number; total: number };
  /** After the files of a large pass: the substring index being built, over all messages of the home. */
  indexing?: { done: number; total: number };
}

/** Progress within one file: the share of it done (0-1), and while it is read, its bytes read. */
export type FileTick = (fileShare?: number, fileBytes?: ImportProgress["fileBytes"]) => Promise<void>;

/**
 * Run `one` on each file in turn: a failing file is reported and the pass goes on. Ends with the index work the
 * writes left for the end (a large pass's substring index), the session count and, when messages were added,
 * their embedding in the background. `onDisk` false: the names are streams (stdin), which no deletion explains.
 */
export async function eachFile(
  api: ImportTarget,
  report: SourceReport,
  files: readonly string[],
  o: ImportOptions,
  one: (file: string, sessions: Set<string>, tick: FileTick) => void | Promise<void>,
  onDisk = true,
): Promise<SourceReport> {
  const sessions = new Set<string>();
  let done = 0;
  const progress = (
    indexing?: ImportProgress["indexing"],
    fileShare?: number,
    fileBytes?: ImportProgress["fileBytes"],
  ) =>
    o.onProgress?.({
      source: report.source,
      filesDone: done,
      files: files.length,
      messages: report.messages.added,
      ...(fileShare !== undefined && { fileShare }),
      ...(fileBytes && { fileBytes }),
      ...(indexing && { indexing }),
    });
  /** Within a file, after each write: the messages so far, and how much of the file is read when known. */
  /** Stopped (o.signal): a file's writes may all be synchronous, so the event loop is let run for its handler. */
  const checkStop = async () => {
    if (!o.signal) return;
    await new Promise((resolve) => setImmediate(resolve));
    o.signal.throwIfAborted();
  };
  const tick: FileTick = async (fileShare, fileBytes) => {
    progress(undefined, fileShare ?? 0, fileBytes);
    await checkStop();
  };
  try {
    for (const file of files) {
      await checkStop();
      const before = report.messages.added + report.messages.extended;
      try {
        await one(file, sessions, tick);
      } catch (err) {
        if (o.signal?.aborted) throw err; // a stop, not a failure of this file
        // Deleted since it was listed (the tool's own cleanup, a chat migrated to another file): nothing to read.
        if (onDisk && !existsSync(file)) report.files.unchanged++;
        else {
          report.files.failed++;
          // A large file is written in parts: those stored before the failure stay, and a new run adds the rest.
          const stored = report.messages.added + report.messages.extended - before;
          const reason =
            stored > 0
              ? `${stored} message(s) of it were stored before it failed, and a new run adds the rest: ${describeAfterSome(err)}`
              : describeError(err);
          report.failed.push({ file, reason });
        }
      }
      done++;
      progress();
    }
  } finally {
    try {
      await api.imports.endPass?.((d, total) => progress({ done: d, total }));
    } catch (err) {
      report.failed.push({
        file: "(substring index)",
        reason: `not built yet, searches scan until it is (memvoy doctor --migrate builds it): ${describeError(err)}`,
      });
    }
  }
  report.sessions = sessions.size;
  if (report.messages.added + report.messages.extended > 0 && !o.dryRun) api.imports.embedAdded();
  return report;
}
