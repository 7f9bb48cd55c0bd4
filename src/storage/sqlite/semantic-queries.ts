// SQL for semantic and hybrid search: participants and session neighbours.
import type { Database } from "bun:sqlite";
import type { StoredMessage } from "../../shared/message.ts";
import { toStored, M_MESSAGE_COLUMNS } from "./messages-repo.ts";
import { writeStamp } from "./write-stamp.ts";
import { andFilter } from "./message-filter-sql.ts";
import type { SqlArg } from "./sql-where.ts";
import type { MessageFilter } from "../../shared/time-filter.ts";

type Row = Parameters<typeof toStored>[0];
const COLS = M_MESSAGE_COLUMNS;

/** The senders last read per connection, by session ("" for all), until the database is written. */
const sendersRead = new WeakMap<Database, { stamp: string; bySession: Map<string, string[]> }>();

/**
 * Distinct senders (of one session, or of all), walked through the sender index one name at a time, so
 * the cost grows with the number of names, not of messages. Kept per connection until the next write (a
 * search asks for them each time: up to 2,000 index probes on a home of many senders).
 */
export function knownSenders(db: Database, session?: string, limit = 500): string[] {
  const stamp = writeStamp(db);
  let kept = sendersRead.get(db);
  if (kept?.stamp !== stamp) sendersRead.set(db, (kept = { stamp, bySession: new Map() }));
  const key = `${session ?? ""}\0${limit}`;
  let senders = kept.bySession.get(key);
  if (!senders) kept.bySession.set(key, (senders = readSenders(db, session, limit)));
  return senders;
}

function readSenders(db: Database, session: string | undefined, limit: number): string[] {
  const next = db.query("SELECT min(sender) AS s FROM messages WHERE sender IS NOT NULL AND sender > ?");
  const inSession = db.query(
    "SELECT 1 FROM messages WHERE sender IS NOT NULL AND sender = ? AND session_id = ? LIMIT 1",
  );
  const out: string[] = [];
  let after = "";
  for (let i = 0; i < limit * 4 && out.length < limit; i++) {
    const row = next.get(after) as { s: string | null } | null;
    if (!row?.s) break;
    after = row.s;
    if (session === undefined || inSession.get(after, session)) out.push(after);
  }
  return out;
}

/**
 * For each hit, up to `before` recent messages before its seq and `after` after it, in the same session, in
 * order: one statement for every hit (the hits travel as JSON). Each neighbour is one index probe (the n-th
 * seq before or after the hit), then one row by seq.
 */
export function recentNeighboursOf(
  db: Database,
  hits: readonly { session: string; seq: bigint }[],
  before: number,
  after: number,
): StoredMessage[][] {
  const out = hits.map((): StoredMessage[] => []);
  if (hits.length === 0 || before + after <= 0) return out;
  const nth = (cmp: "<" | ">", order: "DESC" | "ASC", i: number) =>
    `SELECT h.k, (SELECT seq FROM messages WHERE session_id = h.sess AND recent = 1 AND seq ${cmp} h.at
                  ORDER BY seq ${order} LIMIT 1${i > 0 ? ` OFFSET ${i}` : ""}) FROM h`;
  const picks = [
    ...Array.from({ length: Math.max(0, before) }, (_, i) => nth("<", "DESC", i)),
    ...Array.from({ length: Math.max(0, after) }, (_, i) => nth(">", "ASC", i)),
  ].join(" UNION ALL ");
  const rows = db
    .query(
      `WITH h(k, sess, at) AS (
         SELECT key, json_extract(value, '$[0]'), CAST(json_extract(value, '$[1]') AS INTEGER) FROM json_each(?1)),
       n(k, seq) AS (${picks})
       SELECT n.k AS hit, ${COLS} FROM n JOIN messages m ON m.seq = n.seq
       ORDER BY n.k, m.seq`,
    )
    .all(JSON.stringify(hits.map((h) => [h.session, String(h.seq)]))) as (Row & {
    hit: number | bigint;
  })[];
  for (const r of rows) out[Number(r.hit)]!.push(toStored(r));
  return out;
}

/**
 * Ids of the recent messages passing `filter` (its sender, as NOCASE compares), in `session` or all; undefined
 * when there are more than `max`.
 */
export function recentIdsPassing(
  db: Database,
  filter: MessageFilter,
  session: string | undefined,
  max: number,
): string[] | undefined {
  const args: SqlArg[] = [];
  let sql = andFilter("SELECT id FROM messages WHERE recent = 1", args, filter);
  if (session !== undefined) {
    sql += " AND session_id = ?";
    args.push(session);
  }
  args.push(max + 1);
  const rows = db.query<{ id: string }, SqlArg[]>(`${sql} LIMIT ?`).all(...args);
  return rows.length > max ? undefined : rows.map((r) => r.id);
}
