// The same-runtime limit of `memvoy search --json`: open the database, run the keyword window SQL and
// fetch the window's rows (what memvoy ranks; the raw FTS5 contender of bench/keyword.ts runs the same
// SQL), print the newest 10 as JSON; nothing else. Compiled like memvoy (bench/cli-search.ts).
// With needles after the window size, it also runs the recent tier's substring scan as memvoy runs it on a
// small recent tier (every needle with LIKE over the covering index, newest first, 50 rows at most).
import { Database } from "bun:sqlite";
import { join } from "node:path";

const [home, match, size, ...needles] = process.argv.slice(2) as [string, string, string, ...string[]];
const db = new Database(join(home, ".store", "history.db"), { readonly: true, safeIntegers: true });
const seqs = (
  db
    .query("SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rowid DESC LIMIT ?")
    .values(match, Number(size)) as [bigint][]
).map((r) => String(r[0]));
const rows = db
  .query(
    "SELECT seq, id, session_id, role, content, send_at, sender, recent FROM messages WHERE seq IN (SELECT CAST(value AS INTEGER) FROM json_each(?))",
  )
  .all(JSON.stringify(seqs)) as { seq: bigint }[];
if (needles.length > 0) {
  const like = needles.map(() => " AND content LIKE ? ESCAPE '\\'").join("");
  const recent = db
    .query(
      `SELECT seq, id, session_id, role, content, send_at, sender, recent FROM messages WHERE seq IN (SELECT seq FROM messages INDEXED BY messages_recent_text WHERE recent = 1${like} ORDER BY seq DESC LIMIT 50)`,
    )
    .all(...needles.map((n) => `%${n.replace(/[\\%_]/g, (c) => "\\" + c)}%`)) as { seq: bigint }[];
  const seen = new Set(rows.map((r) => r.seq));
  for (const r of recent) if (!seen.has(r.seq)) rows.push(r);
}
rows.sort((a, b) => (a.seq < b.seq ? 1 : -1));
const text = (_k: string, v: unknown) => (typeof v === "bigint" ? String(v) : v);
const out = JSON.stringify({ hits: rows.slice(0, 10) }, text, 2) + "\n";
// Printed the cheapest way this runtime offers, as memvoy prints: creating process.stdout loads Node's stream
// modules, about half of this program's time. LIMIT_PRINT=process.stdout prints as this limit did before.
if (process.env.LIMIT_PRINT === "process.stdout") process.stdout.write(out);
else await Bun.write(Bun.stdout, out);
// Closed as memvoy closes its own: a process that exits with a connection to the home open makes every other
// connection to it (the daemon's) see the database as changed, and drop its page cache and what it derived.
db.close();
