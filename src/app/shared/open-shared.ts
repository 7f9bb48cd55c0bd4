// Shared mode: a home whose config names an archive URL ([archive] url or MEMVOY_ARCHIVE_URL) keeps its
// memory in PostgreSQL (the source of truth) and its vectors in the shared store; its files are caches.
import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { holdsHome, homePaths, resolveHome } from "../../config/home.ts";
import { loadConfig } from "../../config/load.ts";
import type { Config } from "../../config/schema.ts";
import { makeHomeFolder } from "../../shared/folder-made.ts";
import { ensureOwnDir, MOVE_IN_PLACE } from "../../shared/no-follow.ts";
import { nowNs } from "../../shared/time.ts";
import { vectorLocation } from "../../storage/ports/vector-location.ts";
import { sessionLocks } from "./session-locks.ts";
import { SharedHome } from "./shared-home.ts";
import { SharedVectorsMissingError, UncopiedHomeError } from "./shared-mode-errors.ts";
import { archiveTarget } from "./shared-stats.ts";
import { cursorKey } from "../migrate-key.ts";
import { holdsRecords } from "../../storage/sqlite/holds-records.ts";

export { NotInSharedModeError } from "./shared-mode-errors.ts";
import { SharedVectors } from "./shared-vectors.ts";

export interface SharedOpenOptions {
  home?: string;
  env?: Record<string, string | undefined>;
  /** A validated config to use instead of config.toml. */
  config?: Config;
  now?: () => bigint;
  /** false: leave a schema behind this memvoy's as it is (doctor reports it; doctor --migrate migrates). */
  migrate?: boolean;
  /**
   * PostgreSQL connections the work runs on (default 4, for a process that serves many calls at once); a one-shot
   * command does one thing at a time and needs 1. Each session lock held adds one (at most two at once).
   */
  connections?: number;
  /**
   * The command only reads (or removes): a home that does not exist (see holdsHome; nor its config.toml) is not
   * created, and this host's caches of the sessions it reads are not written (the archive is read instead).
   */
  readOnly?: boolean;
}

/** The configured archive URL, or undefined for the embedded home. Config errors throw (exit 2). */
export function sharedArchiveUrl(o: Pick<SharedOpenOptions, "home" | "env" | "config"> = {}): string | undefined {
  const env = o.env ?? process.env;
  const config = o.config ?? loadConfig(homePaths(resolveHome(o.home, env)).config, env);
  return config.archive.url.trim() || undefined;
}

export async function openSharedHome(o: SharedOpenOptions = {}): Promise<SharedHome> {
  const env = o.env ?? process.env;
  const paths = homePaths(resolveHome(o.home, env));
  const config = o.config ?? loadConfig(paths.config, env);
  const url = config.archive.url.trim();
  if (!config.vectors.uri) throw new SharedVectorsMissingError({ home: paths.home });
  vectorLocation(config.vectors, paths.lance, env); // keys missing from the environment: exit 2 now
  // A folder with a config.toml was made for this host's caches: they are kept there (Agenvoy reads them).
  const noLocalHome = o.readOnly === true && !holdsHome(paths) && !existsSync(paths.config);
  if (!noLocalHome) {
    makeHomeFolder(paths.home);
    ensureOwnDir(paths.sessions, MOVE_IN_PLACE);
  }
  const { openPgSharedArchive } = await import("../../storage/postgres/pg-shared-archive.ts");
  const archive = await openPgSharedArchive(url, { env, migrate: o.migrate !== false, max: o.connections ?? 4 });
  // A home's own archive that was never copied here: its session folders are no caches of this one.
  if (
    existsSync(paths.db) &&
    holdsRecords(paths.db) &&
    (await archive.getMeta(cursorKey(paths.db)).catch(() => "")) === undefined
  ) {
    await archive.close();
    throw new UncopiedHomeError({ home: paths.home, archive: archiveTarget(config) });
  }
  // Host and pid, and a token: two processes can share both (containers on the host's network, each its pid 1),
  // and so can two memories in one process; a lease taken by one holder is never taken again by the other.
  const holder = `${hostname()}:${process.pid}#${crypto.randomUUID().slice(0, 8)}`;
  const vectors = new SharedVectors(paths, config, archive, holder, env);
  // A held session lock keeps its connection in a transaction while its work runs on the pool.
  const withSessionLock = sessionLocks(archive, 2);
  const ctx = { paths, config, archive, vectors, now: o.now ?? nowNs, env, holder, withSessionLock, noLocalHome };
  return new SharedHome(ctx);
}
