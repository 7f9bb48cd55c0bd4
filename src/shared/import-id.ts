// Deterministic ids for imported records: the same source record gives the same memvoy id on every run.
import { timeHashId } from "./ids.ts";

/** A time-sortable message id (the ULID layout of newId): the record's time, then a hash of source and record id. */
export function importedMessageId(sendAtNs: bigint, source: string, recordKey: string): string {
  return timeHashId(sendAtNs, `${source}\0${recordKey}`);
}

/**
 * `<prefix>-<source id>` within the session-id rules: other characters become "_", an over-long id keeps a hash tail.
 * `distinct`: a source id that had other characters keeps the tail too, for names people type (修正 and 設計 are not
 * both "__").
 */
export function importedSessionId(prefix: string, sourceId: string, o: { distinct?: boolean } = {}): string {
  const clean = sourceId.replace(/[^A-Za-z0-9._-]/g, "_");
  const id = `${prefix}-${clean}`;
  if (id.length <= 128 && !(o.distinct && clean !== sourceId)) return id;
  const tail = new Bun.CryptoHasher("sha256").update(sourceId).digest("hex").slice(0, 16);
  return `${id.slice(0, 111)}-${tail}`;
}

/** 8 hex characters of a hash (aider's session ids name the history file this way). */
export function shortHash(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex").slice(0, 8);
}
