// What one Generate run reads and saves of a session's summary, whatever holds it: the embedded home's files
// and SQLite (SummaryStore), or the shared archive with this host's files as caches (shared mode).
import type { StoredMessage } from "../../shared/message.ts";
import type { RunCounters, SummaryPosition } from "../../storage/ports/archive-port.ts";
import type { StartPoint } from "./summary-start.ts";
import type { CursorFile } from "../../storage/history/cursor-file.ts";
import type { Summary } from "./summary-types.ts";

/** What a run starts from. */
export interface RunStart {
  /** The summary so far (empty when there is none) and the legacy keys to fold in. */
  before: Summary;
  legacy: Record<string, unknown>;
  cursor: CursorFile;
  start: StartPoint;
  notes: string[];
}

type Maybe<T> = T | Promise<T>;

export interface SummaryRunStore {
  readonly session: string;
  /** Where the run's record lives, as a note names it ("history.db", "the archive"). */
  readonly recordsIn: string;
  /** Record the run as started and repair a save a crash interrupted; says what the repair did. */
  begin(): Maybe<string | undefined>;
  /** The summary so far, the cursor and where the new messages start. */
  load(): Maybe<RunStart>;
  /** The messages from `start` on, oldest first, and the session's newest message when they were listed. */
  messagesFrom(start: StartPoint): Maybe<{ fresh: StoredMessage[]; last: StoredMessage | undefined }>;
  /** The position once `fresh[0..i]` is summarized. */
  positionAfter(fresh: readonly StoredMessage[], i: number, last: StoredMessage): Maybe<StoredMessage>;
  /** Seqs of the session's untimed messages that no saved position has passed yet. */
  untimedSeqs(): Maybe<Set<bigint>>;
  /** The newest message as a position (bootstrap), undefined when the session has none. */
  newestPosition(): Maybe<SummaryPosition | undefined>;
  /**
   * Save the summary and the cursor together; a note when the save happened but its record did not. `legacy`: keys
   * of Agenvoy's older format no summary call has folded in yet, kept in summary.json.
   */
  save(summary: Summary, position: SummaryPosition, legacy?: Record<string, unknown>): Maybe<string | undefined>;
  /** Only the cursor moves (bootstrap). */
  saveCursor(position: SummaryPosition): Maybe<void>;
  /** The session counts as summarized as of `sinceMs` (a write during the run keeps it due). */
  closeGate(sinceMs: number): Maybe<void>;
  finish(outcome: string, counters: RunCounters, error?: string): Maybe<void>;
  /** The cursor's text, when it holds a valid time. */
  cursorText(): Maybe<string | undefined>;
  /**
   * The latest send time of the session's timed messages up to seq `seq` (a saved position): what the cursor
   * stands for, whatever zone wrote it. Undefined when none is left (or the store cannot tell).
   */
  summarizedUntil(seq: bigint): Maybe<bigint | undefined>;
}
