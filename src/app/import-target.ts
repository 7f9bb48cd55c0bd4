// What the import pipeline writes through, in either mode: the embedded home's ImportApi (synchronous) or the
// shared archive's (asynchronous). The pipeline awaits every call, so one set of importers serves both.
import type { MessageRecord } from "../shared/message.ts";
import type { ImportWriteOptions, ImportWriteResult } from "../memory/imports/import-write.ts";
import type { ExportOptions, ExportSession } from "../memory/imports/export-lines.ts";
import type { ImportFileState } from "../storage/sqlite/import-files-repo.ts";
import type { MetaUpdate, SessionMeta } from "../storage/sqlite/session-meta-repo.ts";
import type { ForeignDatabase } from "../storage/foreign/foreign-sqlite.ts";

type Maybe<T> = T | Promise<T>;

/** What became of a message the source took back: removed here, kept (another session holds its id), or gone already. */
export type RemovalOutcome = "removed" | "kept" | "gone";

export interface ImportWriter {
  /** Where the vectors are, as a failure to purge them names it. */
  readonly vectors: string;
  /** After a pass that added messages: have them embedded (in the background, or by the shared drain). */
  embedAdded(): void;
  /** The pass has ended: finish the index work its writes left for the end (a large pass's; see deferred-index.ts). */
  endPass?(progress?: (done: number, total: number) => void): Promise<void>;
  write(
    session: string,
    records: readonly MessageRecord[],
    meta?: MetaUpdate,
    options?: ImportWriteOptions,
  ): Maybe<ImportWriteResult>;
  setMeta(session: string, meta: MetaUpdate): Maybe<void>;
  meta(session: string): Maybe<SessionMeta | undefined>;
  /** Whether the home holds the session (its folder or its archive row), before an import writes to it. */
  holds(session: string): Maybe<boolean>;
  messageIds(session: string): Maybe<string[]>;
  removeMessage(session: string, id: string): Maybe<RemovalOutcome>;
  fileState(source: string, path: string): Maybe<ImportFileState | undefined>;
  saveFileState(source: string, path: string, state: ImportFileState): Maybe<void>;
  exportSessions(options?: ExportOptions): Iterable<ExportSession> | AsyncIterable<ExportSession>;
  exportLines(s: ExportSession): string[];
  openForeign(path: string): ForeignDatabase;
}

/** A home an import writes into: its import writer, and the purge of removed messages' vectors. */
export interface ImportTarget {
  readonly imports: ImportWriter;
  purgeDeleted(): Promise<unknown>;
  /** Throws when the home was deleted or replaced since it was opened (a local home). */
  checkInPlace?(): void;
  /** Why no write can be made (the home, made at the first write, could not be created): the import ends with it. */
  cannotWrite?(): unknown;
}
