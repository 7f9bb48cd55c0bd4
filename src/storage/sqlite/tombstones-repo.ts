// Tombstones: hashes of removed message ids, idempotency keys and contents, so nothing removed comes back.
import type { Database } from "bun:sqlite";
import { contentTombstoneHash, type MessageContent } from "../ports/tombstone-hash.ts";

const sha = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");

export const idTombstone = (id: string) => sha(`id:${id}`);
export const keyTombstone = (session: string, key: string) => sha(`key:${session}\n${key}`);

export const contentTombstone = contentTombstoneHash;

export function addTombstones(db: Database, hashes: readonly string[], now: bigint): void {
  const insert = db.query("INSERT OR IGNORE INTO tombstones (hash, removed_at) VALUES (?, ?)");
  for (const h of hashes) insert.run(h, now);
}

/** The message ids among `ids` that were removed once. */
export function tombstonedIds(db: Database, ids: readonly string[]): Set<string> {
  const out = new Set<string>();
  // Most homes have removed nothing: one probe instead of a hash per id (an import checks every record).
  if (ids.length === 0 || db.query("SELECT 1 FROM tombstones LIMIT 1").get() === null) return out;
  const byHash = new Map(ids.map((id) => [idTombstone(id), id] as const));
  for (const h of knownHashes(db, [...byHash.keys()])) out.add(byHash.get(h)!);
  return out;
}

/** Of these records of `session` (without ids), those whose message was removed once, by role, time, sender and text. */
export function tombstonedContents<T extends MessageContent>(
  db: Database,
  session: string,
  records: readonly T[],
): Set<T> {
  const out = new Set<T>();
  if (records.length === 0 || db.query("SELECT 1 FROM tombstones LIMIT 1").get() === null) return out;
  const byHash = Map.groupBy(records, (r) => contentTombstone(session, r));
  for (const h of knownHashes(db, [...byHash.keys()])) for (const rec of byHash.get(h)!) out.add(rec);
  return out;
}

function knownHashes(db: Database, hashes: readonly string[]): string[] {
  const rows = db
    .query("SELECT hash FROM tombstones WHERE hash IN (SELECT value FROM json_each(?))")
    .all(JSON.stringify(hashes)) as { hash: string }[];
  return rows.map((r) => r.hash);
}

export function isTombstoned(db: Database, hash: string): boolean {
  return db.query("SELECT 1 FROM tombstones WHERE hash = ?").get(hash) !== null;
}
