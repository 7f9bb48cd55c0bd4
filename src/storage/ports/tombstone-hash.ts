// Tombstone hashes, the same in every archive: sha256 of "id:" + id, or "key:" + session + "\n" + key.
const sha = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");

export const idTombstoneHash = (id: string) => sha(`id:${id}`);
export const keyTombstoneHash = (session: string, key: string) => sha(`key:${session}\n${key}`);
