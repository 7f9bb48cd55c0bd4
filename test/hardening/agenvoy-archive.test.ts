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

/** Agenvoy's schema statements at its start (CREATE … IF NOT EXISTS), as it runs them on whatever history.db is there. */
const AGENVOY_START = `
CREATE TABLE IF NOT EXISTS messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL,
  send_at INTEGER NOT NULL DEFAULT 0, role TEXT NOT NULL, content TEXT NOT NULL, sender TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS idx_messages_session_send_at ON messages(session_id, send_at);
CREATE TABLE IF NOT EXISTS session_meta (session_id TEXT PRIMARY KEY, start_at INTEGER NOT NULL DEFAULT 0);
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts5 USING fts5(role, content, content=messages, content_rowid=id);
CREATE TRIGGER IF NOT EXISTS trigger_messages_after_insert AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts5(rowid, role, content) VALUES (new.id, new.role, new.content);
END;
CREATE TRIGGER IF NOT EXISTS trigger_messages_after_delete AFTER DELETE ON messages BEGIN
  INSERT INTO messages_fts5(messages_fts5, rowid, role, content) VALUES ('delete', old.id, old.role, old.content);
END;`;

test("Agenvoy started again on the home after the adoption: memvoy still writes and removes, Agenvoy's reset removes nothing", async () => {
  const home = agenvoyHome();
  expect((await cli(["doctor", "--repair", "--yes"], { home })).code).toBe(0);
  const agenvoyStarts = () => {
    const db = new Database(join(home, ".store", "history.db"));
    db.exec(AGENVOY_START);
    db.close();
  };
  agenvoyStarts();
  const added = await cli(["add", "s2", "--role", "assistant", "--content", "a reply after Agenvoy started"], { home });
  expect(added.code, added.stderr).toBe(0);
  agenvoyStarts(); // its next start changes nothing more
  const db = new Database(join(home, ".store", "history.db"));
  // Agenvoy's reset of a session (its archive rows by session_id) is refused; its own inserts fail on memvoy's ids.
  expect(() => db.run("DELETE FROM messages WHERE session_id = 's1'")).toThrow(/memvoy reset, rm or rm-message/);
  expect(() =>
    db.run("INSERT INTO messages (session_id, send_at, role, content, sender) VALUES ('s1', 1, 'user', 'x', '')"),
  ).toThrow();
  db.close();
  const count = async (s: string) =>
    JSON.parse((await cli(["history", s, "--all", "--json"], { home })).stdout).messages.length as number;
  expect(await count("s1")).toBe(6);
  expect(await count("s2")).toBe(2);
  const id = JSON.parse((await cli(["history", "s1", "--json"], { home })).stdout).messages[0].id as string;
  const removed = await cli(["rm-message", id], { home });
  expect(removed.code, removed.stderr).toBe(0);
  expect(await count("s1")).toBe(5);
  const reset = await cli(["reset", "s2"], { home });
  expect(reset.code, reset.stderr).toBe(0);
  expect(await count("s2")).toBe(0);
});
