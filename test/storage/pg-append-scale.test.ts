// memvoy_append's work grows linearly with the batch: the rows its plans touch (counted by auto_explain,
// not timed) for 4n rows stay near 4 times those for n, with custom and generic plans, fresh and repeated.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { ArchivePort } from "../../src/storage/ports/archive-port.ts";
import { openPgArchive } from "../../src/storage/postgres/open-pg-archive.ts";
import { describePostgres, postgresBin, startPostgres, type PgServer } from "../fixture/postgres-server.ts";

interface PlanNode {
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Join Filter"?: number;
  Plans?: PlanNode[];
}

/** Rows produced or filtered out by a plan's nodes, over all their loops (EXPLAIN gives per-loop averages). */
function touched(p: PlanNode): number {
  const own = (p["Actual Rows"] ?? 0) + (p["Rows Removed by Filter"] ?? 0) + (p["Rows Removed by Join Filter"] ?? 0);
  return own * (p["Actual Loops"] ?? 0) + (p.Plans ?? []).reduce((s, c) => s + touched(c), 0);
}

const column = (n: number, expr: string, type: string) =>
  `ARRAY(SELECT ${expr} FROM generate_series(1, ${n}) g)::${type}[]`;

/** One batch of n rows: every other one untimed, each idempotency key twice. */
const append = (session: string, n: number) =>
  `SELECT count(*) FROM memvoy_append(1, '${session}', 1, true, ${column(n, `'${session}-' || g`, "text")},
    ${column(n, "'user'", "text")}, ${column(n, "'line ' || g", "text")}, ${column(n, "g", "bigint")},
    ${column(n, "NULL", "text")}, ${column(n, `'k' || (g % ${n / 2})`, "text")}, ${column(n, "'line'", "text")},
    ${column(n, "g % 2 = 0", "boolean")});`;

/** The rows touched by appending n new rows to `session` and then the same n again (all already stored). */
function work(url: string, session: string, n: number, planMode: string): number {
  const script = [
    "LOAD 'auto_explain';",
    "SET auto_explain.log_min_duration = 0;",
    "SET auto_explain.log_analyze = on;",
    "SET auto_explain.log_timing = off;",
    "SET auto_explain.log_nested_statements = on;",
    "SET auto_explain.log_format = json;",
    "SET auto_explain.log_level = notice;",
    `SET plan_cache_mode = ${planMode};`,
    append(session, n),
    append(session, n),
  ].join("\n");
  const psql = join(postgresBin()!, "psql");
  const r = Bun.spawnSync([psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", url, "-c", script], { stderr: "pipe" });
  const log = r.stderr.toString();
  if (r.exitCode !== 0) throw new Error(log);
  const plans = log.split(/^NOTICE: {2}duration: .*plan:$/m).slice(1);
  expect(plans.length).toBeGreaterThan(4); // each call's own statements, not only the outer SELECT
  return plans.reduce((s, p) => s + touched(JSON.parse(p.split(/^CONTEXT: /m)[0]!).Plan as PlanNode), 0);
}

describePostgres()("memvoy_append on PostgreSQL", () => {
  let server: PgServer;
  let url: string;
  let archive: ArchivePort;
  beforeAll(async () => {
    server = await startPostgres();
    url = await server.createDatabase("append_scale");
    archive = await openPgArchive(url);
  }, 180_000);
  afterAll(async () => {
    await archive?.close();
    await server?.stop();
  });

  for (const planMode of ["force_custom_plan", "force_generic_plan"])
    test(`a batch of 4n rows touches about 4 times the rows of a batch of n (${planMode})`, async () => {
      const small = work(url, `${planMode}-1k`, 1000, planMode);
      const large = work(url, `${planMode}-4k`, 4000, planMode);
      expect(large / small).toBeLessThan(6);
      const session = `${planMode}-4k`;
      expect((await archive.listMessages(session)).length).toBe(2000);
      const untimed = await archive.untimedSeqs(session);
      const stored = await archive.listMessages(session);
      expect(stored.filter((m) => untimed.has(m.seq)).map((m) => m.id)).toEqual(
        stored.filter((m) => Number(m.id.split("-").at(-1)) % 2 === 0).map((m) => m.id),
      );
    }, 120_000);
});
