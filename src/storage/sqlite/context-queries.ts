// SQL for conversation context in ranking: the recent messages just before and after given ones, in their session.
import type { Database } from "bun:sqlite";
import type { StoredMessage } from "../../shared/message.ts";
import { MESSAGE_COLUMNS, toStored } from "./messages-repo.ts";

type Row = Parameters<typeof toStored>[0];

export interface Neighbours {
  prev?: StoredMessage;
  next?: StoredMessage;
}

/** For each seq, the seqs of the previous and the next recent message of its session (one indexed seek each). */
export function recentNeighbourSeqs(
  db: Database,
  seqs: readonly bigint[],
): Map<bigint, { prev?: bigint; next?: bigint }> {
  const out = new Map<bigint, { prev?: bigint; next?: bigint }>();
  if (seqs.length === 0) return out;
  const pairs = db
    .query(
      "SELECT m.seq AS s, " +
        "(SELECT p.seq FROM messages p WHERE p.session_id = m.session_id AND p.recent = 1 AND p.seq < m.seq ORDER BY p.seq DESC LIMIT 1) AS prev, " +
        "(SELECT n.seq FROM messages n WHERE n.session_id = m.session_id AND n.recent = 1 AND n.seq > m.seq ORDER BY n.seq LIMIT 1) AS next " +
        "FROM messages m WHERE m.seq IN (SELECT CAST(value AS INTEGER) FROM json_each(?))",
    )
    .all(JSON.stringify(seqs.map(String))) as { s: bigint; prev: bigint | null; next: bigint | null }[];
  for (const p of pairs) out.set(p.s, { prev: p.prev ?? undefined, next: p.next ?? undefined });
  return out;
}

/** For each seq, the previous and the next recent message of its session, by seq. */
export function recentNeighboursOf(db: Database, seqs: readonly bigint[]): Map<bigint, Neighbours> {
  const pairs = recentNeighbourSeqs(db, seqs);
  const wanted = new Set<bigint>();
  for (const p of pairs.values()) {
    if (p.prev !== undefined) wanted.add(p.prev);
    if (p.next !== undefined) wanted.add(p.next);
  }
  const rows = db
    .query(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE seq IN (SELECT CAST(value AS INTEGER) FROM json_each(?))`)
    .all(JSON.stringify([...wanted].map(String))) as Row[];
  const bySeq = new Map(rows.map(toStored).map((m) => [m.seq, m] as const));
  const out = new Map<bigint, Neighbours>();
  for (const [s, p] of pairs) {
    const n: Neighbours = {};
    if (p.prev !== undefined) n.prev = bySeq.get(p.prev);
    if (p.next !== undefined) n.next = bySeq.get(p.next);
    out.set(s, n);
  }
  return out;
}
