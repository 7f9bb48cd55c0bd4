// The same-runtime limit of `memvoy search --json`: open the database, run the keyword window SQL and
// fetch the rows, print them as JSON; nothing else. Compiled like memvoy (bench/cli-search.ts).
import { Database } from "bun:sqlite";
import { join } from "node:path";

const [home, match] = process.argv.slice(2) as [string, string];
const db = new Database(join(home, ".store", "history.db"), { readonly: true, safeIntegers: true });
const seqs = (
  db.query("SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rowid DESC LIMIT 500").values(match) as [
    bigint,
  ][]
).map((r) => String(r[0]));
const rows = db
  .query(
    "SELECT id, session_id, role, content, send_at FROM messages WHERE seq IN (SELECT CAST(value AS INTEGER) FROM json_each(?)) ORDER BY seq DESC LIMIT 10",
  )
  .all(JSON.stringify(seqs)) as { send_at: bigint }[];
process.stdout.write(JSON.stringify({ hits: rows.map((r) => ({ ...r, send_at: String(r.send_at) })) }, null, 2) + "\n");
