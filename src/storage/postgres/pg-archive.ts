// The archive port on PostgreSQL through Bun.sql: many processes on many hosts share one archive.
// Appends to a session are serialised by a transaction-level advisory lock, so a session's seqs grow in
// commit order; withSessionLock is a second lock class that callers hold around longer work.
import type { SQL } from "bun";
import type { StoredMessage } from "../../shared/message.ts";
import { SessionLockTimeoutError } from "../ports/archive-errors.ts";
import type {
  AppendOptions,
  Appended,
  ArchiveCounts,
  ArchivedMessage,
  ArchivePort,
  ErrorFields,
  ErrorRow,
  Lease,
  MessageRange,
  MetaUpdate,
  NewMessage,
  QueuedMessage,
  RecentScope,
  RunCounters,
  SessionLockOptions,
  SessionMeta,
  SessionRow,
  SummaryPosition,
  SummaryRunRow,
  SummaryState,
  SummaryText,
  TextHit,
  TextQuery,
  TextSearchOptions,
  UsageRow,
  UsageTotal,
} from "../ports/archive-port.ts";
import { COPY_TABLES, type CopyRow, type CopyTableName } from "../ports/copy-tables.ts";
import { againIfEnded, beginAgainIfEnded } from "./pg-gone.ts";
import type { LockConnections } from "./pg-lock-connections.ts";
import { idTombstoneHash, keyTombstoneHash } from "../ports/tombstone-hash.ts";
import { LOCK_CLASS } from "./pg-migrate.ts";
import {
  ERROR_COLS,
  MESSAGE_COLS,
  pgError,
  pgFilter,
  pgStored,
  pgSummaryRun,
  SESSION_COLS,
  SUMMARY_RUN_COLS,
  type PgMessage,
} from "./pg-rows.ts";
import { errorVectorText, likePattern, tsqueryText, tsvectorText } from "./pg-text.ts";
import { holdsAll } from "../../shared/holds-all.ts";
import { REFUSED_MARK, withoutRefusedMark } from "../ports/refused-input.ts";

/** The server's clock in ns (every host agrees on it, unlike their own clocks). */
const SERVER_NS = "((extract(epoch from clock_timestamp()) * 1000000)::bigint * 1000)";
const ttlNs = (ttlMs: number) => BigInt(Math.round(ttlMs * 1e6));

export class PgArchive implements ArchivePort {
  readonly kind = "postgres";

  /** `locks`: where session locks are held (without it, on a connection of `sql`, the work on the others). */
  constructor(
    readonly sql: SQL,
    readonly locks?: LockConnections,
  ) {}

  async close(): Promise<void> {
    await Promise.all([this.sql.close(), this.locks?.close()]);
  }

  private q<T = Record<string, unknown>>(text: string, args: unknown[] = [], tx: SQL = this.sql): Promise<T[]> {
    if (tx !== this.sql) return tx.unsafe(text, args as never[]) as Promise<T[]>;
    return againIfEnded(() => tx.unsafe(text, args as never[]) as Promise<T[]>);
  }

  /** A transaction on the pool, begun again on a new connection when its BEGIN met one the server had ended. */
  protected begin<T>(fn: (tx: SQL) => Promise<T>): Promise<T> {
    return beginAgainIfEnded(this.sql, fn);
  }

  /** One round trip: memvoy_append (migrations 002, 004) locks, dedupes and inserts on the server. */
  async appendMessages(session: string, records: readonly NewMessage[], opts: AppendOptions): Promise<Appended[]> {
    if (records.length === 0) return [];
    const rows = await this.q<PgMessage & { idempotency_key: string | null; added: boolean }>(
      `SELECT * FROM memvoy_append($1::integer, $2::text, $3::bigint, $4::boolean, $5::text[], $6::text[], $7::text[],
         $8::bigint[], $9::text[], $10::text[], $11::text[], $12::boolean[])`,
      [
        LOCK_CLASS.append,
        session,
        opts.now,
        opts.queueEmbedding !== false,
        records.map((r) => r.id),
        records.map((r) => r.role),
        records.map((r) => r.content),
        records.map((r) => r.sendAt),
        records.map((r) => r.sender ?? null),
        records.map((r) => r.idempotencyKey ?? null),
        records.map((r) => tsvectorText(r.content)),
        records.map((r) => r.untimed === true),
      ],
    );
    const byId = new Map<string, StoredMessage>();
    const byKey = new Map<string, StoredMessage>();
    const added = new Map<string, StoredMessage>();
    const firstOfKey = new Map<string, string>();
    for (const { added: isNew, idempotency_key: key, ...row } of rows) {
      const m = pgStored(row);
      if (isNew) {
        added.set(m.id, m);
        if (key !== null) firstOfKey.set(key, m.id);
      } else {
        byId.set(m.id, m);
        if (key !== null && m.session === session) byKey.set(key, m);
      }
    }
    const reported = new Set<string>();
    return records.map((r) => {
      const prior = (r.idempotencyKey !== undefined && byKey.get(r.idempotencyKey)) || byId.get(r.id);
      if (prior) return { message: prior, added: false };
      const id = (r.idempotencyKey !== undefined && firstOfKey.get(r.idempotencyKey)) || r.id;
      const first = !reported.has(id);
      reported.add(id);
      return { message: added.get(id)!, added: first };
    });
  }

  async listMessages(session: string, o: MessageRange = {}): Promise<StoredMessage[]> {
    const args: unknown[] = [session];
    let where = "m.session_id = $1";
    if (o.recentOnly) where += " AND m.recent";
    if (o.archivedOnly) where += " AND NOT m.recent";
    if (o.afterSeq !== undefined) where += ` AND m.seq > $${args.push(o.afterSeq)}`;
    if (o.beforeSeq !== undefined) where += ` AND m.seq < $${args.push(o.beforeSeq)}`;
    where += pgFilter(args, o.filter);
    const limit = o.limit !== undefined ? ` LIMIT ${Math.max(0, Math.floor(o.limit))}` : "";
    const rows = await this.q<PgMessage>(
      `SELECT ${MESSAGE_COLS} FROM messages m WHERE ${where} ORDER BY m.seq ${o.newestFirst ? "DESC" : "ASC"}${limit}`,
      args,
    );
    return rows.map(pgStored);
  }

  async messagesById(ids: readonly string[]): Promise<StoredMessage[]> {
    if (ids.length === 0) return [];
    const rows = await this.q<PgMessage>(
      `SELECT ${MESSAGE_COLS} FROM messages m WHERE m.id = ANY($1::text[]) ORDER BY m.seq`,
      [ids],
    );
    return rows.map(pgStored);
  }

  async messagesByIdempotencyKey(session: string, keys: readonly string[]): Promise<Map<string, StoredMessage>> {
    if (keys.length === 0) return new Map();
    const rows = await this.q<PgMessage & { idempotency_key: string }>(
      `SELECT ${MESSAGE_COLS}, m.idempotency_key FROM messages m WHERE m.session_id = $1 AND m.idempotency_key = ANY($2::text[])`,
      [session, keys],
    );
    return new Map(rows.map((r) => [r.idempotency_key, pgStored(r)]));
  }

  async countMessages(session?: string): Promise<number> {
    const rows =
      session === undefined
        ? await this.q<{ n: bigint }>("SELECT count(*) AS n FROM messages")
        : await this.q<{ n: bigint }>("SELECT count(*) AS n FROM messages WHERE session_id = $1", [session]);
    return Number(rows[0]!.n);
  }

  async removeMessage(id: string, now: bigint): Promise<boolean> {
    return this.begin(async (tx) => {
      await this.forgetTitleOfRemoved(tx, "m.id = $1", [id]);
      const gone = await this.q<{ seq: bigint; session_id: string; idempotency_key: string | null; send_at: bigint }>(
        "DELETE FROM messages WHERE id = $1 RETURNING seq, session_id, idempotency_key, send_at",
        [id],
        tx,
      );
      const m = gone[0];
      if (!m) return false;
      await this.q("DELETE FROM embed_queue WHERE seq = $1", [m.seq], tx);
      await this.q("DELETE FROM untimed_messages WHERE seq = $1", [m.seq], tx);
      // Its id in the same transaction: a removal cut short between the two would leave the text removable
      // by no host's check and importable again.
      const key = m.idempotency_key === null ? [] : [keyTombstoneHash(m.session_id, m.idempotency_key)];
      await this.addTombstones(tx, [idTombstoneHash(id), ...key], now);
      await this.q(
        "INSERT INTO vector_id_deletes (id, created_at) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        [id, now],
        tx,
      );
      await this.q(
        "UPDATE sessions SET message_count = greatest(message_count - 1, 0), updated_at = $1 WHERE id = $2",
        [now, m.session_id],
        tx,
      );
      // The newest message removed: the session's last activity is the newest one left (none: the removal's time).
      await this.q(
        "UPDATE sessions SET last_send_at = coalesce((SELECT max(send_at) FROM messages WHERE session_id = $1), 0) WHERE id = $1 AND last_send_at <= $2",
        [m.session_id, m.send_at],
        tx,
      );
      return true;
    });
  }

  /**
   * Clear a session's title when a message about to be removed (`which`, over messages m) holds it: an importer took
   * it from that message (session-meta-repo.ts, forgetTitleOfRemoved).
   */
  private async forgetTitleOfRemoved(tx: SQL, which: string, args: unknown[]): Promise<void> {
    const core = "CASE WHEN right(s.title, 1) = '…' THEN left(s.title, -1) ELSE s.title END";
    await this.q(
      `UPDATE sessions s SET title = NULL, title_fallback = false FROM messages m
       WHERE ${which} AND m.session_id = s.id AND s.title IS NOT NULL AND btrim(${core}) <> '' AND strpos(m.content, ${core}) > 0`,
      args,
      tx,
    );
  }

  private async addTombstones(tx: SQL, hashes: readonly string[], now: bigint): Promise<void> {
    if (hashes.length === 0) return;
    await this.q(
      "INSERT INTO tombstones (hash, removed_at) SELECT unnest($1::text[]), $2 ON CONFLICT DO NOTHING",
      [hashes, now],
      tx,
    );
  }

  async tombstoned(hashes: readonly string[]): Promise<Set<string>> {
    if (hashes.length === 0) return new Set();
    const rows = await this.q<{ hash: string }>("SELECT hash FROM tombstones WHERE hash = ANY($1::text[])", [hashes]);
    return new Set(rows.map((r) => r.hash));
  }

  async removeSessionMessages(session: string, now: bigint): Promise<number> {
    return this.begin(async (tx) => {
      await this.q(
        "DELETE FROM embed_queue WHERE seq IN (SELECT seq FROM messages WHERE session_id = $1)",
        [session],
        tx,
      );
      await this.q(
        "INSERT INTO vector_deletes (session_id, before_seq, created_at) SELECT $1, coalesce(max(seq), 0) + 1, $2 FROM messages",
        [session, now],
        tx,
      );
      await this.forgetTitleOfRemoved(tx, "m.session_id = $1", [session]);
      const gone = await this.q<{ id: string; idempotency_key: string | null }>(
        "DELETE FROM messages WHERE session_id = $1 RETURNING id, idempotency_key",
        [session],
        tx,
      );
      const hashes = gone.flatMap((r) =>
        r.idempotency_key === null
          ? [idTombstoneHash(r.id)]
          : [idTombstoneHash(r.id), keyTombstoneHash(session, r.idempotency_key)],
      );
      await this.addTombstones(tx, hashes, now);
      await this.q("DELETE FROM untimed_messages WHERE session_id = $1", [session], tx);
      await this.q("DELETE FROM message_meta WHERE session_id = $1", [session], tx);
      await this.q(
        "UPDATE sessions SET message_count = 0, last_send_at = 0, updated_at = $1 WHERE id = $2",
        [now, session],
        tx,
      );
      return gone.length;
    });
  }

  async archiveBefore(session: string, startSeq: bigint, startAt: bigint, now: bigint): Promise<void> {
    await this.begin(async (tx) => {
      await this.q(
        "UPDATE messages SET recent = false WHERE session_id = $1 AND recent AND seq < $2",
        [session, startSeq],
        tx,
      );
      await this.q(
        `INSERT INTO message_meta (session_id, start_at, start_seq) VALUES ($1, $2, $3)
         ON CONFLICT (session_id) DO UPDATE SET start_at = $2, start_seq = $3`,
        [session, startAt, startSeq],
        tx,
      );
      await this.q(
        "DELETE FROM embed_queue WHERE seq IN (SELECT seq FROM messages WHERE session_id = $1 AND seq < $2)",
        [session, startSeq],
        tx,
      );
      await this.q(
        "INSERT INTO vector_deletes (session_id, before_seq, created_at) VALUES ($1, $2, $3)",
        [session, startSeq, now],
        tx,
      );
    });
  }

  async startOf(session: string) {
    const r = (
      await this.q<{ start_at: bigint; start_seq: bigint }>(
        "SELECT start_at, start_seq FROM message_meta WHERE session_id = $1",
        [session],
      )
    )[0];
    return r ? { startAt: r.start_at, startSeq: r.start_seq } : undefined;
  }

  /**
   * ts_rank_cd (cover density) with length normalisation 1 (divided by 1 + log of the row's length):
   * docs/many-machines.md says how it differs from FTS5's bm25.
   */
  async searchText(query: TextQuery, o: TextSearchOptions = {}): Promise<TextHit[]> {
    const tsq = tsqueryText(query);
    if (!tsq) return [];
    const args: unknown[] = [tsq];
    let where = "m.search @@ q";
    if (o.session !== undefined) where += ` AND m.session_id = $${args.push(o.session)}`;
    where += pgFilter(args, o.filter);
    if (o.recent) where += " AND m.recent";
    const order = o.order === "newest" ? "m.seq DESC" : "score DESC, m.send_at DESC, m.seq DESC";
    args.push(Math.max(1, o.limit ?? 50));
    const rows = await this.q<PgMessage & { score: number }>(
      `SELECT ${MESSAGE_COLS}, ts_rank_cd(m.search, q, 1) AS score FROM messages m, CAST($1 AS tsquery) AS q
       WHERE ${where} ORDER BY ${order} LIMIT $${args.length}`,
      args,
    );
    return rows.map((r) => ({ message: pgStored(r), score: Number(r.score) }));
  }

  async countText(query: TextQuery, cap: number): Promise<number> {
    const tsq = tsqueryText(query);
    if (!tsq) return 0;
    const rows = await this.q<{ n: bigint }>(
      `SELECT count(*) AS n FROM (SELECT 1 FROM messages m, CAST($1 AS tsquery) AS q WHERE m.search @@ q LIMIT $2) x`,
      [tsq, cap],
    );
    return Number(rows[0]!.n);
  }

  async recentHolding(needles: readonly string[], scope: RecentScope, limit: number): Promise<StoredMessage[]> {
    return this.holding("m.recent", needles, scope, limit);
  }

  async archivedHolding(needles: readonly string[], scope: RecentScope, limit: number): Promise<StoredMessage[]> {
    return this.holding("NOT m.recent", needles, scope, limit);
  }

  /**
   * ILIKE selects (the recent tier's trigram index of migration 005 serves it when pg_trgm exists; the archived tier's
   * is a scan, newest first); each row is checked here.
   */
  private async holding(
    tier: string,
    needles: readonly string[],
    scope: RecentScope,
    limit: number,
  ): Promise<StoredMessage[]> {
    const args: unknown[] = [];
    let where = tier;
    if (scope.session !== undefined) where += ` AND m.session_id = $${args.push(scope.session)}`;
    where += pgFilter(args, scope.filter);
    for (const n of needles) where += ` AND m.content ILIKE $${args.push(likePattern(n))}`;
    // Pages grow while the check leaves rows out (a needle of letters the server's locale does not fold selects more).
    let batch = Math.max(limit, 100);
    const out: StoredMessage[] = [];
    let before: bigint | undefined;
    while (out.length < limit) {
      const page = [...args];
      const after = before === undefined ? "" : ` AND m.seq < $${page.push(before)}`;
      const rows = await this.q<PgMessage>(
        `SELECT ${MESSAGE_COLS} FROM messages m WHERE ${where}${after} ORDER BY m.seq DESC LIMIT $${page.push(batch)}`,
        page,
      );
      for (const r of rows) if (out.length < limit && holdsAll(r.content, needles)) out.push(pgStored(r));
      if (rows.length < batch) break;
      before = rows.at(-1)!.seq;
      batch = Math.min(batch * 4, 10_000);
    }
    return out;
  }

  /** One indexed seek each way per seq (the recent rows' index on session and seq). */
  async recentNeighbourSeqs(seqs: readonly bigint[]): Promise<Map<bigint, { prev?: bigint; next?: bigint }>> {
    const out = new Map<bigint, { prev?: bigint; next?: bigint }>();
    if (seqs.length === 0) return out;
    const rows = await this.q<{ seq: bigint; prev: bigint | null; next: bigint | null }>(
      `SELECT m.seq,
         (SELECT p.seq FROM messages p WHERE p.session_id = m.session_id AND p.recent AND p.seq < m.seq
          ORDER BY p.seq DESC LIMIT 1) AS prev,
         (SELECT n.seq FROM messages n WHERE n.session_id = m.session_id AND n.recent AND n.seq > m.seq
          ORDER BY n.seq LIMIT 1) AS next
       FROM messages m WHERE m.seq = ANY($1::bigint[])`,
      [seqs.map(String)],
    );
    for (const r of rows)
      out.set(BigInt(r.seq), {
        ...(r.prev !== null ? { prev: BigInt(r.prev) } : {}),
        ...(r.next !== null ? { next: BigInt(r.next) } : {}),
      });
    return out;
  }

  async recentNeighbours(seqs: readonly bigint[]) {
    const pairs = await this.recentNeighbourSeqs(seqs);
    const wanted = [...pairs.values()].flatMap((p) => [p.prev, p.next]).filter((s) => s !== undefined);
    const rows =
      wanted.length === 0
        ? []
        : await this.q<PgMessage>(`SELECT ${MESSAGE_COLS} FROM messages m WHERE m.seq = ANY($1::bigint[])`, [
            wanted.map(String),
          ]);
    const bySeq = new Map(rows.map((r) => [BigInt(r.seq), pgStored(r)] as const));
    const out = new Map<bigint, { prev?: StoredMessage; next?: StoredMessage }>();
    for (const [seq, p] of pairs) {
      const prev = p.prev === undefined ? undefined : bySeq.get(p.prev);
      const next = p.next === undefined ? undefined : bySeq.get(p.next);
      out.set(seq, { ...(prev ? { prev } : {}), ...(next ? { next } : {}) });
    }
    return out;
  }

  /**
   * Walked through the sender index of migration 006 one name at a time (a loose index scan), so the cost grows with
   * the number of names, not of messages.
   */
  async knownSenders(session: string | undefined, limit: number): Promise<string[]> {
    const inSession =
      session === undefined
        ? ""
        : " AND EXISTS (SELECT 1 FROM messages x WHERE x.sender = s.sender AND x.session_id = $2)";
    const rows = await this.q<{ sender: string }>(
      `WITH RECURSIVE s(sender, n) AS (
         SELECT min(sender), 1 FROM messages WHERE sender IS NOT NULL
         UNION ALL
         SELECT (SELECT min(m.sender) FROM messages m WHERE m.sender > s.sender), s.n + 1 FROM s
         WHERE s.sender IS NOT NULL AND s.n < $1 * 4
       )
       SELECT sender FROM s WHERE sender IS NOT NULL${inSession} ORDER BY sender COLLATE "C" LIMIT $1`,
      session === undefined ? [limit] : [limit, session],
    );
    return rows.map((r) => r.sender);
  }

  async recentIds(scope: RecentScope, max: number): Promise<string[] | undefined> {
    const args: unknown[] = [];
    let where = "m.recent";
    if (scope.session !== undefined) where += ` AND m.session_id = $${args.push(scope.session)}`;
    where += pgFilter(args, scope.filter);
    const rows = await this.q<{ id: string }>(
      `SELECT m.id FROM messages m WHERE ${where} LIMIT $${args.push(max + 1)}`,
      args,
    );
    return rows.length > max ? undefined : rows.map((r) => r.id);
  }

  async listSessions(): Promise<SessionRow[]> {
    return this.q<SessionRow>(`SELECT ${SESSION_COLS} FROM sessions`);
  }

  async getSession(id: string): Promise<SessionRow | undefined> {
    return (await this.q<SessionRow>(`SELECT ${SESSION_COLS} FROM sessions WHERE id = $1`, [id]))[0];
  }

  async setSessionMeta(id: string, meta: MetaUpdate, now: bigint): Promise<void> {
    await this.begin(async (tx) => {
      await this.q(
        "INSERT INTO sessions (id, created_at, updated_at) VALUES ($1, $2, $2) ON CONFLICT (id) DO NOTHING",
        [id, now],
        tx,
      );
      await this.q(
        `UPDATE sessions SET source = coalesce($2, source), project = coalesce($3, project), parent = coalesce($4, parent)
         WHERE id = $1`,
        [id, meta.source ?? null, meta.project ?? null, meta.parent ?? null],
        tx,
      );
      if (meta.title === undefined) return;
      if (meta.titleIsFallback)
        await this.q(
          "UPDATE sessions SET title = $2, title_fallback = true WHERE id = $1 AND (title IS NULL OR title_fallback)",
          [id, meta.title],
          tx,
        );
      else await this.q("UPDATE sessions SET title = $2, title_fallback = false WHERE id = $1", [id, meta.title], tx);
    });
  }

  async sessionMeta(id: string): Promise<SessionMeta | undefined> {
    const r = (await this.q("SELECT source, title, project, parent FROM sessions WHERE id = $1", [id]))[0];
    return r ? (Object.fromEntries(Object.entries(r).filter(([, v]) => v !== null)) as SessionMeta) : undefined;
  }

  async getMeta(key: string): Promise<string | undefined> {
    return (await this.q<{ value: string }>("SELECT value FROM embed_state WHERE key = $1", [key]))[0]?.value;
  }

  async setMeta(key: string, value: string | undefined): Promise<void> {
    if (value === undefined) await this.q("DELETE FROM embed_state WHERE key = $1", [key]);
    else
      await this.q(
        "INSERT INTO embed_state (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [key, value],
      );
  }

  async dueEmbeddings(now: bigint, limit: number): Promise<QueuedMessage[]> {
    const rows = await this.q<PgMessage & { attempts: number; previous: string | null }>(
      `SELECT ${MESSAGE_COLS}, q.attempts,
         (SELECT p.content FROM messages p WHERE p.session_id = m.session_id AND p.seq < m.seq ORDER BY p.seq DESC LIMIT 1) AS previous
       FROM embed_queue q JOIN messages m ON m.seq = q.seq
       WHERE q.next_try_at <= $1 AND m.recent ORDER BY q.seq LIMIT $2`,
      [now, limit],
    );
    return rows.map((r) => {
      const out: QueuedMessage = { message: pgStored(r), attempts: Number(r.attempts) };
      if (r.previous !== null) out.previous = r.previous;
      return out;
    });
  }

  async dequeueEmbeddings(items: readonly { seq: bigint; id: string }[]): Promise<void> {
    if (items.length === 0) return;
    await this.q("DELETE FROM embed_queue WHERE seq IN (SELECT seq FROM messages WHERE id = ANY($1::text[]))", [
      items.map((i) => i.id),
    ]);
  }

  async deferEmbeddings(seqs: readonly bigint[], error: string, nextTryAt: bigint): Promise<void> {
    await this.q(
      "UPDATE embed_queue SET attempts = attempts + 1, last_error = $2, next_try_at = $3 WHERE seq = ANY($1::bigint[])",
      [seqs, error, nextTryAt],
    );
  }

  async refusedCount(session?: string): Promise<{ count: number; error?: string }> {
    const sql = `FROM embed_queue q JOIN messages m ON m.seq = q.seq WHERE m.recent AND starts_with(q.last_error, $1)${session === undefined ? "" : " AND m.session_id = $2"}`;
    const args = session === undefined ? [REFUSED_MARK] : [REFUSED_MARK, session];
    const [n] = await this.q<{ n: bigint }>(`SELECT count(*) AS n ${sql}`, args);
    if (Number(n!.n) === 0) return { count: 0 };
    const [last] = await this.q<{ e: string }>(
      `SELECT q.last_error AS e ${sql} ORDER BY q.next_try_at DESC LIMIT 1`,
      args,
    );
    return { count: Number(n!.n), error: last ? withoutRefusedMark(last.e) : undefined };
  }

  async queuedCount(session?: string): Promise<number> {
    const sql = "SELECT count(*) AS n FROM embed_queue q JOIN messages m ON m.seq = q.seq WHERE m.recent";
    const rows =
      session === undefined
        ? await this.q<{ n: bigint }>(sql)
        : await this.q<{ n: bigint }>(`${sql} AND m.session_id = $1`, [session]);
    return Number(rows[0]!.n);
  }

  async insertError(id: string, f: ErrorFields, now: bigint, expiresAt: bigint): Promise<ErrorRow> {
    const rows = await this.q(
      `INSERT INTO error_records (id, tool, signature, error, cause, fix, outcome, keywords, created_at, updated_at, expires_at, search)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, $11::tsvector) RETURNING ${ERROR_COLS}`,
      [
        id,
        f.tool,
        f.signature,
        f.error,
        f.cause,
        f.fix,
        f.outcome,
        JSON.stringify(f.keywords),
        now,
        expiresAt,
        errorVectorText(f),
      ],
    );
    return pgError(rows[0]!);
  }

  async errorBySignature(tool: string, signature: string): Promise<ErrorRow | undefined> {
    const r = (
      await this.q(`SELECT ${ERROR_COLS} FROM error_records WHERE lower(tool) = lower($1) AND signature = $2`, [
        tool,
        signature,
      ])
    )[0];
    return r ? pgError(r) : undefined;
  }

  async resignErrors(sign: (error: string) => string): Promise<void> {
    const rows = await this.q<{ seq: bigint; tool: string; signature: string; error: string }>(
      "SELECT seq, tool, signature, error FROM error_records",
    );
    const taken = new Set(rows.map((r) => `${r.tool.toLowerCase()}\n${r.signature}`));
    const seqs: bigint[] = [];
    const signatures: string[] = [];
    for (const r of rows) {
      const signature = sign(r.error);
      const key = `${r.tool.toLowerCase()}\n${signature}`;
      if (signature === r.signature || taken.has(key)) continue;
      taken.add(key);
      seqs.push(r.seq);
      signatures.push(signature);
    }
    if (seqs.length === 0) return;
    try {
      await this.q(
        `UPDATE error_records e SET signature = t.signature FROM unnest($1::bigint[], $2::text[]) AS t(seq, signature)
         WHERE e.seq = t.seq`,
        [seqs, signatures],
      );
    } catch (err) {
      // Another host signed them at the same time (or recorded one of these signatures): its rows stand.
      if ((err as { errno?: string }).errno !== "23505") throw err;
    }
  }

  async errorsByIdPrefix(prefix: string, now: bigint, limit = 10): Promise<ErrorRow[]> {
    const rows = await this.q(
      `SELECT ${ERROR_COLS} FROM error_records WHERE starts_with(id, $1) AND expires_at > $2 ORDER BY id LIMIT $3`,
      [prefix, now, limit],
    );
    return rows.map(pgError);
  }

  async expiredErrors(now: bigint, limit: number): Promise<{ seq: bigint; id: string }[]> {
    return this.q<{ seq: bigint; id: string }>(
      "SELECT seq, id FROM error_records WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2",
      [now, limit],
    );
  }

  async deleteErrors(rows: readonly { seq: bigint; id: string }[], now: bigint): Promise<void> {
    if (rows.length === 0) return;
    await this.begin(async (tx) => {
      await this.q("DELETE FROM error_records WHERE seq = ANY($1::bigint[])", [rows.map((r) => r.seq)], tx);
      await this.q(
        "INSERT INTO error_vector_deletes (id, created_at) SELECT unnest($1::text[]), $2 ON CONFLICT DO NOTHING",
        [rows.map((r) => r.id), now],
        tx,
      );
    });
  }

  async insertUsage(u: UsageRow): Promise<void> {
    await this.q(
      `INSERT INTO llm_usage (at, session_id, purpose, model, input_tokens, output_tokens)
       VALUES ($1, CASE WHEN $7::bigint IS NULL OR EXISTS (SELECT 1 FROM sessions WHERE id = $2::text AND created_at <= $7::bigint)
         THEN $2::text END, $3, $4, $5, $6)`,
      [u.at, u.session ?? null, u.purpose, u.model, u.inputTokens, u.outputTokens, u.sentAt ?? null],
    );
  }

  async usageTotals(session: string, since?: bigint): Promise<UsageTotal[]> {
    return this.q<UsageTotal>(
      `SELECT purpose, model, count(*)::float8 AS calls, sum(input_tokens)::float8 AS "inputTokens",
         sum(output_tokens)::float8 AS "outputTokens"
       FROM llm_usage WHERE session_id = $1 AND at >= $2 GROUP BY purpose, model ORDER BY purpose, model`,
      [session, since ?? 0n],
    );
  }

  async tokensSince(since: bigint): Promise<number> {
    const r = await this.q<{ n: number }>(
      "SELECT coalesce(sum(input_tokens + output_tokens), 0)::float8 AS n FROM llm_usage WHERE at >= $1",
      [since],
    );
    return Number(r[0]?.n ?? 0);
  }

  async getSummaryRun(session: string): Promise<SummaryRunRow | undefined> {
    const r = (
      await this.q<Parameters<typeof pgSummaryRun>[0]>(
        `SELECT ${SUMMARY_RUN_COLS} FROM summary_runs WHERE session_id = $1`,
        [session],
      )
    )[0];
    return r ? pgSummaryRun(r) : undefined;
  }

  async startSummaryRun(session: string, at: bigint): Promise<void> {
    await this.q(
      `INSERT INTO summary_runs (session_id, started_at, outcome) VALUES ($1, $2, 'running')
       ON CONFLICT (session_id) DO UPDATE SET started_at = $2, finished_at = NULL, outcome = 'running', error = NULL,
         chunks_done = 0, chunks_total = 0, calls = 0, input_tokens = 0, output_tokens = 0`,
      [session, at],
    );
  }

  async finishSummaryRun(session: string, at: bigint, outcome: string, c: RunCounters, error?: string): Promise<void> {
    await this.q(
      `UPDATE summary_runs SET finished_at = $1, outcome = $2, error = $3, chunks_done = $4, chunks_total = $5, calls = $6,
         input_tokens = $7, output_tokens = $8 WHERE session_id = $9`,
      [at, outcome, error ?? null, c.chunksDone, c.chunksTotal, c.calls, c.inputTokens, c.outputTokens, session],
    );
  }

  async setPendingPosition(session: string, p: SummaryPosition, sha: string): Promise<void> {
    await this.q(
      "UPDATE summary_runs SET pending_seq = $1, pending_id = $2, pending_cursor = $3, pending_sha = $4 WHERE session_id = $5",
      [p.seq, p.id, p.cursor, sha, session],
    );
  }

  async settlePosition(session: string, p: SummaryPosition | undefined): Promise<void> {
    const clearPending = "pending_seq = NULL, pending_id = NULL, pending_cursor = NULL, pending_sha = NULL";
    if (!p) {
      await this.q(`UPDATE summary_runs SET ${clearPending} WHERE session_id = $1`, [session]);
      return;
    }
    await this.begin(async (tx) => {
      await this.q("DELETE FROM untimed_messages WHERE session_id = $1 AND seq <= $2", [session, p.seq], tx);
      await this.q(
        `UPDATE summary_runs SET position_seq = $1, position_id = $2, cursor_text = $3, ${clearPending} WHERE session_id = $4`,
        [p.seq, p.id, p.cursor, session],
        tx,
      );
    });
  }

  async clearSummaryPosition(session: string): Promise<void> {
    await this.q(
      "UPDATE summary_runs SET position_seq = NULL, position_id = NULL, cursor_text = NULL WHERE session_id = $1",
      [session],
    );
  }

  async untimedSeqs(session: string): Promise<Set<bigint>> {
    const rows = await this.q<{ seq: bigint }>("SELECT seq FROM untimed_messages WHERE session_id = $1", [session]);
    return new Set(rows.map((r) => BigInt(r.seq)));
  }

  async seqInUse(seq: bigint): Promise<boolean> {
    return (await this.q("SELECT 1 FROM messages WHERE seq = $1", [seq])).length > 0;
  }

  async maxSendAt(session: string): Promise<bigint> {
    const r = await this.q<{ m: bigint | string }>(
      "SELECT coalesce(max(send_at), 0) AS m FROM messages WHERE session_id = $1",
      [session],
    );
    return BigInt(r[0]?.m ?? 0);
  }

  async getSummaryState(session: string): Promise<SummaryState | undefined> {
    const sql = `SELECT summary, cursor, version, updated_at AS "updatedAt" FROM session_summaries WHERE session_id = $1`;
    return (await this.q<SummaryState>(sql, [session]))[0];
  }

  async putSummaryState(session: string, state: SummaryText, now: bigint, expectVersion?: bigint | null) {
    const args = [session, state.summary, state.cursor, now];
    let rows: { version: bigint }[];
    if (expectVersion === undefined) {
      rows = await this.q(
        `INSERT INTO session_summaries (session_id, summary, cursor, version, updated_at) VALUES ($1, $2, $3, 1, $4)
         ON CONFLICT (session_id) DO UPDATE SET summary = $2, cursor = $3, version = session_summaries.version + 1, updated_at = $4
         RETURNING version`,
        args,
      );
    } else if (expectVersion === null) {
      rows = await this.q(
        `INSERT INTO session_summaries (session_id, summary, cursor, version, updated_at) VALUES ($1, $2, $3, 1, $4)
         ON CONFLICT (session_id) DO NOTHING RETURNING version`,
        args,
      );
    } else {
      rows = await this.q(
        `UPDATE session_summaries SET summary = $2, cursor = $3, version = version + 1, updated_at = $4
         WHERE session_id = $1 AND version = $5 RETURNING version`,
        [...args, expectVersion],
      );
    }
    return rows[0]?.version;
  }

  /** The lock is a transaction-level advisory lock: if this process dies, the server drops it with the connection. */
  async withSessionLock<T>(session: string, fn: () => Promise<T>, opts: SessionLockOptions = {}): Promise<T> {
    const timeoutMs = opts.timeoutMs ?? 30_000;
    let work: Promise<T> | undefined;
    const hold = <R>(on: (sql: SQL) => Promise<R>) => (this.locks ? this.locks.with(on) : on(this.sql));
    try {
      return await hold((sql) =>
        beginAgainIfEnded(sql, async (tx) => {
          await tx.unsafe(`SET LOCAL lock_timeout = ${Math.max(1, Math.round(timeoutMs))}`);
          try {
            await this.q("SELECT pg_advisory_xact_lock($1, hashtext($2))", [LOCK_CLASS.session, session], tx);
          } catch (err) {
            if ((err as { errno?: string }).errno === "55P03")
              throw new SessionLockTimeoutError({ session, timeoutMs }, { cause: err });
            throw err;
          }
          work = fn();
          return await work;
        }),
      );
    } catch (err) {
      // The lock's transaction writes nothing: once the work is under way, losing that connection (the server
      // gone, which released the lock) leaves the work's own outcome to stand, whether it ends before or after.
      if (work) return await work;
      throw err;
    }
  }

  async acquireLease(job: string, session: string, holder: string, ttlMs: number): Promise<Lease | undefined> {
    const r = (
      await this.q<{ holder: string; expires_at: bigint }>(
        `INSERT INTO job_leases (job, session_id, holder, expires_at) VALUES ($1, $2, $3, ${SERVER_NS} + $4)
         ON CONFLICT (job, session_id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
           WHERE job_leases.expires_at <= ${SERVER_NS} OR job_leases.holder = excluded.holder
         RETURNING holder, expires_at`,
        [job, session, holder, ttlNs(ttlMs)],
      )
    )[0];
    return r ? { job, session, holder: r.holder, expiresAt: r.expires_at } : undefined;
  }

  async renewLease(lease: Lease, ttlMs: number): Promise<Lease | undefined> {
    const r = (
      await this.q<{ expires_at: bigint }>(
        `UPDATE job_leases SET expires_at = ${SERVER_NS} + $4 WHERE job = $1 AND session_id = $2 AND holder = $3
         RETURNING expires_at`,
        [lease.job, lease.session, lease.holder, ttlNs(ttlMs)],
      )
    )[0];
    return r ? { ...lease, expiresAt: r.expires_at } : undefined;
  }

  async releaseLease(lease: Lease): Promise<void> {
    await this.q("DELETE FROM job_leases WHERE job = $1 AND session_id = $2 AND holder = $3", [
      lease.job,
      lease.session,
      lease.holder,
    ]);
  }

  async leaseHolder(job: string, session: string): Promise<Lease | undefined> {
    const r = (
      await this.q<{ holder: string; expires_at: bigint }>(
        `SELECT holder, expires_at FROM job_leases WHERE job = $1 AND session_id = $2 AND expires_at > ${SERVER_NS}`,
        [job, session],
      )
    )[0];
    return r ? { job, session, holder: r.holder, expiresAt: r.expires_at } : undefined;
  }

  async exportMessages(afterSeq: bigint, limit: number): Promise<ArchivedMessage[]> {
    const rows = await this.q<PgMessage & { idempotency_key: string | null }>(
      `SELECT ${MESSAGE_COLS}, m.idempotency_key FROM messages m WHERE m.seq > $1 ORDER BY m.seq LIMIT $2`,
      [afterSeq, limit],
    );
    return rows.map(({ idempotency_key, ...r }) =>
      idempotency_key === null ? pgStored(r) : { ...pgStored(r), idempotencyKey: idempotency_key },
    );
  }

  async importMessages(rows: readonly ArchivedMessage[]): Promise<number> {
    if (rows.length === 0) return 0;
    return this.begin(async (tx) => {
      const added = await this.q(
        `INSERT INTO messages (seq, id, session_id, role, content, send_at, sender, recent, idempotency_key, search)
         SELECT t.seq, t.id, t.session_id, t.role, t.content, t.send_at, t.sender, t.recent, t.key, t.search::tsvector
         FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::boolean[],
                     $9::text[], $10::text[]) AS t(seq, id, session_id, role, content, send_at, sender, recent, key, search)
         ON CONFLICT DO NOTHING RETURNING seq`,
        [
          rows.map((m) => m.seq),
          rows.map((m) => m.id),
          rows.map((m) => m.session),
          rows.map((m) => m.role),
          rows.map((m) => m.content),
          rows.map((m) => m.sendAt),
          rows.map((m) => m.sender ?? null),
          rows.map((m) => m.recent),
          rows.map((m) => m.idempotencyKey ?? null),
          rows.map((m) => tsvectorText(m.content)),
        ],
        tx,
      );
      await this.bumpIdentity(tx, "messages", "seq");
      return added.length;
    });
  }

  /** A copy inserts explicit ids: the identity must continue above them. */
  private async bumpIdentity(tx: SQL, table: string, column: string): Promise<void> {
    await this.q(
      `SELECT setval(s, greatest((SELECT max(${column}) FROM ${table}),
         (SELECT last_value FROM pg_sequences WHERE format('%I.%I', schemaname, sequencename) = s), 1))
       FROM pg_get_serial_sequence('${table}', '${column}') AS s`,
      [],
      tx,
    );
  }

  async exportRows(table: CopyTableName): Promise<CopyRow[]> {
    const t = COPY_TABLES[table];
    return this.q<CopyRow>(`SELECT ${t.columns.join(", ")} FROM ${table} ORDER BY ${t.key}`);
  }

  async importRows(table: CopyTableName, rows: readonly CopyRow[]): Promise<number> {
    if (rows.length === 0) return 0;
    const t: { key: string; columns: readonly string[]; booleans?: readonly string[] } = COPY_TABLES[table];
    const cols = [...t.columns];
    const withSearch = table === "error_records";
    const updates = cols.filter((c) => c !== t.key).map((c) => `${c} = excluded.${c}`);
    if (withSearch) updates.push("search = excluded.search");
    return this.begin(async (tx) => {
      for (let at = 0; at < rows.length; at += 500) {
        const chunk = rows.slice(at, at + 500);
        const args: unknown[] = [];
        const values = chunk.map((r) => {
          const cells = cols.map((c) => {
            const v = r[c] ?? null;
            args.push(t.booleans?.includes(c) ? v === true || v === 1 || v === 1n : v);
            return `$${args.length}`;
          });
          if (withSearch) {
            const keywords = JSON.parse(String(r.keywords ?? "[]")) as string[];
            args.push(
              errorVectorText({
                error: String(r.error),
                cause: (r.cause as string) ?? null,
                fix: String(r.fix),
                keywords,
              }),
            );
            cells.push(`$${args.length}::tsvector`);
          }
          return `(${cells.join(", ")})`;
        });
        await this.q(
          `INSERT INTO ${table} (${cols.join(", ")}${withSearch ? ", search" : ""}) VALUES ${values.join(", ")}
           ON CONFLICT (${t.key}) DO ${updates.length ? `UPDATE SET ${updates.join(", ")}` : "NOTHING"}`,
          args,
          tx,
        );
      }
      if (table === "llm_usage") await this.bumpIdentity(tx, "llm_usage", "id");
      if (table === "error_records") await this.bumpIdentity(tx, "error_records", "seq");
      return rows.length;
    });
  }

  async counts(): Promise<ArchiveCounts> {
    const r = (
      await this.q<Record<string, bigint>>(
        `SELECT (SELECT count(*) FROM messages) AS messages, (SELECT count(*) FROM sessions) AS sessions,
           (SELECT count(*) FROM error_records) AS errors, (SELECT count(*) FROM llm_usage) AS usage,
           (SELECT count(*) FROM summary_runs) AS summary_runs, (SELECT count(*) FROM session_summaries) AS summaries`,
      )
    )[0]!;
    return {
      messages: Number(r.messages),
      sessions: Number(r.sessions),
      errors: Number(r.errors),
      usage: Number(r.usage),
      summaryRuns: Number(r.summary_runs),
      summaries: Number(r.summaries),
    };
  }
}
