// Tombstones: hashes of removed message ids and idempotency keys, so nothing removed comes back.
import type { Database } from "bun:sqlite";

const sha = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");

export const idTombstone = (id: string) => sha(`id:${id}`);
export const keyTombstone = (session: string, key: string) => sha(`key:${session}\n${key}`);

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
  const rows = db
    .query("SELECT hash FROM tombstones WHERE hash IN (SELECT value FROM json_each(?))")
    .all(JSON.stringify([...byHash.keys()])) as { hash: string }[];
  for (const r of rows) out.add(byHash.get(r.hash)!);
  return out;
}

export function isTombstoned(db: Database, hash: string): boolean {
  return db.query("SELECT 1 FROM tombstones WHERE hash = ?").get(hash) !== null;
}
