// The PostgreSQL archive as the MemoryApi uses it in shared mode: the archive port plus the removals, error
// upkeep and vector-deletion bookkeeping of shared-archive-port.ts.
import type { SQL } from "bun";
import type { StoredMessage } from "../../shared/message.ts";
import type { ErrorFields, ErrorRow, SessionMeta, SessionRow, SummaryText, TextQuery } from "../ports/archive-port.ts";
import {
  removedSessionKey,
  type ErrorListFilter,
  type ImportFileState,
  type SessionListing,
  type SharedArchivePort,
  type SummaryStatus,
  type VectorDeletes,
} from "../ports/shared-archive-port.ts";
import { openPgArchive, type PgOpenOptions } from "./open-pg-archive.ts";
import { PgArchive } from "./pg-archive.ts";
import { PgArchiveAdmin } from "./pg-archive-admin.ts";
import { againIfEnded } from "./pg-gone.ts";
import { ERROR_COLS, MESSAGE_COLS, pgError, pgStored, SESSION_COLS, type PgMessage } from "./pg-rows.ts";
import { errorVectorText, tsqueryText, tsvectorText } from "./pg-text.ts";

export class PgSharedArchive extends PgArchive implements SharedArchivePort {
  readonly admin = new PgArchiveAdmin(this.sql);

  private run<T = Record<string, unknown>>(text: string, args: unknown[] = []): Promise<T[]> {
    return againIfEnded(() => this.sql.unsafe(text, args as never[]) as Promise<T[]>);
  }

  async listSessionInfo(): Promise<SessionListing[]> {
    const rows = await this.run<SessionRow & Record<"source" | "title" | "project" | "parent", string | null>>(
      `SELECT ${SESSION_COLS}, source, title, project, parent,
         EXISTS (SELECT 1 FROM session_summaries s WHERE s.session_id = sessions.id) AS "hasSummary"
       FROM sessions`,
    );
    return rows.map(({ source, title, project, parent, ...row }) => {
      const meta = Object.fromEntries(
        Object.entries({ source, title, project, parent }).filter(([, v]) => v !== null),
      ) as SessionMeta;
      return { ...(row as SessionRow & { hasSummary: boolean }), meta };
    });
  }

  async summaryStatuses(): Promise<Map<string, SummaryStatus>> {
    const rows = await this.run<{
      session: string;
      summary_at: bigint | null;
      version: bigint | null;
      outcome: string | null;
      started_at: bigint | null;
      finished_at: bigint | null;
    }>(
      `SELECT coalesce(s.session_id, r.session_id) AS session, s.updated_at AS summary_at, s.version, r.outcome, r.started_at,
         r.finished_at
       FROM session_summaries s FULL JOIN summary_runs r ON r.session_id = s.session_id`,
    );
    const out = new Map<string, SummaryStatus>();
    for (const r of rows) {
      const status: SummaryStatus = {};
      if (r.summary_at !== null) status.summaryUpdatedAt = BigInt(r.summary_at);
      if (r.version !== null) status.summaryVersion = BigInt(r.version);
      if (r.outcome !== null && r.started_at !== null) {
        status.run = { outcome: r.outcome, startedAt: BigInt(r.started_at) };
        if (r.finished_at !== null) status.run.finishedAt = BigInt(r.finished_at);
      }
      out.set(r.session, status);
    }
    return out;
  }

  async summaryTexts(sessions: readonly string[]): Promise<Map<string, SummaryText>> {
    if (sessions.length === 0) return new Map();
    const rows = await this.run<SummaryText & { session: string }>(
      "SELECT session_id AS session, summary, cursor FROM session_summaries WHERE session_id = ANY($1::text[])",
      [sessions],
    );
    return new Map(rows.map((r) => [r.session, { summary: r.summary, cursor: r.cursor }]));
  }

  async recentOf(sessions: readonly string[]): Promise<Map<string, StoredMessage[]>> {
    const out = new Map<string, StoredMessage[]>(sessions.map((s) => [s, []]));
    if (sessions.length === 0) return out;
    const rows = await this.run<PgMessage>(
      `SELECT ${MESSAGE_COLS} FROM messages m WHERE m.session_id = ANY($1::text[]) AND m.recent ORDER BY m.seq`,
      [sessions],
    );
    for (const r of rows) out.get(r.session_id)?.push(pgStored(r));
    return out;
  }

  async removeSession(session: string): Promise<void> {
    await this.begin(async (tx) => {
      for (const table of ["message_meta", "session_summaries", "summary_runs", "job_leases"])
        await tx.unsafe(`DELETE FROM ${table} WHERE session_id = $1`, [session]);
      // The calls were made: the daily budget still counts them, under no session.
      await tx.unsafe("UPDATE llm_usage SET session_id = NULL WHERE session_id = $1", [session]);
      await tx.unsafe("DELETE FROM sessions WHERE id = $1", [session]);
      // Other hosts' caches of it go with their next listing (removed-cache.ts), also when no message was left.
      await tx.unsafe("INSERT INTO embed_state (key, value) VALUES ($1, '1') ON CONFLICT (key) DO NOTHING", [
        removedSessionKey(session),
      ]);
      await countRemoval(tx);
    });
  }

  async deleteUsage(ids: readonly bigint[]): Promise<void> {
    if (ids.length > 0) await this.run("DELETE FROM llm_usage WHERE id = ANY($1::bigint[])", [ids]);
  }

  async renumberRows(table: "error_records" | "llm_usage", keys: readonly bigint[], above: bigint): Promise<void> {
    if (keys.length === 0) return;
    const key = table === "llm_usage" ? "id" : "seq";
    await this.begin(async (tx) => {
      await tx.unsafe(
        `SELECT setval(s, greatest($1::bigint, (SELECT max(${key}) FROM ${table}))) FROM pg_get_serial_sequence('${table}', '${key}') AS s`,
        [above],
      );
      await tx.unsafe(`UPDATE ${table} SET ${key} = DEFAULT WHERE ${key} = ANY($1::bigint[])`, [keys]);
    });
  }

  async forgetSummary(session: string): Promise<boolean> {
    return this.begin(async (tx) => {
      const gone = await tx.unsafe("DELETE FROM session_summaries WHERE session_id = $1 RETURNING session_id", [
        session,
      ]);
      await tx.unsafe("DELETE FROM summary_runs WHERE session_id = $1", [session]);
      if (gone.length > 0) await countRemoval(tx);
      return gone.length > 0;
    });
  }

  async restartSummaryRun(session: string, at: bigint): Promise<void> {
    await this.run("UPDATE summary_runs SET started_at = $2 WHERE session_id = $1 AND outcome = 'running'", [
      session,
      at,
    ]);
  }

  async messagesWithIdHashes(hashes: readonly string[]): Promise<{ id: string; session: string }[]> {
    if (hashes.length === 0) return [];
    // The hash of tombstone-hash.ts, computed by the server: one scan, joined to the hashes.
    return this.run<{ id: string; session: string }>(
      `SELECT m.id, m.session_id AS session FROM messages m
       JOIN unnest($1::text[]) AS h(hash) ON h.hash = encode(sha256(convert_to('id:' || m.id, 'UTF8')), 'hex')`,
      [hashes],
    );
  }

  async removalCount(): Promise<bigint> {
    return BigInt((await this.run<{ n: bigint }>("SELECT n FROM removal_count"))[0]?.n ?? 0n);
  }

  async mergeError(seq: bigint, f: ErrorFields, now: bigint, expiresAt: bigint, textChanged: boolean) {
    const rows = await this.run(
      `UPDATE error_records SET tool = $1, error = $2, cause = $3, fix = $4, outcome = $5, keywords = $6, updated_at = $7,
         expires_at = $8, occurrences = occurrences + 1, revision = revision + $9,
         embedded_by = CASE WHEN $10 THEN NULL ELSE embedded_by END, search = $11::tsvector
       WHERE seq = $12 RETURNING ${ERROR_COLS}`,
      [
        f.tool,
        f.error,
        f.cause,
        f.fix,
        f.outcome,
        JSON.stringify(f.keywords),
        now,
        expiresAt,
        textChanged ? 1 : 0,
        textChanged,
        errorVectorText(f),
        seq,
      ],
    );
    return pgError(rows[0]!);
  }

  async liveErrors(f: ErrorListFilter, now: bigint, limit: number): Promise<{ rows: ErrorRow[]; total: number }> {
    const args: unknown[] = [now];
    let where = "expires_at > $1";
    if (f.tool !== undefined) where += ` AND tool = $${args.push(f.tool)}`;
    if (f.outcome !== undefined) where += ` AND outcome = $${args.push(f.outcome)}`;
    const total = await this.run<{ n: bigint }>(`SELECT count(*) AS n FROM error_records WHERE ${where}`, args);
    const rows = await this.run(
      `SELECT ${ERROR_COLS} FROM error_records WHERE ${where} ORDER BY updated_at DESC, seq DESC LIMIT $${args.push(limit)}`,
      args,
    );
    return { rows: rows.map(pgError), total: Number(total[0]!.n) };
  }

  async liveErrorsBySeqs(seqs: readonly bigint[], now: bigint): Promise<ErrorRow[]> {
    if (seqs.length === 0) return [];
    const sql = `SELECT ${ERROR_COLS} FROM error_records WHERE seq = ANY($1::bigint[]) AND expires_at > $2`;
    return (await this.run(sql, [seqs, now])).map(pgError);
  }

  async liveErrorsByIds(ids: readonly string[], now: bigint): Promise<ErrorRow[]> {
    if (ids.length === 0) return [];
    const sql = `SELECT ${ERROR_COLS} FROM error_records WHERE id = ANY($1::text[]) AND expires_at > $2`;
    return (await this.run(sql, [ids, now])).map(pgError);
  }

  async touchErrors(seqs: readonly bigint[], now: bigint, expiresAt: bigint): Promise<void> {
    if (seqs.length === 0) return;
    await this.run(
      `UPDATE error_records SET hits = hits + 1, last_hit_at = $2, expires_at = $3
       WHERE seq = ANY($1::bigint[]) AND expires_at > $2`,
      [seqs, now, expiresAt],
    );
  }

  async searchErrorText(query: TextQuery, now: bigint, tool: string | undefined, limit: number) {
    const tsq = tsqueryText(query);
    if (!tsq) return [];
    const args: unknown[] = [tsq, now];
    let where = "e.search @@ q AND e.expires_at > $2";
    if (tool !== undefined) where += ` AND lower(e.tool) = lower($${args.push(tool)})`;
    const rows = await this.run<{ seq: bigint; score: number }>(
      `SELECT e.seq, ts_rank_cd(e.search, q, 1)::float8 AS score FROM error_records e, CAST($1 AS tsquery) AS q
       WHERE ${where} ORDER BY score DESC, e.seq LIMIT $${args.push(limit)}`,
      args,
    );
    return rows.map((r) => ({ seq: r.seq, score: Number(r.score) }));
  }

  async markErrorsEmbedded(rows: readonly { seq: bigint; revision: number }[], embedderId: string): Promise<void> {
    if (rows.length === 0) return;
    await this.run(
      `UPDATE error_records e SET embedded_by = $1 FROM unnest($2::bigint[], $3::int[]) AS t(seq, revision)
       WHERE e.seq = t.seq AND e.revision = t.revision`,
      [embedderId, rows.map((r) => r.seq), rows.map((r) => r.revision)],
    );
  }

  async clearErrorsEmbedded(): Promise<void> {
    await this.run("UPDATE error_records SET embedded_by = NULL WHERE embedded_by IS NOT NULL", []);
  }

  async unembeddedErrors(embedderId: string, now: bigint, limit: number): Promise<ErrorRow[]> {
    const rows = await this.run(
      `SELECT ${ERROR_COLS} FROM error_records WHERE expires_at > $1 AND embedded_by IS DISTINCT FROM $2
         AND embedded_by IS DISTINCT FROM 'refused:' || $2 ORDER BY seq LIMIT $3`,
      [now, embedderId, limit],
    );
    return rows.map(pgError);
  }

  async pendingVectorDeletes(limit: number): Promise<VectorDeletes> {
    const ids = await this.run<{ id: string }>("SELECT id FROM vector_id_deletes ORDER BY created_at LIMIT $1", [
      limit,
    ]);
    const before = await this.run<{ id: bigint; session_id: string; before_seq: bigint }>(
      "SELECT id, session_id, before_seq FROM vector_deletes ORDER BY id LIMIT $1",
      [limit],
    );
    return {
      ids: ids.map((r) => r.id),
      before: before.map((r) => ({ id: r.id, session: r.session_id, beforeSeq: r.before_seq })),
    };
  }

  async clearVectorDeletes(done: VectorDeletes): Promise<void> {
    await this.run("DELETE FROM vector_id_deletes WHERE id = ANY($1::text[])", [done.ids]);
    await this.run("DELETE FROM vector_deletes WHERE id = ANY($1::bigint[])", [done.before.map((b) => b.id)]);
  }

  async pendingErrorVectorDeletes(limit: number): Promise<string[]> {
    const rows = await this.run<{ id: string }>("SELECT id FROM error_vector_deletes ORDER BY created_at LIMIT $1", [
      limit,
    ]);
    return rows.map((r) => r.id);
  }

  async clearErrorVectorDeletes(ids: readonly string[]): Promise<void> {
    await this.run("DELETE FROM error_vector_deletes WHERE id = ANY($1::text[])", [ids]);
  }

  async replaceMessageContent(session: string, id: string, content: string): Promise<boolean> {
    return this.begin(async (tx) => {
      const rows = (await tx.unsafe(
        "UPDATE messages SET content = $3, search = $4::tsvector WHERE id = $1 AND session_id = $2 RETURNING seq, recent",
        [id, session, content, tsvectorText(content)],
      )) as { seq: bigint; recent: boolean }[];
      const row = rows[0];
      if (!row) return false;
      // The drain upserts the vector by message id: queueing the message again replaces the old one.
      if (row.recent) await tx.unsafe("INSERT INTO embed_queue (seq) VALUES ($1) ON CONFLICT DO NOTHING", [row.seq]);
      return true;
    });
  }

  async requeueRecent(): Promise<number> {
    return this.begin(async (tx) => {
      const added = await tx.unsafe(
        "INSERT INTO embed_queue (seq) SELECT seq FROM messages WHERE recent ON CONFLICT DO NOTHING RETURNING seq",
      );
      await tx.unsafe("UPDATE embed_queue SET next_try_at = 0, attempts = 0, last_error = NULL");
      return added.length;
    });
  }

  async makeQueueDue(): Promise<void> {
    await this.run("UPDATE embed_queue SET next_try_at = 0");
  }

  async importFile(reader: string, source: string, path: string): Promise<ImportFileState | undefined> {
    const r = (
      await this.run<{ size: bigint; mtime_ns: bigint; offset: bigint; head: string; state: string }>(
        `SELECT size, mtime_ns, "offset", head, state FROM import_files WHERE reader = $1 AND source = $2 AND path = $3`,
        [reader, source, path],
      )
    )[0];
    return r
      ? { size: Number(r.size), mtimeNs: BigInt(r.mtime_ns), offset: Number(r.offset), head: r.head, state: r.state }
      : undefined;
  }

  async putImportFile(reader: string, source: string, path: string, s: ImportFileState, now: bigint): Promise<void> {
    await this.run(
      `INSERT INTO import_files (reader, source, path, size, mtime_ns, "offset", head, state, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (reader, source, path) DO UPDATE SET size = $4, mtime_ns = $5, "offset" = $6, head = $7, state = $8,
         updated_at = $9`,
      [reader, source, path, s.size, s.mtimeNs, s.offset, s.head, s.state, now],
    );
  }
}

/** The shared archive at `url` (migrated, as openPgArchive opens it). */
export async function openPgSharedArchive(url: string, options: PgOpenOptions = {}): Promise<PgSharedArchive> {
  const base = await openPgArchive(url, options);
  return new PgSharedArchive(base.sql, base.locks);
}

/**
 * A session removed or a summary dropped (the session's messages may be gone already: no tombstone) still moves the
 * removal count, so that other hosts check their caches of it (the tombstones' trigger counts the rest).
 */
async function countRemoval(tx: SQL): Promise<void> {
  await tx.unsafe("UPDATE removal_count SET n = n + 1");
}
