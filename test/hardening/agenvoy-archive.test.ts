// A home laid out by Agenvoy: history.json without ids, summary.json and .summary_cursor, and Agenvoy's own
// .store/history.db (its messages table, message_meta cutoffs, FTS5 table). Commands name the file and point to
// doctor without changing it; doctor --repair moves it aside and adopts every message, none twice.
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, removeTempHomes, tempHome } from "../fixture/home.ts";

afterAll(removeTempHomes);

const BASE = 1_767_225_600n; // 2026-01-01T00:00:00Z
const ns = (s: bigint) => s * 1_000_000_000n;

function agenvoyHome(): string {
  const home = tempHome();
  const session = (id: string, records: unknown[]) => {
    mkdirSync(join(home, "sessions", id), { recursive: true });
    writeFileSync(
      join(home, "sessions", id, "history.json"),
      JSON.stringify(records, (_, v) => (typeof v === "bigint" ? Number(v) : v)),
    );
  };
  // s1: the window Agenvoy left after compaction (a legacy header, ns times, an untimed reply, content parts).
  session("s1", [
    { role: "user", content: "---\n當前時間: 2026-01-01 00:00:00\n工作目錄: /w\n---\nhow do we deploy kubernetes?" },
    { role: "assistant", content: "use helm charts" },
    { role: "user", content: "and rollbacks?", sendAt: ns(BASE + 3600n), sender: "alice" },
    { role: "assistant", content: [{ type: "text", text: "helm rollback works" }], sendAt: ns(BASE + 3601n) },
  ]);
  writeFileSync(join(home, "sessions", "s1", "summary.json"), JSON.stringify({ key_decisions: ["要：use helm"] }));
  writeFileSync(join(home, "sessions", "s1", ".summary_cursor"), "2026-01-01 00:00:00");
  session("s2", [{ role: "user", content: "only in history.json", sendAt: ns(BASE + 86_400n) }]);
  mkdirSync(join(home, ".store"));
  const db = new Database(join(home, ".store", "history.db"));
  db.run(`CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL,
    send_at INTEGER NOT NULL DEFAULT 0, role TEXT NOT NULL, content TEXT NOT NULL, sender TEXT NOT NULL DEFAULT '')`);
  db.run("CREATE TABLE message_meta (session_id TEXT PRIMARY KEY, start_at INTEGER NOT NULL DEFAULT 0)");
  db.run(
    "CREATE VIRTUAL TABLE messages_fts5 USING fts5(role, content, content=messages, content_rowid=id, tokenize='trigram')",
  );
  const add = db.prepare("INSERT INTO messages (session_id, send_at, role, content, sender) VALUES (?, ?, ?, ?, ?)");
  // Compacted out of s1's history.json (before its cutoff); one repeats a later text word for word.
  add.run("s1", ns(BASE - 86_400n), "user", "how to vacuum postgres at night?", "alice");
  add.run("s1", ns(BASE - 86_399n), "assistant", "use helm charts", "");
  // The window, dual-written.
  add.run("s1", ns(BASE), "user", "how do we deploy kubernetes?", "");
  add.run("s1", ns(BASE) + 1n, "assistant", "use helm charts", "");
  add.run("s1", ns(BASE + 3600n), "user", "and rollbacks?", "alice");
  add.run("s1", ns(BASE + 3601n), "assistant", "helm rollback works", "");
  // A session whose history.json is gone.
  add.run("s3", ns(BASE - 5000n), "user", "a session left only in the archive", "");
  db.run("INSERT INTO message_meta VALUES ('s1', ?)", [ns(BASE)]);
  db.close();
  return home;
}

test("an Agenvoy archive is refused by name and left as it is; doctor --repair adopts every message once", async () => {
  const home = agenvoyHome();
  const file = join(home, ".store", "history.db");
  const before = readFileSync(file);
  const other = await cli(["sessions"], { home });
  expect(other.code).toBe(1);
  expect(other.stderr).toContain(`${file} is not memvoy's archive (an Agenvoy archive)`);
  expect(other.stderr).toContain("memvoy doctor --repair");
  expect(readFileSync(file).equals(before)).toBe(true);

  const check = await cli(["doctor"], { home });
  expect(check.code).toBe(1);
  expect(check.stdout).toContain("it holds 7 message(s); 3 of them are in no history.json");
  expect(check.stdout).toContain("adopting it loses nothing");
  expect(readFileSync(file).equals(before)).toBe(true);

  const fixed = await cli(["doctor", "--repair", "--yes"], { home });
  expect(fixed.code, fixed.stderr).toBe(0);
  expect(readdirSync(join(home, ".store")).some((f) => f.startsWith("history.db.agenvoy-"))).toBe(true);

  const all = async (s: string) =>
    (
      JSON.parse((await cli(["history", s, "--all", "--json"], { home })).stdout).messages as {
        content: string;
        tier: string;
        sendAt: string;
        sender?: string;
      }[]
    ).map((m) => `${m.tier} ${m.sendAt} ${m.sender ?? "-"} ${m.content}`);
  expect(await all("s1")).toEqual([
    "archive 2025-12-31T00:00:00.000000000Z alice how to vacuum postgres at night?",
    "archive 2025-12-31T00:00:01.000000000Z - use helm charts",
    "recent 2026-01-01T00:00:00.000000000Z - how do we deploy kubernetes?",
    "recent 2026-01-01T00:00:00.000000001Z - use helm charts",
    "recent 2026-01-01T01:00:00.000000000Z alice and rollbacks?",
    "recent 2026-01-01T01:00:01.000000000Z - helm rollback works",
  ]);
  expect(await all("s2")).toEqual(["recent 2026-01-02T00:00:00.000000000Z - only in history.json"]);
  expect(await all("s3")).toEqual(["archive 2025-12-31T22:36:40.000000000Z - a session left only in the archive"]);
  // The adopted archive is searched as the archive; the summary and cursor carry on.
  const hits = JSON.parse((await cli(["search", "vacuum", "--json"], { home })).stdout).hits;
  expect(hits.map((h: { source: string; content: string }) => `${h.source} ${h.content}`)).toEqual([
    "archive how to vacuum postgres at night?",
  ]);
  const s3 = JSON.parse((await cli(["search", "left only", "--session", "s3", "--json"], { home })).stdout).hits;
  expect(s3).toHaveLength(1);
  const summary = await cli(["summary", "s1"], { home });
  expect(summary.stdout).toContain("Do: use helm");
  expect(summary.stdout).toContain("2026-01-01 00:00:00");
  expect((await cli(["doctor"], { home })).stdout).toContain("all good");
});
