// The part of the MemoryApi that importers and export use: imported writes with given ids, session
// metadata, per-file read state, export, and read-only access to another tool's SQLite database.
import type { MessageRecord, StoredMessage } from "../shared/message.ts";
import { assertSessionId } from "../shared/session-id.ts";
import type { MemoryContext } from "../memory/memory-context.ts";
import { writeImported, type ImportWriteOptions, type ImportWriteResult } from "../memory/imports/import-write.ts";
import { DeferredIndex } from "../memory/imports/deferred-index.ts";
import {
  exportSessions,
  type ExportOptions,
  type ExportSession,
  sessionLines,
} from "../memory/imports/export-lines.ts";
import { getImportFile, putImportFile, type ImportFileState } from "../storage/sqlite/import-files-repo.ts";
import {
  getSessionMeta,
  upsertSessionMeta,
  type MetaUpdate,
  type SessionMeta,
} from "../storage/sqlite/session-meta-repo.ts";
import { getMessagesById, listSessionMessages } from "../storage/sqlite/messages-repo.ts";
import { UnknownMessageError, removeMessage } from "../memory/remove-message.ts";
import { sessionExists } from "../memory/session-admin.ts";
import { withWriteLock } from "../storage/sqlite/write-lock.ts";
import { ForeignDatabaseError, openForeignDatabase, type ForeignDatabase } from "../storage/foreign/foreign-sqlite.ts";
import type { ImportWriter, RemovalOutcome } from "./import-target.ts";

export class ImportApi implements ImportWriter {
  readonly vectors: string;
  readonly #index: DeferredIndex;

  constructor(
    private readonly ctx: MemoryContext,
    private readonly scheduleDrain: () => void = () => {},
  ) {
    this.vectors = ctx.paths.lance;
    this.#index = new DeferredIndex(ctx);
  }

  /** After a pass that added messages: embed them in the background, as add() does. */
  embedAdded(): void {
    this.scheduleDrain();
  }

  /** Append imported records to a session (existing ids skipped, secrets redacted unless `redact: false`) and set its metadata. */
  write(
    session: string,
    records: readonly MessageRecord[],
    meta?: MetaUpdate,
    options: ImportWriteOptions = {},
  ): ImportWriteResult {
    const r = writeImported(this.ctx, session, records, meta, options);
    if (!options.dryRun) this.#index.added(r.added);
    return r;
  }

  /** The pass has ended: a large pass's substring index is built now (see deferred-index.ts). */
  endPass(progress?: (done: number, total: number) => void): Promise<void> {
    return this.#index.endPass(progress);
  }

  setMeta(session: string, meta: MetaUpdate): void {
    assertSessionId(session);
    withWriteLock(this.ctx.db, () => upsertSessionMeta(this.ctx.db, session, meta, this.ctx.now()));
  }

  meta(session: string): SessionMeta | undefined {
    return getSessionMeta(this.ctx.db, session);
  }

  holds(session: string): boolean {
    return sessionExists(this.ctx, session);
  }

  /** The ids a session holds, in session order. */
  messageIds(session: string): string[] {
    return listSessionMessages(this.ctx.db, session).map((m) => m.id);
  }

  /**
   * Remove one imported message that the source itself removed (a Gemini rewind): "removed", "kept" when it could
   * not be removed here (another session holds the id), "gone" when another writer (a concurrent import of the same
   * source, rm-message) removed it first. The removal goes through the one rm-message routine, tombstone included.
   */
  removeMessage(session: string, id: string): RemovalOutcome {
    const holder = getMessagesById(this.ctx.db, [id])[0]?.session;
    if (holder === undefined) return "gone";
    if (holder !== session) return "kept";
    try {
      removeMessage(this.ctx, session, id, { dropSummary: false });
    } catch (e) {
      // Checked again under the lock: only a removal made since can take it away.
      if (e instanceof UnknownMessageError) return "gone";
      throw e;
    }
    return "removed";
  }

  fileState(source: string, path: string): ImportFileState | undefined {
    return getImportFile(this.ctx.db, source, path);
  }

  saveFileState(source: string, path: string, state: ImportFileState): void {
    withWriteLock(this.ctx.db, () => putImportFile(this.ctx.db, source, path, state, this.ctx.now()));
  }

  /** Sessions in id order with their metadata and messages, for `export`. */
  exportSessions(options: ExportOptions = {}): Generator<ExportSession> {
    return exportSessions(this.ctx, options);
  }

  /** The JSONL lines (without newline) of one exported session, or of a further page of it. */
  exportLines(s: ExportSession): string[] {
    return sessionLines(s);
  }

  /** Open another program's SQLite database read-only. */
  openForeign(path: string): ForeignDatabase {
    return openForeignDatabase(path);
  }
}

export { ForeignDatabaseError };
export type {
  ExportOptions,
  ExportSession,
  ImportFileState,
  ImportWriteResult,
  MetaUpdate,
  SessionMeta,
  StoredMessage,
  ForeignDatabase,
};
