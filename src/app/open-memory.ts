// openMemory: resolve the home, load and validate config.toml, open the archive, return a HomeMemory.
import { existsSync } from "node:fs";
import { ensureDir } from "../shared/atomic-write.ts";
import { makeHomeFolder } from "../shared/folder-made.ts";
import { namedError } from "../shared/errors.ts";
import { ensureOwnDir, MOVE_IN_PLACE } from "../shared/no-follow.ts";
import { nowNs } from "../shared/time.ts";
import { holdsHome, homePaths, resolveHome } from "../config/home.ts";
import { loadConfigCached } from "../config/load-cached.ts";
import type { Config } from "../config/schema.ts";
import { DatabaseNotWritableError, openDatabase } from "../storage/sqlite/open-database.ts";
import { HomeMemory } from "./memory-api.ts";
import { refuseEmptiedArchive } from "./emptied-archive.ts";
import { NotInSharedModeError } from "./shared/shared-mode-errors.ts";
import { hasPendingRemovals } from "../storage/sqlite/pending-removals-repo.ts";
import type { Embedder } from "../embed/embedder.ts";
import type { DrainMode } from "./semantic-api.ts";

export interface OpenOptions {
  /** The home folder; else $MEMVOY_HOME, else $XDG_CONFIG_HOME/memvoy, else ~/.config/memvoy. */
  home?: string;
  /** Environment used for the home and MEMVOY_* config overrides (default: process.env). */
  env?: Record<string, string | undefined>;
  /** A validated config to use instead of config.toml. */
  config?: Config;
  /** Where a write's embeddings are drained when the embedder is builtin (see DrainMode). */
  drain?: DrainMode;
  /** An embedder to use instead of [embedder] in config.toml (its id keys the vector table). */
  embedder?: Embedder;
  /** Clock in UTC ns (tests). */
  now?: () => bigint;
  /** false: open an existing home only (background work must never recreate a home that was removed). */
  create?: boolean;
  /**
   * A command that only reads: a home that does not exist (see holdsHome) is read as an empty home (its archive
   * in memory) and is not created, so a mistyped --home or MEMVOY_HOME makes no second home.
   */
  readOnly?: boolean;
  /** What is opening the home, as a refusal in shared mode names it ("history", "the daemon"). */
  command?: string;
  /** The process runs one short command and exits (see OpenDatabaseOptions.shortLived). */
  shortLived?: boolean;
}

/** Background work found no home at `home` (removed meanwhile); it creates none. */
export const HomeMissingError = namedError<{ home: string }>(
  "HomeMissingError",
  "runtime",
  (d) => `${d.home} holds no memvoy home (it may have been removed); nothing was created`,
);
export type HomeMissingError = InstanceType<typeof HomeMissingError>;

export { holdsHome };

export function openMemory(options: OpenOptions = {}): HomeMemory {
  const env = options.env ?? process.env;
  const paths = homePaths(resolveHome(options.home, env));
  if (options.create === false && !(existsSync(paths.home) && existsSync(paths.db))) {
    throw new HomeMissingError({ home: paths.home });
  }
  const config = options.config ?? loadConfigCached(paths.config, env);
  // A shared archive is the source of truth: the home's own archive must not be read or written instead.
  if (config.archive.url.trim()) throw new NotInSharedModeError({ command: options.command ?? "this command" });
  if (options.readOnly && !holdsHome(paths)) {
    const ctx = { paths, config, db: openDatabase(":memory:"), now: options.now ?? nowNs, env };
    return new HomeMemory(ctx, { drain: "off", embedder: options.embedder });
  }
  // Background work (create: false) makes no folder above the home's own: a home deleted under it stays deleted.
  if (options.create !== false) makeHomeFolder(paths.home);
  inHome(paths.sessions, () => ensureOwnDir(paths.sessions, MOVE_IN_PLACE));
  if (options.create !== false) inHome(paths.store, () => ensureDir(paths.store));
  refuseEmptiedArchive(paths);
  const db = openDatabase(paths.db, { shortLived: options.shortLived, create: options.create });
  const ctx = { paths, config, db, now: options.now ?? nowNs, env };
  // An rm-message a crash interrupted is finished now; the removal code loads only then.
  if (hasPendingRemovals(db))
    (require("../memory/remove-message.ts") as typeof import("../memory/remove-message.ts")).finishPendingRemovals(ctx);
  return new HomeMemory(ctx, { drain: options.drain, embedder: options.embedder });
}
export type { HomeMemory };

/** Make a folder of the home: a home this user may not write (or on a read-only disk) is named in one line. */
function inHome(dir: string, make: () => void): void {
  try {
    make();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EPERM") throw new DatabaseNotWritableError({ path: dir, reason: "permission" });
    if (code === "EROFS") throw new DatabaseNotWritableError({ path: dir, reason: "read-only" });
    throw err;
  }
}
