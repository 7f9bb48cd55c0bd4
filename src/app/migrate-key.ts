// The key of a home in a shared archive it was copied into (memvoy migrate-archive): kept apart so that shared mode
// can look for it without loading the copy.
import { realpathSync } from "node:fs";

/** The home's key in the target: its resume cursor's meta key, and the lock one run of it holds. */
export const cursorKey = (db: string) =>
  `migrate-archive:${new Bun.CryptoHasher("sha256").update(realpathSync(db)).digest("hex").slice(0, 16)}`;
