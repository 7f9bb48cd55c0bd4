// The archive port over the home's SQLite database: the existing repositories behind async methods.
import { dirname, join } from "node:path";
import type { StoredMessage } from "../../shared/message.ts";
import type {
  AppendOptions,
  Appended,
  ArchiveCounts,
  ArchivedMessage,
  ArchivePort,
  Lease,
  MessageRange,
  NewMessage,
  RecentScope,
  SessionLockOptions,
  SummaryState,
  SummaryText,
  TextHit,
  TextQuery,
  TextSearchOptions,
} from "../ports/archive-port.ts";
import { COPY_TABLES, type CopyRow, type CopyTableName } from "../ports/copy-tables.ts";
import type { Db } from "./db.ts";
import {
  dequeue,
  deferQueued,
  dueMessages,
  getEmbedState,
  queuedCount,
  refusedQueued,
  setEmbedState,
} from "./embed-queue-repo.ts";
import {
  deleteErrorRows,
  findByIdPrefix,
  findBySignature,
  insertErrorRow,
  listExpired,
  resignErrors,
  type ErrorFields,
} from "./error-memory-repo.ts";
import { ftsHasSession, messageFtsWriter, sessionToken } from "./fts-upgrade.ts";
import { messageTextWriter } from "./message-text-writer.ts";
import {
  archiveBefore,
  deleteOneMessage,
  deleteSessionMessages,
  getMessagesById,
  getMessagesBySeq,
  getStartSeq,
  insertMessages,
  listSessionMessages,
  MESSAGE_COLUMNS,
  messagesByIdempotencyKey,
  toStored,
  M_MESSAGE_COLUMNS,
} from "./messages-repo.ts";
import { andFilter } from "./message-filter-sql.ts";
import { scanArchive, scanRecent } from "./keyword-queries.ts";
import { recentNeighbourSeqs, recentNeighboursOf } from "./context-queries.ts";
import { knownSenders, recentIdsPassing } from "./semantic-queries.ts";
import { holdsAll } from "../../shared/holds-all.ts";
import { openDatabase } from "./open-database.ts";
import { SessionLocks } from "./session-locks.ts";
import { getSessionMeta, upsertSessionMeta, type MetaUpdate } from "./session-meta-repo.ts";
import { getSessionRow, listSessionRows } from "./sessions-repo.ts";
import { addTombstones, idTombstone } from "./tombstones-repo.ts";
import { sqliteMatch } from "./sqlite-match.ts";
import {
  clearPosition,
  finishSummaryRun,
  getSummaryRun,
  maxSendAt,
  seqInUse,
  untimedSeqs,
  setPendingPosition,
  settlePosition,
  startSummaryRun,
  type RunCounters,
  type SummaryPosition,
} from "./summary-runs-repo.ts";
import { insertUsage, sessionUsageTotals, type UsageRow } from "./usage-repo.ts";
import { tokensSince } from "./usage-report-repo.ts";
import { withWriteLock } from "./write-lock.ts";

type Row = Parameters<typeof toStored>[0];
const nowNs = () => BigInt(Date.now()) * 1_000_000n;
const count = (db: Db, sql: string, ...args: (string | bigint)[]) =>
  Number((db.query(sql).get(...args) as { n: bigint }).n);

export class SqliteArchive implements ArchivePort {
  readonly kind = "sqlite";
  private readonly locks: SessionLocks;

  /** `db`: an open home database (see openDatabase); closing the port closes it when `owned`. */
  constructor(
    readonly db: Db,
    private readonly owned = false,
  ) {
    const file = db.filename;
    this.locks = new SessionLocks(file && file !== ":memory:" ? join(dirname(file), "locks") : undefined);
  }

  async close(): Promise<void> {
    if (this.owned) this.db.close();
  }

  private write<T>(fn: () => T): T {
    return withWriteLock(this.db, fn);
  }

  async appendMessages(session: string, records: readonly NewMessage[], opts: AppendOptions): Promise<Appended[]> {
    return this.write(() => {
      const keys = records.flatMap((r) => (r.idempotencyKey !== undefined ? [r.idempotencyKey] : []));
      const byKey = messagesByIdempotencyKey(this.db, session, keys);
      const byId = new Map(
        getMessagesById(
          this.db,
          records.map((r) => r.id),
        ).map((m) => [m.id, m]),
      );
      const fresh: NewMessage[] = [];
      const plan: (StoredMessage | NewMessage)[] = [];
      const seenKeys = new Map<string, NewMessage>();
      for (const r of records) {
        const existing = (r.idempotencyKey !== undefined && byKey.get(r.idempotencyKey)) || byId.get(r.id);
        const twin = r.idempotencyKey !== undefined ? seenKeys.get(r.idempotencyKey) : undefined;
        if (existing) plan.push(existing);
        else if (twin) plan.push(twin);
        else {
          fresh.push(r);
          plan.push(r);
          if (r.idempotencyKey !== undefined) seenKeys.set(r.idempotencyKey, r);
        }
      }
      const keyMap = new Map(fresh.flatMap((r) => (r.idempotencyKey !== undefined ? [[r, r.idempotencyKey]] : [])));
      const seqs = insertMessages(this.db, session, fresh, opts.now, {
        queueEmbedding: opts.queueEmbedding,
        idempotencyKeys: keyMap,
      });
      const stored = new Map(getMessagesBySeq(this.db, seqs).map((m) => [m.id, m]));
      const freshSet = new Set<unknown>(fresh);
      const reported = new Set<NewMessage>();
      return plan.map((p) => {
        if ("seq" in p) return { message: p, added: false };
        const first = freshSet.has(p) && !reported.has(p);
        reported.add(p);
        return { message: stored.get(p.id)!, added: first };
      });
    });
  }

  async listMessages(session: string, range: MessageRange = {}): Promise<StoredMessage[]> {
    return listSessionMessages(this.db, session, range);
  }

  async messagesById(ids: readonly string[]): Promise<StoredMessage[]> {
    return getMessagesById(this.db, ids);
  }

  async messagesByIdempotencyKey(session: string, keys: readonly string[]): Promise<Map<string, StoredMessage>> {
    return messagesByIdempotencyKey(this.db, session, keys);
  }

  async countMessages(session?: string): Promise<number> {
    return session === undefined
      ? count(this.db, "SELECT count(*) AS n FROM messages")
      : count(this.db, "SELECT count(*) AS n FROM messages WHERE session_id = ?", session);
  }

  async removeMessage(id: string, now: bigint): Promise<boolean> {
    return this.write(() => {
      const m = getMessagesById(this.db, [id])[0];
      if (!m) return false;
      deleteOneMessage(this.db, m, now);
      addTombstones(this.db, [idTombstone(m.id)], now);
      return true;
    });
  }

  async tombstoned(hashes: readonly string[]): Promise<Set<string>> {
    const q = this.db.query("SELECT 1 FROM tombstones WHERE hash = ?");
    return new Set(hashes.filter((h) => q.get(h) !== null));
  }

  async removeSessionMessages(session: string, now: bigint): Promise<number> {
    return this.write(() => deleteSessionMessages(this.db, session, now));
  }

  async archiveBefore(session: string, startSeq: bigint, startAt: bigint, now: bigint): Promise<void> {
    this.write(() => archiveBefore(this.db, session, startSeq, startAt, now));
  }

  async startOf(session: string) {
    return getStartSeq(this.db, session);
  }

  async searchText(query: TextQuery, o: TextSearchOptions = {}): Promise<TextHit[]> {
    let match = sqliteMatch(query);
    if (!match) return [];
    const withSession = ftsHasSession(this.db);
    const args: (string | bigint | number)[] = [];
    let where = "";
    if (o.session !== undefined && withSession) match = `{sess}: ${sessionToken(o.session)} AND (${match})`;
    if (o.session !== undefined) {
      where += " AND m.session_id = ?";
      args.push(o.session);
    }
    where = andFilter(where, args, o.filter, "m.");
    if (o.recent) where += " AND m.recent = 1";
    const rank = withSession ? "bm25(messages_fts, 1.0, 0.0)" : "bm25(messages_fts)";
    const order = o.order === "newest" ? "m.seq DESC" : "score DESC, m.send_at DESC, m.seq DESC";
    const cols = M_MESSAGE_COLUMNS;
    const rows = this.db
      .query(
        `SELECT ${cols}, -${rank} AS score FROM messages_fts JOIN messages m ON m.seq = messages_fts.rowid
         WHERE messages_fts MATCH ?${where} ORDER BY ${order} LIMIT ?`,
      )
      .all(match, ...args, Math.max(1, o.limit ?? 50)) as (Row & { score: number })[];
    return rows.map((r) => ({ message: toStored(r), score: Number(r.score) }));
  }

  async countText(query: TextQuery, cap: number): Promise<number> {
    const match = sqliteMatch(query);
    if (!match) return 0;
    const row = this.db
      .query("SELECT count(*) AS n FROM (SELECT 1 FROM messages_fts WHERE messages_fts MATCH ? LIMIT ?)")
      .get(match, cap) as { n: number };
    return Number(row.n);
  }

  async recentHolding(needles: readonly string[], scope: RecentScope, limit: number): Promise<StoredMessage[]> {
    const rows = scanRecent(this.db, needles, { session: scope.session, ...scope.filter }, limit) as StoredMessage[];
    // scanRecent's paths fold ASCII case, some of them only: every row is checked in Unicode lower case.
    return rows.filter((m) => holdsAll(m.content, needles));
  }

  async archivedHolding(needles: readonly string[], scope: RecentScope, limit: number): Promise<StoredMessage[]> {
    const rows = scanArchive(this.db, needles, { session: scope.session, ...scope.filter }, limit) as StoredMessage[];
    return rows.filter((m) => holdsAll(m.content, needles));
  }

  async recentNeighbourSeqs(seqs: readonly bigint[]) {
    return recentNeighbourSeqs(this.db, seqs);
  }

  async recentNeighbours(seqs: readonly bigint[]) {
    return recentNeighboursOf(this.db, seqs);
  }

  async knownSenders(session: string | undefined, limit: number): Promise<string[]> {
    return knownSenders(this.db, session, limit);
  }

  async recentIds(scope: RecentScope, max: number): Promise<string[] | undefined> {
    return recentIdsPassing(this.db, scope.filter ?? {}, scope.session, max);
  }

  async listSessions() {
    return listSessionRows(this.db);
  }

  async getSession(id: string) {
    return getSessionRow(this.db, id);
  }

  async setSessionMeta(id: string, meta: MetaUpdate, now: bigint): Promise<void> {
    this.write(() => upsertSessionMeta(this.db, id, meta, now));
  }

  async sessionMeta(id: string) {
    return getSessionMeta(this.db, id);
  }

  async getMeta(key: string) {
    return getEmbedState(this.db, key);
  }

  async setMeta(key: string, value: string | undefined): Promise<void> {
    this.write(() => setEmbedState(this.db, key, value));
  }

  async dueEmbeddings(now: bigint, limit: number) {
    return dueMessages(this.db, now, limit);
  }

  async dequeueEmbeddings(items: readonly { seq: bigint; id: string }[]): Promise<void> {
    this.write(() => dequeue(this.db, items));
  }

  async deferEmbeddings(seqs: readonly bigint[], error: string, nextTryAt: bigint): Promise<void> {
    this.write(() => deferQueued(this.db, seqs, error, 0n, () => nextTryAt));
  }

  async queuedCount(session?: string) {
    return queuedCount(this.db, session);
  }

  async refusedCount(session?: string) {
    return refusedQueued(this.db, session);
  }

  async insertError(id: string, fields: ErrorFields, now: bigint, expiresAt: bigint) {
    return this.write(() => insertErrorRow(this.db, id, fields, now, expiresAt));
  }

  async errorBySignature(tool: string, signature: string) {
    return findBySignature(this.db, tool, signature);
  }

  async resignErrors(sign: (error: string) => string) {
    this.write(() => resignErrors(this.db, sign));
  }

  async errorsByIdPrefix(prefix: string, now: bigint, limit = 10) {
    return findByIdPrefix(this.db, prefix, now, limit);
  }

  async expiredErrors(now: bigint, limit: number) {
    return listExpired(this.db, now, limit);
  }

  async deleteErrors(rows: readonly { seq: bigint; id: string }[], now: bigint): Promise<void> {
    this.write(() => deleteErrorRows(this.db, rows, now));
  }

  async insertUsage(u: UsageRow): Promise<void> {
    this.write(() => insertUsage(this.db, u));
  }

  async usageTotals(session: string, since?: bigint) {
    return sessionUsageTotals(this.db, session, since);
  }

  async tokensSince(since: bigint): Promise<number> {
    return tokensSince(this.db, since);
  }

  async getSummaryRun(session: string) {
    return getSummaryRun(this.db, session);
  }

  async startSummaryRun(session: string, at: bigint): Promise<void> {
    this.write(() => startSummaryRun(this.db, session, at));
  }

  async finishSummaryRun(session: string, at: bigint, outcome: string, c: RunCounters, error?: string) {
    this.write(() => finishSummaryRun(this.db, session, at, outcome, c, error));
  }

  async setPendingPosition(session: string, p: SummaryPosition, sha: string): Promise<void> {
    this.write(() => setPendingPosition(this.db, session, p, sha));
  }

  async settlePosition(session: string, p: SummaryPosition | undefined): Promise<void> {
    this.write(() => settlePosition(this.db, session, p));
  }

  async clearSummaryPosition(session: string): Promise<void> {
    this.write(() => clearPosition(this.db, session));
  }

  async untimedSeqs(session: string): Promise<Set<bigint>> {
    return untimedSeqs(this.db, session);
  }

  async seqInUse(seq: bigint): Promise<boolean> {
    return seqInUse(this.db, seq);
  }

  async maxSendAt(session: string): Promise<bigint> {
    return maxSendAt(this.db, session);
  }

  async getSummaryState(session: string): Promise<SummaryState | undefined> {
    const r = this.db
      .query("SELECT summary, cursor, version, updated_at FROM session_summaries WHERE session_id = ?")
      .get(session) as { summary: string; cursor: string; version: bigint; updated_at: bigint } | null;
    return r ? { summary: r.summary, cursor: r.cursor, version: r.version, updatedAt: r.updated_at } : undefined;
  }

  async putSummaryState(session: string, state: SummaryText, now: bigint, expectVersion?: bigint | null) {
    return this.write(() => {
      const cur = this.db.query("SELECT version FROM session_summaries WHERE session_id = ?").get(session) as {
        version: bigint;
      } | null;
      if (expectVersion !== undefined && (cur?.version ?? null) !== expectVersion) return undefined;
      const version = (cur?.version ?? 0n) + 1n;
      this.db
        .query(
          `INSERT INTO session_summaries (session_id, summary, cursor, version, updated_at) VALUES (?1, ?2, ?3, ?4, ?5)
           ON CONFLICT(session_id) DO UPDATE SET summary = ?2, cursor = ?3, version = ?4, updated_at = ?5`,
        )
        .run(session, state.summary, state.cursor, version, now);
      return version;
    });
  }

  async withSessionLock<T>(session: string, fn: () => Promise<T>, opts: SessionLockOptions = {}): Promise<T> {
    return this.locks.with(session, fn, opts.timeoutMs);
  }

  async acquireLease(job: string, session: string, holder: string, ttlMs: number): Promise<Lease | undefined> {
    return this.write(() => {
      const now = nowNs();
      const r = this.db
        .query(
          `INSERT INTO job_leases (job, session_id, holder, expires_at) VALUES (?1, ?2, ?3, ?4)
           ON CONFLICT(job, session_id) DO UPDATE SET holder = ?3, expires_at = ?4
             WHERE job_leases.expires_at <= ?5 OR job_leases.holder = ?3
           RETURNING holder, expires_at`,
        )
        .get(job, session, holder, now + BigInt(Math.round(ttlMs * 1e6)), now) as {
        holder: string;
        expires_at: bigint;
      } | null;
      return r ? { job, session, holder: r.holder, expiresAt: r.expires_at } : undefined;
    });
  }

  async renewLease(lease: Lease, ttlMs: number): Promise<Lease | undefined> {
    return this.write(() => {
      const expiresAt = nowNs() + BigInt(Math.round(ttlMs * 1e6));
      const n = this.db
        .query("UPDATE job_leases SET expires_at = ? WHERE job = ? AND session_id = ? AND holder = ?")
        .run(expiresAt, lease.job, lease.session, lease.holder).changes;
      return n > 0 ? { ...lease, expiresAt } : undefined;
    });
  }

  async releaseLease(lease: Lease): Promise<void> {
    this.write(() =>
      this.db
        .query("DELETE FROM job_leases WHERE job = ? AND session_id = ? AND holder = ?")
        .run(lease.job, lease.session, lease.holder),
    );
  }

  async leaseHolder(job: string, session: string): Promise<Lease | undefined> {
    const r = this.db
      .query("SELECT holder, expires_at FROM job_leases WHERE job = ? AND session_id = ? AND expires_at > ?")
      .get(job, session, nowNs()) as { holder: string; expires_at: bigint } | null;
    return r ? { job, session, holder: r.holder, expiresAt: r.expires_at } : undefined;
  }

  async exportMessages(afterSeq: bigint, limit: number): Promise<ArchivedMessage[]> {
    const rows = this.db
      .query(`SELECT ${MESSAGE_COLUMNS}, idempotency_key FROM messages WHERE seq > ? ORDER BY seq LIMIT ?`)
      .all(afterSeq, limit) as (Row & { idempotency_key: string | null })[];
    return rows.map((r) => {
      const m: ArchivedMessage = toStored(r);
      if (r.idempotency_key !== null) m.idempotencyKey = r.idempotency_key;
      return m;
    });
  }

  async importMessages(rows: readonly ArchivedMessage[]): Promise<number> {
    return this.write(() => {
      const insert = this.db.query(
        `INSERT OR IGNORE INTO messages (seq, id, session_id, role, content, send_at, sender, recent, idempotency_key)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      const beside = messageTextWriter(this.db);
      const added: ArchivedMessage[] = [];
      for (const m of rows) {
        const r = insert.run(
          m.seq,
          m.id,
          m.session,
          m.role,
          m.content,
          m.sendAt,
          m.sender ?? null,
          m.recent ? 1 : 0,
          m.idempotencyKey ?? null,
        );
        if (r.changes === 0) continue;
        beside(m.seq, m.content);
        added.push(m);
      }
      indexCopied(this.db, added);
      return added.length;
    });
  }

  async exportRows(table: CopyTableName): Promise<CopyRow[]> {
    const t = COPY_TABLES[table];
    return this.db.query(`SELECT ${t.columns.join(", ")} FROM ${table} ORDER BY ${t.key}`).all() as CopyRow[];
  }

  async importRows(table: CopyTableName, rows: readonly CopyRow[]): Promise<number> {
    const t = COPY_TABLES[table];
    const cols = t.columns;
    const updates = cols.filter((c) => c !== t.key).map((c) => `${c} = excluded.${c}`);
    const insert = this.db.query(
      `INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})
       ON CONFLICT(${t.key}) DO ${updates.length ? `UPDATE SET ${updates.join(", ")}` : "NOTHING"}`,
    );
    return this.write(() => {
      for (const r of rows) insert.run(...cols.map((c) => sqliteValue(r[c])));
      return rows.length;
    });
  }

  async counts(): Promise<ArchiveCounts> {
    const n = (table: string) => count(this.db, `SELECT count(*) AS n FROM ${table}`);
    return {
      messages: n("messages"),
      sessions: n("sessions"),
      errors: n("error_records"),
      usage: n("llm_usage"),
      summaryRuns: n("summary_runs"),
      summaries: n("session_summaries"),
    };
  }
}

const sqliteValue = (v: CopyRow[string] | undefined) => (typeof v === "boolean" ? (v ? 1 : 0) : (v ?? null));

/** Copied messages join the keyword index (the queue is not filled: a copy brings its vectors along). */
function indexCopied(db: Db, rows: readonly ArchivedMessage[]): void {
  const fts = messageFtsWriter(db);
  for (const m of rows) fts(m.seq, m.content, m.session, m.recent);
}

/** Open a home's archive database as an archive port (the port owns and closes the handle). */
export function openSqliteArchive(path: string): SqliteArchive {
  return new SqliteArchive(openDatabase(path), true);
}
