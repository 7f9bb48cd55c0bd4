// A stored message whose text grew (an imported reply streamed across two import passes): the new text in
// the archive and in the keyword index (both indexes while an upgrade runs), its vector queued again.
import type { Database } from "bun:sqlite";
import { searchForm } from "../../shared/search-form.ts";
import { deleteFtsRows, ftsHasSession, sessionToken } from "./fts-upgrade.ts";
import { trigramWriter } from "./substring-index.ts";
import { tokenCountWriter } from "./index-tokens.ts";

/** Replace one message's content; false when the session holds no message with this id. */
export function replaceMessageContent(db: Database, session: string, id: string, content: string): boolean {
  const row = db.query("SELECT seq, recent FROM messages WHERE id = ? AND session_id = ?").get(id, session) as {
    seq: bigint;
    recent: bigint | number;
  } | null;
  if (!row) return false;
  db.query("UPDATE messages SET content = ? WHERE seq = ?").run(content, row.seq);
  // While an index upgrade runs, a row it has copied already (seq <= its cursor) is copied again here.
  const upgrading = db.query("SELECT 1 FROM sqlite_master WHERE name = 'messages_fts_next'").get() !== null;
  const cursor = upgrading
    ? (db.query("SELECT cursor FROM fts_upgrade LIMIT 1").get() as { cursor: bigint } | null)?.cursor
    : undefined;
  const copied = cursor !== undefined && row.seq <= cursor;
  deleteFtsRows(db, "?", row.seq);
  const body = searchForm(content);
  if (ftsHasSession(db))
    db.query("INSERT INTO messages_fts (rowid, body, sess) VALUES (?, ?, ?)").run(row.seq, body, sessionToken(session));
  else db.query("INSERT INTO messages_fts (rowid, body) VALUES (?, ?)").run(row.seq, body);
  tokenCountWriter(db)(row.seq);
  if (copied)
    db.query("INSERT INTO messages_fts_next (rowid, body, sess) VALUES (?, ?, ?)").run(
      row.seq,
      body,
      sessionToken(session),
    );
  trigramWriter(db)(row.seq, content, Number(row.recent) === 1);
  // The drain upserts the vector by message id: queueing the message again replaces the old one.
  if (Number(row.recent) === 1) db.query("INSERT OR IGNORE INTO embed_queue (seq) VALUES (?)").run(row.seq);
  return true;
}
