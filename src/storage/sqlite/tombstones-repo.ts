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
  if (ids.length === 0) return out;
  const q = db.query("SELECT 1 FROM tombstones WHERE hash = ?");
  for (const id of ids) if (q.get(idTombstone(id))) out.add(id);
  return out;
}

export function isTombstoned(db: Database, hash: string): boolean {
  return db.query("SELECT 1 FROM tombstones WHERE hash = ?").get(hash) !== null;
}
