// One session's summary lives in three stores: summary.json, .summary_cursor and its summary_runs row (the
// last run, the exact position reached, a pending save). This module is their one owner: runs read and
// save them only through it, and only reset and rm delete them besides. Saving progress: the position
// about to be written is recorded first (pending, with the new summary's sha256); both files are renamed
// into place; then the position is settled. A crash in between is repaired when the next run begins: if
// summary.json is the pending one, the cursor is rolled forward, otherwise the pending position is dropped.
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { ensureDir, openTempFile, type StagedFile } from "../../shared/atomic-write.ts";
import { errorMessage, namedError } from "../../shared/errors.ts";
import { tryLockFile } from "../../shared/file-lock.ts";
import { refuseSessionSymlinks } from "../../storage/history/no-symlink.ts";
import type { StoredMessage } from "../../shared/message.ts";
import { NS_PER_SEC, nsToRfc3339 } from "../../shared/time.ts";
import {
  cursorText,
  quoteCursorText,
  readCursorFile,
  removeCursorFile,
  stageCursor,
  writeCursorFile,
  type CursorFile,
} from "../../storage/history/cursor-file.ts";
import {
  moveSummaryAside,
  parseSummaryJson,
  readSummaryJson,
  removeSummaryFile,
  setSummaryMtime,
  stageSummaryText,
  type SummaryJson,
} from "../../storage/history/summary-file.ts";
import {
  clearPosition,
  finishSummaryRun,
  findPositionMessage,
  getSummaryRun,
  lastSessionMessage,
  listUnsummarized,
  maxSendAt,
  messageBefore,
  seqInUse,
  untimedSeqs,
  setPendingPosition,
  settlePosition,
  startSummaryRun,
  type RunCounters,
  type SummaryPosition,
} from "../../storage/sqlite/summary-runs-repo.ts";
import { withWriteLock } from "../../storage/sqlite/write-lock.ts";
import { homeLockFree, withHomeLock } from "../home-lock.ts";
import type { MemoryContext } from "../memory-context.ts";
import { findStart, type StartPoint } from "./summary-start.ts";
import type { RunStart, SummaryRunStore } from "./summary-run-store.ts";

export type { RunStart };
import { applySummaryRules } from "./summary-rules.ts";
import { LEGACY_KEYS, LooseSummarySchema, assertValidSummary } from "./summary-schema.ts";
import { emptySummary, summaryText, type Summary, type SummaryFile } from "./summary-types.ts";
import { describeIssues } from "../../shared/schema-issues.ts";

/** summary.json, read leniently (Agenvoy files included) and put under the summary rules. */
export function readSummary(ctx: Pick<MemoryContext, "paths">, session: string): SummaryFile {
  return checkSummary(readSummaryJson(ctx.paths.summary(session)));
}

/** A summary's text (the shared archive's copy of summary.json) as readSummary reads the file. */
export function summaryOfText(text: string): SummaryFile {
  return checkSummary(parseSummaryJson(text));
}

function checkSummary(file: SummaryJson): SummaryFile {
  if (file.state !== "ok") return file;
  const parsed = v.safeParse(LooseSummarySchema, file.raw);
  if (!parsed.success) return { state: "corrupt", detail: describeIssues(parsed.issues, { topLevel: "top level" }) };
  const { summary } = applySummaryRules(parsed.output, emptySummary());
  const legacy: Record<string, unknown> = {};
  for (const k of LEGACY_KEYS) if (k in file.raw) legacy[k] = file.raw[k];
  return { state: "ok", summary, legacy, sha: file.sha };
}

/** .summary_cursor, read in local time. */
export function readCursor(ctx: Pick<MemoryContext, "paths">, session: string): CursorFile {
  return readCursorFile(ctx.paths.cursor(session));
}

/** Delete summary.json and the cursor (their row is the caller's). Returns whether a summary.json was there. */
export function removeSummaryFiles(ctx: MemoryContext, session: string): boolean {
  const existed = removeSummaryFile(ctx.paths.summary(session));
  removeCursorFile(ctx.paths.cursor(session));
  return existed;
}

/** One session's summary stores, as one run (Generate, or an import) reads and saves them. */

const RUN_LOCK = ".summary.lock";

/** The run's record was deleted while it went on (rm, reset --all or rm-message --drop-summary): it saves nothing. */
export const SummaryRunEndedError = namedError<{ session: string }>(
  "SummaryRunEndedError",
  "runtime",
  (d) =>
    `the summary of ${d.session} was removed (rm, reset --all or rm-message --drop-summary) while this run went on; nothing was saved`,
);
export type SummaryRunEndedError = InstanceType<typeof SummaryRunEndedError>;

/** A message of the session was removed while the run went on (it may have read it): it saves nothing. */
export const SummaryMessageRemovedError = namedError<{ session: string }>(
  "SummaryMessageRemovedError",
  "runtime",
  (d) =>
    `a message of ${d.session} was removed (rm-message) while this run went on; nothing was saved (the next run summarizes without it)`,
);
export type SummaryMessageRemovedError = InstanceType<typeof SummaryMessageRemovedError>;

/** Whether a Generate run holds the session's run lock now (a run recorded as running whose process died does not). */
export function summaryRunHeld(ctx: MemoryContext, session: string): boolean {
  const path = join(ctx.paths.session(session), RUN_LOCK);
  if (!existsSync(path)) return false;
  const release = tryLockFile(path);
  if (!release) return true;
  release();
  return false;
}

export class SummaryStore implements SummaryRunStore {
  readonly recordsIn = "history.db";
  /** When begin() recorded this run: a save requires the record still to be this run's (removals delete it). */
  #startedAt?: bigint;

  constructor(
    private readonly ctx: MemoryContext,
    readonly session: string,
  ) {}

  /** Take the session's run lock (.summary.lock); undefined when another process holds it. */
  lock(): (() => void) | undefined {
    const dir = this.ctx.paths.session(this.session);
    refuseSessionSymlinks(dir);
    ensureDir(dir);
    return tryLockFile(join(dir, RUN_LOCK));
  }

  /** Record the run as started and repair a save a crash interrupted. Returns what the repair did, if anything. */
  begin(): string | undefined {
    const { ctx, session } = this;
    // Timed under the writer lock: a write that commits after this start has a later time (due gate, see due-sessions.ts).
    this.#startedAt = withWriteLock(ctx.db, () => {
      const at = ctx.now();
      startSummaryRun(ctx.db, session, at);
      return at;
    });
    // summary.json is replaced through a temp file beside it: a folder that takes no new file (its permissions, a
    // read-only mount) fails the run here, before a model call is billed for a summary that could not be saved.
    openTempFile(ctx.paths.summary(session)).discard();
    const pending = getSummaryRun(ctx.db, session)?.pending;
    if (!pending) return undefined;
    const file = readSummaryJson(ctx.paths.summary(session));
    if (file.state === "ok" && file.sha === pending.sha) {
      writeCursorFile(ctx.paths.cursor(session), pending.cursor);
      withWriteLock(ctx.db, () => settlePosition(ctx.db, session, pending));
      return `completed an interrupted save: the cursor moved to ${pending.cursor}`;
    }
    withWriteLock(ctx.db, () => settlePosition(ctx.db, session, undefined));
    return "dropped an interrupted save that had not reached summary.json";
  }

  /** Read the summary and the cursor, and find where the new messages start. An unreadable summary.json is moved aside. */
  load(): RunStart {
    const { ctx, session } = this;
    const notes: string[] = [];
    let file = readSummary(ctx, session);
    if (file.state === "corrupt") {
      const path = ctx.paths.summary(session);
      const aside = `${path}.corrupt-${nsToRfc3339(ctx.now()).replace(/[:.]/g, "")}`;
      moveSummaryAside(path, aside);
      removeCursorFile(ctx.paths.cursor(session));
      withWriteLock(ctx.db, () => clearPosition(ctx.db, session));
      notes.push(`summary.json was unreadable (${file.detail}): moved to ${aside}; summarizing from the first message`);
      file = { state: "missing" };
    }
    // seq is never reused: a position whose message a reset or rm-message removed still bounds what came after.
    const holds = (p: SummaryPosition) =>
      findPositionMessage(ctx.db, session, p.seq, p.id) !== undefined || !seqInUse(ctx.db, p.seq);
    return runStart(file, readCursor(ctx, session), getSummaryRun(ctx.db, session)?.position, holds, notes);
  }

  /**
   * The archive's messages from `start` on, oldest first, and the session's newest message when they were
   * listed (read first: one added while listing waits for the next run instead of being passed over).
   */
  messagesFrom(start: StartPoint): { fresh: StoredMessage[]; last: StoredMessage | undefined } {
    const { ctx, session } = this;
    const last = lastSessionMessage(ctx.db, session);
    if (!last) return { fresh: [], last };
    const upTo = (list: StoredMessage[]) => list.filter((m) => m.seq <= last.seq);
    switch (start.kind) {
      case "position":
        return { fresh: upTo(listUnsummarized(ctx.db, session, { afterSeq: start.afterSeq })), last };
      case "cursor":
        return { fresh: upTo(this.afterForeignCursor(start.sinceNs)), last };
      default:
        return { fresh: upTo(listUnsummarized(ctx.db, session, "all")), last };
    }
  }

  /**
   * After a second-resolution cursor with no exact position: the messages from the start of its second on
   * (and untimed ones). A lone message in the cursor's second is the one the cursor was written for: it is
   * done. Several in that second cannot be told apart: they are all taken (a repeat, never a skip).
   */
  private afterForeignCursor(sinceNs: bigint): StoredMessage[] {
    return dropCursorsOwn(listUnsummarized(this.ctx.db, this.session, { sinceNs }), sinceNs, this.untimedSeqs());
  }

  /**
   * The position once `fresh[0..i]` is summarized: the message just before the next fresh one (messages the
   * cursor had already passed in between count as done), or the newest listed when none is left.
   */
  positionAfter(fresh: readonly StoredMessage[], i: number, last: StoredMessage): StoredMessage {
    const next = fresh[i + 1];
    if (!next) return last;
    return next.seq === fresh[i]!.seq + 1n
      ? fresh[i]!
      : (messageBefore(this.ctx.db, this.session, next.seq) ?? fresh[i]!);
  }

  /** Seqs of the session's untimed messages that no saved position has passed yet. */
  untimedSeqs(): Set<bigint> {
    return untimedSeqs(this.ctx.db, this.session);
  }

  /** The session's newest message as a position, its cursor the latest send time; undefined when it has none. */
  newestPosition(): SummaryPosition | undefined {
    const { ctx, session } = this;
    const last = lastSessionMessage(ctx.db, session);
    return last && { seq: last.seq, id: last.id, cursor: cursorText(maxSendAt(ctx.db, session)) };
  }

  /**
   * Save the summary and the cursor together, crash-safe (see the header). Throws when nothing was saved.
   * Once both files are in place the save has happened: if recording the settled position then fails (a
   * full disk), the pending record lets the next run finish it, and the failure is returned as a note.
   */
  save(summary: Summary, position: SummaryPosition, legacy?: Record<string, unknown>): string | undefined {
    // Under the home's writer lock, which rm, reset --all and rm-message --drop-summary hold while they delete
    // the summary and this run's record: a run they overtook never writes the old conversation back.
    return withHomeLock(this.ctx, () => {
      this.#assertStillMine();
      return this.#save(summary, position, legacy);
    });
  }

  #assertStillMine(): void {
    if (this.#startedAt === undefined) return;
    const run = getSummaryRun(this.ctx.db, this.session);
    if (!run) throw new SummaryRunEndedError({ session: this.session });
    if (run.startedAt !== this.#startedAt) throw new SummaryMessageRemovedError({ session: this.session });
  }

  #save(summary: Summary, position: SummaryPosition, legacy?: Record<string, unknown>): string | undefined {
    const { ctx, session } = this;
    const { staged: summaryFile, sha } = stageSummaryText(
      ctx.paths.summary(session),
      summaryText(assertValidSummary(summary), legacy),
    );
    let cursorFile: StagedFile | undefined;
    try {
      cursorFile = stageCursor(ctx.paths.cursor(session), position.cursor);
      withWriteLock(ctx.db, () => setPendingPosition(ctx.db, session, position, sha));
    } catch (err) {
      summaryFile.discard();
      cursorFile?.discard();
      throw err;
    }
    try {
      summaryFile.commit();
    } catch (err) {
      cursorFile.discard();
      throw err;
    }
    cursorFile.commit();
    try {
      withWriteLock(ctx.db, () => settlePosition(ctx.db, session, position));
    } catch (err) {
      return `summary.json and the cursor were saved, but history.db could not record it (${errorMessage(err).replace(/; nothing was changed$/, "")}); the next run completes it`;
    }
    return undefined;
  }

  /** Only the cursor moves (bootstrap): the summary is left as it is. */
  saveCursor(position: SummaryPosition): void {
    const { ctx, session } = this;
    writeCursorFile(ctx.paths.cursor(session), position.cursor);
    withWriteLock(ctx.db, () => settlePosition(ctx.db, session, position));
  }

  /**
   * Close the mtime gate as of `sinceMs`: summary.json's mtime becomes the run's start, so a history.json
   * written during the run still counts as newer and the session stays due.
   */
  closeGate(sinceMs: number): void {
    setSummaryMtime(this.ctx.paths.summary(this.session), sinceMs - 1);
  }

  /** Record how the run ended. */
  finish(outcome: string, counters: RunCounters, error?: string): void {
    const { ctx, session } = this;
    withWriteLock(ctx.db, () => finishSummaryRun(ctx.db, session, ctx.now(), outcome, counters, error));
  }

  /** The cursor's text, when it holds a valid time. */
  cursorText(): string | undefined {
    const cursor = readCursor(this.ctx, this.session);
    return cursor.state === "ok" ? cursor.text : undefined;
  }

  summarizedUntil(seq: bigint): bigint | undefined {
    const r = this.ctx.db
      .query(
        `SELECT max(send_at) AS t FROM messages WHERE session_id = ?1 AND seq <= ?2
           AND seq NOT IN (SELECT seq FROM untimed_messages WHERE session_id = ?1)`,
      )
      .get(this.session, seq) as { t: bigint | null } | null;
    return r?.t ?? undefined;
  }
}

/**
 * `store` as a run uses it: each of its writes first waits, without blocking, until no other process holds the
 * home's writer lock (an import, a large add). A write waits for that lock synchronously, and a daemon doing so
 * would answer nothing meanwhile, its HTTP API and /mcp included.
 */
export function waitingForWriter(ctx: MemoryContext, store: SummaryStore): SummaryRunStore {
  const waiting =
    <A extends unknown[], R>(write: (...a: A) => R) =>
    async (...a: A): Promise<R> => {
      await homeLockFree(ctx);
      return write(...a);
    };
  return {
    session: store.session,
    recordsIn: store.recordsIn,
    begin: waiting(() => store.begin()),
    load: waiting(() => store.load()),
    messagesFrom: (start) => store.messagesFrom(start),
    positionAfter: (fresh, i, last) => store.positionAfter(fresh, i, last),
    untimedSeqs: () => store.untimedSeqs(),
    newestPosition: () => store.newestPosition(),
    save: waiting((summary: Summary, position: SummaryPosition, legacy?: Record<string, unknown>) =>
      store.save(summary, position, legacy),
    ),
    saveCursor: waiting((position: SummaryPosition) => store.saveCursor(position)),
    closeGate: (sinceMs) => store.closeGate(sinceMs),
    finish: waiting((outcome: string, counters: RunCounters, error?: string) => store.finish(outcome, counters, error)),
    cursorText: () => store.cursorText(),
    summarizedUntil: (seq) => store.summarizedUntil(seq),
  };
}

/**
 * Of the messages sent in or after a second-resolution cursor's second (and the untimed ones), those still to
 * summarize: a lone timed message in the cursor's second is the one the cursor was written for.
 */
export function dropCursorsOwn(list: StoredMessage[], sinceNs: bigint, untimed: Set<bigint>): StoredMessage[] {
  const inSecond = list.filter((m) => !untimed.has(m.seq) && m.sendAt >= sinceNs && m.sendAt < sinceNs + NS_PER_SEC);
  return inSecond.length === 1 ? list.filter((m) => m !== inSecond[0]) : list;
}

/** What a run starts from, given the summary read (a corrupt one already set aside), the cursor and the position. */
export function runStart(
  file: SummaryFile,
  cursor: CursorFile,
  position: SummaryPosition | undefined,
  holds: (p: SummaryPosition) => boolean,
  notes: string[],
): RunStart {
  if (cursor.state === "invalid")
    notes.push(`.summary_cursor holds ${quoteCursorText(cursor.text)}, not YYYY-MM-DD HH:MM:SS`);
  const start = findStart(file, cursor, position, holds);
  if (file.state !== "ok") return { before: emptySummary(), legacy: {}, cursor, start, notes };
  return { before: file.summary, legacy: file.legacy, cursor, start, notes };
}
