// Search filters in shared mode, as in embedded mode: a semantic search for one sender's messages is held to
// that sender's ids, so they are found behind any number of closer messages of others.
import { expect, test } from "bun:test";
import { openSharedHome } from "../../src/app/shared/open-shared.ts";
import { describePostgres } from "../fixture/postgres-server.ts";
import { sharedBackend } from "../fixture/shared-backend.ts";

const describe = describePostgres();

describe("search filters in shared mode", () => {
  const shared = sharedBackend();

  test("--sender finds the sender's message behind a hundred closer ones of others", async () => {
    const home = shared.home("sender");
    const env = await shared.env("sender");
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
