// Imports and export in shared mode: the importers' writes go to the archive (the source of truth) under the
// session's advisory lock, with the embedded mode's dedupe (given ids), tombstones and growth of streamed
// replies; this host's files of the session are rewritten from the archive. Vectors wait in the archive's
// queue for the shared drain. Which message is new is decided by the archive, never by the per-file state.
import { hostname } from "node:os";
import { withoutNul, type MessageRecord, type StoredMessage } from "../../shared/message.ts";
import { assertSessionId } from "../../shared/session-id.ts";
import {
  byCodeUnit,
  exportedMessages,
  sessionLines,
  type ExportOptions,
  type ExportSession,
} from "../../memory/imports/export-lines.ts";
import {
  emptyImportResult,
  freshRecords,
  grownMessages,
  storedElsewhere,
  storedMeta,
  type ImportWriteOptions,
  type ImportWriteResult,
} from "../../memory/imports/import-write.ts";
import { UnknownMessageError, type RemoveMessageResult } from "../../memory/remove-message.ts";
import { UnknownSessionError } from "../../memory/session-admin.ts";
import { refuseSessionSymlinks } from "../../storage/history/no-symlink.ts";
import { openForeignDatabase, type ForeignDatabase } from "../../storage/foreign/foreign-sqlite.ts";
import type { MetaUpdate, SessionMeta } from "../../storage/ports/archive-port.ts";
import type { ImportFileState } from "../../storage/ports/shared-archive-port.ts";
import { idTombstoneHash } from "../../storage/ports/tombstone-hash.ts";
import type { ImportWriter, RemovalOutcome } from "../import-target.ts";
import { makeLocalHome, type SharedContext } from "./shared-context.ts";

/** Messages appended in one round trip: bounds the statement's size whatever the importer hands over. */
const APPEND_BATCH = 2_000;

/** What the import writer needs of the shared home: its context and its session-write steps. */
export interface SharedSessionWriter {
  readonly ctx: SharedContext;
  describe(): string;
  compactRecent(session: string, now: bigint): Promise<{ recent: readonly StoredMessage[] }>;
  refreshCache(session: string, recent?: readonly StoredMessage[]): Promise<void>;
  removeMessage(id: string, dropSummary: boolean): Promise<RemoveMessageResult>;
}

export class SharedImports implements ImportWriter {
  readonly vectors: string;
  /** Whose per-file read state this is: the files an import reads are this host's own. */
  readonly #reader: string;

  constructor(private readonly home: SharedSessionWriter) {
    this.vectors = home.ctx.config.vectors.uri;
    this.#reader = `${hostname()}:${home.ctx.paths.home}`;
  }

  /** Queued in the archive by the append: the shared drain (a daemon, or the next semantic search) embeds them. */
  embedAdded(): void {}

  /** What the archive holds of these ids: the stored messages and the tombstoned ids. */
  async #lookup(ids: readonly string[]) {
    const { archive } = this.home.ctx;
    const hashes = ids.map(idTombstoneHash);
    const [stored, gone] = await Promise.all([archive.messagesById(ids), archive.tombstoned(hashes)]);
    const dead = new Set(ids.filter((_, i) => gone.has(hashes[i]!)));
    return { stored, known: new Set(stored.map((m) => m.id)), dead };
  }

  #cannotWrite: unknown;

  /** Why the home, made at the first write, could not be created (see ImportTarget.cannotWrite). */
  cannotWrite(): unknown {
    return this.#cannotWrite;
  }

  #makeLocalHome(): void {
    if (this.#cannotWrite !== undefined) throw this.#cannotWrite;
    try {
      makeLocalHome(this.home.ctx);
    } catch (err) {
      this.#cannotWrite = err;
      throw err;
    }
  }

  /** Append imported records (existing ids skipped, tombstoned ones kept out, grown replies extended) and set the metadata. */
  async write(
    session: string,
    given: readonly MessageRecord[],
    meta?: MetaUpdate,
    o: ImportWriteOptions = {},
  ): Promise<ImportWriteResult> {
    assertSessionId(session);
    // memvoy's own export is taken as the archive held it (empty text included), but PostgreSQL text cannot hold a
    // NUL character: each is stored as U+FFFD, as migrate-archive copies it.
    const records = o.asStored ? given.map(withoutNul) : given;
    const { ctx } = this.home;
    refuseSessionSymlinks(ctx.paths.session(session));
    const max = ctx.config.limits.max_message_bytes;
    const ids = records.map((r) => r.id);
    const seen = await this.#lookup(ids);
    meta = storedMeta(meta, records, seen.dead, o.redact !== false);
    const probe = emptyImportResult();
    const growth = grownMessages(seen.stored, session, records, o, max, probe);
    probe.elsewhere = storedElsewhere(seen.stored, session);
    if (o.dryRun) {
      freshRecords(records, seen.known, seen.dead, o, max, probe);
      probe.existing -= growth.length;
      probe.extended = growth.length;
      return probe;
    }
    if (growth.length === 0 && records.every((r) => seen.known.has(r.id) || seen.dead.has(r.id))) {
      // Nothing new (the usual re-run): no lock, no cache rewrite; the metadata may still change. A session
      // removed since (every record tombstoned) is not brought back empty.
      const result = emptyImportResult();
      result.tombstoned = records.filter((r) => seen.dead.has(r.id)).length;
      result.existing = records.length - result.tombstoned;
      result.elsewhere = probe.elsewhere;
      if (meta && (await ctx.archive.getSession(session))) await ctx.archive.setSessionMeta(session, meta, ctx.now());
      return result;
    }
    // A home that did not exist is made by the first write, for this host's caches (an import of nothing makes none);
    // before anything is stored, so that a home that cannot be made ends the import (see cannotWrite).
    this.#makeLocalHome();
    // Another host may import the same source at the same time: what is new is decided again under the lock.
    return ctx.withSessionLock(session, () => this.#writeLocked(session, records, meta, o));
  }

  async #writeLocked(
    session: string,
    records: readonly MessageRecord[],
    meta: MetaUpdate | undefined,
    o: ImportWriteOptions,
  ): Promise<ImportWriteResult> {
    const { ctx } = this.home;
    const { archive } = ctx;
    const max = ctx.config.limits.max_message_bytes;
    const seen = await this.#lookup(records.map((r) => r.id));
    const result = emptyImportResult();
    const growth = grownMessages(seen.stored, session, records, o, max, result);
    result.elsewhere = storedElsewhere(seen.stored, session);
    const fresh = freshRecords(records, seen.known, seen.dead, o, max, result);
    const now = ctx.now();
    let added = 0;
    for (let at = 0; at < fresh.length; at += APPEND_BATCH) {
      const appended = await archive.appendMessages(session, fresh.slice(at, at + APPEND_BATCH), { now });
      added += appended.filter((a) => a.added).length;
    }
    // An id stored meanwhile under another session counts as existing, as the embedded archive counts it.
    result.existing += fresh.length - added;
    result.added = added;
    if (meta) await archive.setSessionMeta(session, meta, now);
    for (const g of growth) if (await archive.replaceMessageContent(session, g.id, g.content)) result.extended++;
    result.existing -= result.extended;
    const { recent } = await this.home.compactRecent(session, now);
    await this.home.refreshCache(session, recent);
    return result;
  }

  async setMeta(session: string, meta: MetaUpdate): Promise<void> {
    assertSessionId(session);
    await this.home.ctx.archive.setSessionMeta(session, meta, this.home.ctx.now());
  }

  meta(session: string): Promise<SessionMeta | undefined> {
    return this.home.ctx.archive.sessionMeta(session);
  }

  async holds(session: string): Promise<boolean> {
    return (await this.home.ctx.archive.getSession(session)) !== undefined;
  }

  async messageIds(session: string): Promise<string[]> {
    return (await this.home.ctx.archive.listMessages(session)).map((m) => m.id);
  }

  /** Remove one imported message the source removed (a rewind), tombstone included; the caller purges vectors. */
  async removeMessage(session: string, id: string): Promise<RemovalOutcome> {
    const [m] = await this.home.ctx.archive.messagesById([id]);
    if (m === undefined) return "gone";
    if (m.session !== session) return "kept";
    try {
      await this.home.removeMessage(id, false);
    } catch (e) {
      // Another host's (or process's) import of the same source removed it first.
      if (e instanceof UnknownMessageError) return "gone";
      throw e;
    }
    return "removed";
  }

  fileState(source: string, path: string): Promise<ImportFileState | undefined> {
    return this.home.ctx.archive.importFile(this.#reader, source, path);
  }

  saveFileState(source: string, path: string, state: ImportFileState): Promise<void> {
    return this.home.ctx.archive.putImportFile(this.#reader, source, path, state, this.home.ctx.now());
  }

  /** Sessions in id order with their metadata and messages, from the archive (one session in memory at a time). */
  async *exportSessions(o: ExportOptions = {}): AsyncGenerator<ExportSession> {
    const { archive } = this.home.ctx;
    const listing = await archive.listSessionInfo();
    const metas = new Map(listing.map((s) => [s.id, s.meta] as const));
    let ids: string[];
    if (o.sessions && o.sessions.length > 0) {
      for (const id of o.sessions) {
        assertSessionId(id);
        if (!metas.has(id)) throw new UnknownSessionError({ session: id, home: this.home.describe() });
        refuseSessionSymlinks(this.home.ctx.paths.session(id)); // as history refuses it
      }
      ids = [...new Set(o.sessions)];
    } else ids = listing.map((s) => s.id);
    ids.sort(byCodeUnit);
    for (const id of ids) {
      const messages = exportedMessages(await archive.listMessages(id), o);
      if (messages) yield { id, meta: metas.get(id) ?? {}, messages };
    }
  }

  readonly exportLines: (s: ExportSession) => string[] = sessionLines;
  readonly openForeign: (path: string) => ForeignDatabase = openForeignDatabase;
}
