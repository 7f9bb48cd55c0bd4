// Tombstone hashes, the same in every archive: sha256 of "id:" + id, "key:" + session + "\n" + key, or of a message's
// role, time, sender and text under its session (never the text itself), for records that come back without an id.
const sha = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");

export const idTombstoneHash = (id: string) => sha(`id:${id}`);
export const keyTombstoneHash = (session: string, key: string) => sha(`key:${session}\n${key}`);

/** What a record without an id is recognised by: the whole of what Agenvoy writes of it. */
export interface MessageContent {
  role: string;
  content: string;
  sendAt: bigint;
  sender?: string | null;
}

/**
 * An HMAC keyed by the session: a copy of a removed message written back without its id (Agenvoy rewriting the
 * whole file from a list it loaded before the removal) is known by it.
 */
export const contentTombstoneHash = (session: string, m: MessageContent) =>
  new Bun.CryptoHasher("sha256", `content:${session}`)
    .update(JSON.stringify([m.role, m.sendAt.toString(), m.sender ?? null, m.content]))
    .digest("hex");
