// Search filters in shared mode, as in embedded mode: a semantic search for one sender's messages is held to
// that sender's ids, so they are found behind any number of closer messages of others.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openSharedHome } from "../../src/app/shared/open-shared.ts";
import { removeTempHomes, tempHome } from "../fixture/home.ts";
import { describePostgres, startPostgres, type PgServer } from "../fixture/postgres-server.ts";
import { startS3Server, type S3Server } from "../fixture/s3-server.ts";

const describe = describePostgres();

describe("search filters in shared mode", () => {
  let pg: PgServer;
  let s3: S3Server;
  beforeAll(async () => {
    [pg, s3] = await Promise.all([startPostgres(), startS3Server()]);
  }, 180_000);
  afterAll(async () => {
    await Promise.all([pg?.stop(), s3?.stop()]);
    removeTempHomes();
  }, 60_000);

  test("--sender finds the sender's message behind a hundred closer ones of others", async () => {
    const home = tempHome();
    writeFileSync(join(home, "config.toml"), s3.vectorsToml("sender"));
    const env = { ...s3.env, MEMVOY_ARCHIVE_URL: await pg.createDatabase("sender") };
    const h = await openSharedHome({ home, env });
    try {
      const bobs = Array.from({ length: 120 }, (_, i) => ({
        role: "user" as const,
        sender: "bob",
        content: `the database migration failed on step ${i} with a lock timeout`,
      }));
      const alices = [
        { role: "user" as const, sender: "Alice", content: "our database upgrade had trouble with locks" },
      ];
      await h.add("s", [...bobs, ...alices]);
      // Every message of bob's is closer to it than alice's.
      const query = "database trouble with lock timeout";
      const all = await h.search({ query, match: "semantic", limit: 200 });
      expect(all.hits.at(-1)?.message.sender).toBe("Alice");
      for (const match of ["semantic", "hybrid"] as const) {
        const found = await h.search({ query, match, sender: "alice" });
        expect({ match, found: found.hits.map((x) => x.message.content).sort() }).toEqual({
          match,
          found: alices.map((m) => m.content),
        });
      }
      expect((await h.search({ query, match: "semantic", sender: "carol" })).hits).toEqual([]);
    } finally {
      await h.close();
    }
  }, 120_000);
});
