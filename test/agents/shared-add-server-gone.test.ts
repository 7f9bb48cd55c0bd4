// add on a shared archive when the PostgreSQL connection goes after the messages are stored (while the recent
// tier is being compacted): the command says they are stored instead of failing as if nothing was, since a retry
// without idempotency keys would store them twice.
import { expect, test } from "bun:test";
import { cli, waitFor } from "../fixture/home.ts";
import { describePostgres } from "../fixture/postgres-server.ts";
import { sharedBackend } from "../fixture/shared-backend.ts";

const describe = describePostgres();
const lines = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) => JSON.stringify({ role: "user", content: `${tag} ${i} ${"x".repeat(300)}` })).join(
    "\n",
  );

describe("the server gone after an add stored its messages", () => {
  const shared = sharedBackend();

  test("the connection cut during the compaction after the append: stored, said so, exit 0", async () => {
    const env = await shared.env("gone");
    const url = env.MEMVOY_ARCHIVE_URL;
    const home = shared.home("gone", "\n[limits]\nmax_history_bytes = 4096\n");
    expect((await cli(["add", "s"], { home, env, stdin: lines("first", 30) })).code).toBe(0);

    // Hold the session's compaction row, so the next add waits there, after its append committed.
    const holder = new Bun.SQL(url, { max: 1 });
    const admin = new Bun.SQL(url, { max: 1 });
    try {
      const held = await holder.reserve();
      await held`BEGIN`;
      await held`SELECT 1 FROM message_meta WHERE session_id = 's' FOR UPDATE`;
      const [{ pid }] = await held`SELECT pg_backend_pid() AS pid`;
      const adding = cli(["add", "s"], { home, env, stdin: lines("second", 15) });
      await waitFor(
        async () =>
          (await admin`SELECT 1 FROM pg_stat_activity WHERE datname = 'gone' AND wait_event_type = 'Lock'`).length > 0,
        60_000,
        "the add waiting on the compaction row",
      );
      await admin`SELECT pg_terminate_backend(a.pid) FROM pg_stat_activity a
        WHERE a.datname = 'gone' AND a.pid NOT IN (pg_backend_pid(), ${pid})`;
      await held`ROLLBACK`;
      held.release();
      const r = await adding;
      expect(r.stdout.trim()).toBe("added 15 messages to s");
      expect(r.stderr).toContain("the messages are stored, but keeping the recent tier to its size");
      expect(r.code).toBe(0);
    } finally {
      await Promise.all([holder.close(), admin.close()]);
    }
    const all = await cli(["history", "s", "--all", "--json"], { home, env });
    expect(JSON.parse(all.stdout).messages).toHaveLength(45);
    // The next write compacts and rewrites the cache as usual.
    expect((await cli(["add", "s", "--role", "user", "--content", "third"], { home, env })).code).toBe(0);
    const context = await cli(["history", "s", "--json"], { home, env });
    expect(JSON.parse(context.stdout).messages.at(-1).content).toBe("third");
  }, 180_000);
});
