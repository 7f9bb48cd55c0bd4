// The administration reads of the PostgreSQL archive (archive-admin-port.ts): stats, usage, leases,
// the schema version and the change stamp the terminal UI polls.
import type { SQL } from "bun";
import { usageDayOf, usageSumOf, type UsageDayRow, type UsageSumRow } from "../ports/usage-rows.ts";
import { PG_MIGRATIONS } from "./migrations/index.ts";
import { migratePg } from "./pg-migrate.ts";
import { againIfEnded } from "./pg-gone.ts";
import type { ArchiveAdminPort, LeaseRow, TierCount, UsageByDay, UsageSum } from "../ports/archive-admin-port.ts";

const SERVER_NS = "((extract(epoch from clock_timestamp()) * 1000000)::bigint * 1000)";
type Num = bigint | number | string;

export class PgArchiveAdmin implements ArchiveAdminPort {
  constructor(private readonly sql: SQL) {}

  private run<T = Record<string, unknown>>(text: string, args: unknown[] = []): Promise<T[]> {
    return againIfEnded(() => this.sql.unsafe(text, args as never[]) as Promise<T[]>);
  }

  async tierCounts(): Promise<{ recent: TierCount; archived: TierCount }> {
    const rows = await this.run<{ recent: boolean; n: Num; b: Num }>(
      "SELECT recent, count(*) AS n, coalesce(sum(octet_length(content)), 0) AS b FROM messages GROUP BY recent",
    );
    const out = { recent: { messages: 0, bytes: 0 }, archived: { messages: 0, bytes: 0 } };
    for (const r of rows) out[r.recent ? "recent" : "archived"] = { messages: Number(r.n), bytes: Number(r.b) };
    return out;
  }

  async usageSums(): Promise<UsageSum[]> {
    const rows = await this.run<UsageSumRow>(
      `SELECT purpose, model, count(*) AS calls, sum(input_tokens) AS i, sum(output_tokens) AS o FROM llm_usage
       GROUP BY purpose, model ORDER BY purpose, model`,
    );
    return rows.map(usageSumOf);
  }

  async usageByDay(since: bigint): Promise<UsageByDay[]> {
    const rows = await this.run<UsageDayRow>(
      `SELECT to_char(to_timestamp(at / 1000000000) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, model, session_id,
         count(*) AS calls, sum(input_tokens) AS input, sum(output_tokens) AS output
       FROM llm_usage WHERE at >= $1 GROUP BY day, model, session_id ORDER BY day DESC, model, session_id`,
      [since],
    );
    return rows.map(usageDayOf);
  }

  async databaseBytes(): Promise<number> {
    const [r] = await this.run<{ n: Num }>("SELECT pg_database_size(current_database()) AS n");
    return Number(r!.n);
  }

  async leases(): Promise<LeaseRow[]> {
    const rows = await this.run<{ job: string; session_id: string; holder: string; expires_at: bigint; now: bigint }>(
      `SELECT job, session_id, holder, expires_at, ${SERVER_NS} AS now FROM job_leases ORDER BY job, session_id`,
    );
    return rows.map((r) => ({
      job: r.job,
      session: r.session_id,
      holder: r.holder,
      expiresAt: BigInt(r.expires_at),
      serverNow: BigInt(r.now),
    }));
  }

  async expireLease(job: string, session: string): Promise<void> {
    await this.run("DELETE FROM job_leases WHERE job = $1 AND session_id = $2", [job, session]);
  }

  async schemaVersion(): Promise<{ version: number; known: number }> {
    const known = PG_MIGRATIONS.length;
    const [t] = await this.run<{ t: string | null }>("SELECT to_regclass('memvoy_schema')::text AS t");
    if (!t?.t) return { version: 0, known };
    const [r] = await this.run<{ version: number }>("SELECT version FROM memvoy_schema");
    return { version: r ? Number(r.version) : 0, known };
  }

  migrate(): Promise<number> {
    return migratePg(this.sql);
  }

  async changeStamp(): Promise<string> {
    const [r] = await this.run<{ stamp: string }>(
      `SELECT concat_ws(':',
         (SELECT count(*) || '.' || coalesce(sum(message_count), 0) || '.' || coalesce(max(updated_at), 0) FROM sessions),
         (SELECT coalesce(max(seq), 0) FROM messages),
         (SELECT coalesce(sum(start_seq), 0) FROM message_meta),
         (SELECT count(*) || '.' || coalesce(sum(version), 0) FROM session_summaries),
         (SELECT count(*) || '.' || coalesce(max(updated_at), 0) || '.' || coalesce(max(seq), 0) FROM error_records)
       ) AS stamp`,
    );
    return r!.stamp;
  }
}
