// The substring matches on PostgreSQL (the recent tier's, and the archived tier's for symbol pieces): a trigram index
// on the recent tier where pg_trgm can be created (the archived tier's is a scan), and the same answers without it
// (a role that may create tables but not extensions migrates all the same).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { openPgArchive } from "../../src/storage/postgres/open-pg-archive.ts";
import { PG_MIGRATIONS } from "../../src/storage/postgres/migrations/index.ts";
import { describePostgres, startPostgres, type PgServer } from "../fixture/postgres-server.ts";

const describe = describePostgres();
const NOW = 1_790_000_000_000_000_000n;

describe("substring match of recent messages on PostgreSQL", () => {
  let pg: PgServer;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 180_000);
  afterAll(async () => pg?.stop(), 60_000);

  /** Whether the trigram index exists, and the schema version (every migration ran). */
  const indexed = async (url: string) => {
    const sql = new SQL(url, { max: 1 });
    try {
      const rows = await sql`SELECT 1 FROM pg_indexes WHERE indexname = 'messages_recent_trgm'`;
      const [v] = (await sql`SELECT version FROM memvoy_schema`) as { version: number }[];
      return { index: rows.length === 1, version: Number(v!.version) };
    } finally {
      await sql.close();
    }
  };

  const holding = async (url: string) => {
    const a = await openPgArchive(url, { max: 1 });
    try {
      await a.appendMessages(
        "s",
        [
          { id: "a", role: "user", content: "How do I roll out Kubernetes?", sendAt: NOW },
          { id: "b", role: "assistant", content: "run the deploy script", sendAt: NOW + 1n },
        ],
        { now: NOW },
      );
      await a.appendMessages(
        "old",
        [
          { id: "c", role: "user", content: "x => y, keep KEYS in .ENV", sendAt: NOW },
          { id: "d", role: "user", content: "keys in .env; a => b", sendAt: NOW + 1n },
          { id: "e", role: "user", content: "the recent one: c => d in .env", sendAt: NOW + 2n },
        ],
        { now: NOW },
      );
      const [, , recent] = (await a.listMessages("old")).map((m) => m.seq);
      await a.archiveBefore("old", recent!, NOW + 2n, NOW);
      return {
        netes: (await a.recentHolding(["netes"], {}, 10)).map((m) => m.id),
        ploy: (await a.recentHolding(["ploy", "scr"], { session: "s" }, 10)).map((m) => m.id),
        arrow: (await a.archivedHolding(["=>"], {}, 10)).map((m) => m.id),
        env: (await a.archivedHolding([".env", "keys"], { session: "old" }, 1)).map((m) => m.id),
      };
    } finally {
      await a.close();
    }
  };

  test("with pg_trgm: the recent tier's index is there", async () => {
    const url = await pg.createDatabase("trgm");
    expect(await holding(url)).toEqual({ netes: ["a"], ploy: ["b"], arrow: ["d", "c"], env: ["d"] });
    expect(await indexed(url)).toEqual({ index: true, version: PG_MIGRATIONS.length });
  }, 60_000);

  test("a role that cannot create the extension: migrated without the index, the same matches", async () => {
    const url = await pg.createDatabase("plain");
    const admin = new SQL(url, { max: 1 });
    try {
      await admin.unsafe("CREATE ROLE plain LOGIN");
      await admin.unsafe("GRANT CREATE, USAGE ON SCHEMA public TO plain");
    } finally {
      await admin.close();
    }
    const asPlain = url.replace(/\/\/[^@]+@/, "//plain@");
    expect(await holding(asPlain)).toEqual({ netes: ["a"], ploy: ["b"], arrow: ["d", "c"], env: ["d"] });
    expect(await indexed(url)).toEqual({ index: false, version: PG_MIGRATIONS.length });
  }, 60_000);
});
