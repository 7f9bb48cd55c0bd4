// Generate's store in shared mode: the summary, its cursor, the exact position and the run's record live in
// the archive; this host's summary.json and .summary_cursor are its caches, rewritten under the session's lock
// on every read and save. A save is a compare-and-set on the summary's version and on the run's record: a
// writer that lost its lease (and whose work another host took over) cannot overwrite what the other saved,
// and a run whose session was removed or reset --all meanwhile (which delete the record) saves nothing.
import { errorMessage, namedError } from "../../shared/errors.ts";
import type { StoredMessage } from "../../shared/message.ts";
import { archiveCursorNs, archivePosition, localCursor, localPosition } from "./shared-cursor.ts";
import { sha256 } from "../../storage/history/summary-file.ts";
import type { RunCounters, SummaryPosition, SummaryText } from "../../storage/ports/archive-port.ts";
import type { RunStart, SummaryRunStore } from "../../memory/summary/summary-run-store.ts";
import type { StartPoint } from "../../memory/summary/summary-start.ts";
import {
  SummaryMessageRemovedError,
  SummaryRunEndedError,
  dropCursorsOwn,
  readCursor,
  readSummary,
  runStart,
} from "../../memory/summary/summary-store.ts";
import { assertValidSummary } from "../../memory/summary/summary-schema.ts";
import { summaryText, type Summary } from "../../memory/summary/summary-types.ts";
import { cursorText } from "../../storage/history/cursor-file.ts";
import { refreshSummaryFiles } from "./session-cache.ts";
import type { SharedContext } from "./shared-context.ts";

/** Another writer saved the session's summary since this run read it: this run's save was not made. */
export const SummaryChangedError = namedError<{ session: string }>(
  "SummaryChangedError",
  "runtime",
  (d) =>
    `the summary of ${d.session} was changed by another writer while this run held it; nothing was saved (the next run starts from theirs)`,
);

/** The run's record left the archive while it went on (rm, reset --all or rm-message --drop-summary). */
export { SummaryRunEndedError };

export class SharedSummaryStore implements SummaryRunStore {
  readonly recordsIn = "the archive";
  /** The archive's summary version this run last read or wrote (null: none yet). */
  #version: bigint | null = null;
  /** When this run recorded its start: the record a save requires (removals delete it, a takeover replaces it). */
  #startedAt: bigint | undefined;

  /** `held`: whether this process still holds the session's summary lease (a lost lease records nothing). */
  constructor(
    private readonly ctx: SharedContext,
    readonly session: string,
    private readonly held: () => boolean = () => true,
  ) {}

  get #archive() {
    return this.ctx.archive;
  }

  async begin(): Promise<string | undefined> {
    const { session } = this;
    // Timed under the session's lock, which writers hold while they take their time and append: a write that
    // commits after this start has a later time (the due gate), and starts recorded by two hosts keep their
    // order. A run whose lease ran out meanwhile records nothing (the row is the new holder's).
    this.#startedAt = await this.ctx.withSessionLock(session, async () => {
      if (!this.held()) throw new SummaryChangedError({ session });
      const at = this.ctx.now();
      await this.#archive.startSummaryRun(session, at);
      return at;
    });
    const pending = (await this.#archive.getSummaryRun(session))?.pending;
    if (!pending) return undefined;
    const state = await this.#archive.getSummaryState(session);
    if (state && sha256(state.summary) === pending.sha && state.cursor === pending.cursor) {
      await this.#archive.settlePosition(session, pending);
      return `completed an interrupted save: the cursor moved to ${localCursor(pending.cursor)}`;
    }
    await this.#archive.settlePosition(session, undefined);
    return "dropped an interrupted save that had not reached the archive";
  }

  /** This host's files from the archive's summary state, under the session's lock; the version is remembered. */
  async #sync(): Promise<void> {
    await this.ctx.withSessionLock(this.session, async () => {
      const state = await this.#archive.getSummaryState(this.session);
      this.#version = state?.version ?? null;
      refreshSummaryFiles(this.ctx.paths, this.session, state);
    });
  }

  async load(): Promise<RunStart> {
    const { ctx, session } = this;
    await this.#sync();
    const notes: string[] = [];
    let file = readSummary(ctx, session);
    if (file.state === "corrupt") {
      await this.#archive.clearSummaryPosition(session);
      notes.push(
        `the archive's summary.json was unreadable (${file.detail}): summarizing from the first message; the next save replaces it`,
      );
      file = { state: "missing" };
    }
    const stored = (await this.#archive.getSummaryRun(session))?.position;
    const holds = stored !== undefined && (await this.#holds(stored));
    // Compared with this host's .summary_cursor, which holds the archive's cursor in local time.
    const position = stored && localPosition(stored);
    return runStart(file, readCursor(ctx, session), position, () => holds, notes);
  }

  /** The position's message is there, or it was removed and its seq (never reused) still bounds the session. */
  async #holds(p: SummaryPosition): Promise<boolean> {
    const [m] = await this.#archive.messagesById([p.id]);
    if (m && m.seq === p.seq && m.session === this.session) return true;
    return !(await this.#archive.seqInUse(p.seq));
  }

  async messagesFrom(start: StartPoint): Promise<{ fresh: StoredMessage[]; last: StoredMessage | undefined }> {
    const { session } = this;
    const [last] = await this.#archive.listMessages(session, { newestFirst: true, limit: 1 });
    if (!last) return { fresh: [], last };
    const upTo = (list: StoredMessage[]) => list.filter((m) => m.seq <= last.seq);
    if (start.kind === "position")
      return { fresh: upTo(await this.#archive.listMessages(session, { afterSeq: start.afterSeq })), last };
    const all = await this.#archive.listMessages(session);
    if (start.kind !== "cursor") return { fresh: upTo(all), last };
    const untimed = await this.untimedSeqs();
    const since = all.filter((m) => m.sendAt >= start.sinceNs || m.sendAt === 0n || untimed.has(m.seq));
    return { fresh: upTo(dropCursorsOwn(since, start.sinceNs, untimed)), last };
  }

  async positionAfter(fresh: readonly StoredMessage[], i: number, last: StoredMessage): Promise<StoredMessage> {
    const next = fresh[i + 1];
    if (!next) return last;
    const [before] = await this.#archive.listMessages(this.session, {
      beforeSeq: next.seq,
      newestFirst: true,
      limit: 1,
    });
    return before ?? fresh[i]!;
  }

  untimedSeqs(): Promise<Set<bigint>> {
    return this.#archive.untimedSeqs(this.session);
  }

  async newestPosition(): Promise<SummaryPosition | undefined> {
    const [last] = await this.#archive.listMessages(this.session, { newestFirst: true, limit: 1 });
    return last && { seq: last.seq, id: last.id, cursor: cursorText(await this.#archive.maxSendAt(this.session)) };
  }

  /** Write the texts as the next version (or fail: another writer got there first) and refresh this host's files. */
  async #put(text: SummaryText): Promise<void> {
    const { ctx, session } = this;
    await ctx.withSessionLock(session, async () => {
      const refused = await this.#superseded();
      const version = refused
        ? undefined
        : await this.#archive.putSummaryState(session, text, ctx.now(), this.#version);
      if (version === undefined) {
        refreshSummaryFiles(ctx.paths, session, await this.#archive.getSummaryState(session));
        throw refused ?? new SummaryChangedError({ session });
      }
      this.#version = version;
      refreshSummaryFiles(ctx.paths, session, text);
    });
  }

  /**
   * Why this run may not save (under the session's lock, which removals take too): its record is gone, replaced
   * by a holder that took the lease over, or restarted by rm-message (the lease still this run's).
   */
  async #superseded(): Promise<Error | undefined> {
    if (this.#startedAt === undefined) return undefined;
    const run = await this.#archive.getSummaryRun(this.session);
    if (!run) return new SummaryRunEndedError({ session: this.session });
    if (run.startedAt === this.#startedAt) return undefined;
    return this.held()
      ? new SummaryMessageRemovedError({ session: this.session })
      : new SummaryChangedError({ session: this.session });
  }

  /**
   * The position is recorded as pending first (with the summary's sha256), then the summary and cursor are
   * written, then the position settles: a crash in between is finished or dropped by the next begin().
   */
  async save(summary: Summary, at: SummaryPosition, legacy?: Record<string, unknown>): Promise<string | undefined> {
    const text = summaryText(assertValidSummary(summary), legacy);
    const position = archivePosition(at);
    await this.#archive.setPendingPosition(this.session, position, sha256(text));
    await this.#put({ summary: text, cursor: position.cursor });
    try {
      await this.#archive.settlePosition(this.session, position);
    } catch (err) {
      return `the summary and the cursor were saved, but the archive could not record the position (${errorMessage(err).split("\n")[0]}); the next run completes it`;
    }
    return undefined;
  }

  async saveCursor(at: SummaryPosition): Promise<void> {
    const position = archivePosition(at);
    const state = await this.#archive.getSummaryState(this.session);
    if (!state) throw new SummaryChangedError({ session: this.session });
    await this.#put({ summary: state.summary, cursor: position.cursor });
    await this.#archive.settlePosition(this.session, position);
  }

  /** Nothing to do: the run's start time in the archive is the gate (see sharedDue). */
  closeGate(): void {}

  async finish(outcome: string, counters: RunCounters, error?: string): Promise<void> {
    if (!this.held()) return; // the run's row belongs to the holder that took the lease over
    await this.#archive.finishSummaryRun(this.session, this.ctx.now(), outcome, counters, error);
  }

  async cursorText(): Promise<string | undefined> {
    const text = (await this.#archive.getSummaryState(this.session))?.cursor.trim();
    return text !== undefined && archiveCursorNs(text) !== undefined ? localCursor(text) : undefined;
  }

  /** Not asked of the shared archive: the cursor text is taken as it reads here. */
  summarizedUntil(): undefined {
    return undefined;
  }
}
