// What every shared-mode operation needs: the home's paths (its caches), its config, the shared archive,
// the shared vectors (opened on first use) and a clock.
import type { HomePaths } from "../../config/home.ts";
import { makeHomeFolder } from "../../shared/folder-made.ts";
import { ensureOwnDir, MOVE_IN_PLACE } from "../../shared/no-follow.ts";
import type { Config } from "../../config/schema.ts";
import type { SharedArchivePort } from "../../storage/ports/shared-archive-port.ts";
import type { WithSessionLock } from "./session-locks.ts";
import type { SharedVectors } from "./shared-vectors.ts";

export interface SharedContext {
  readonly paths: HomePaths;
  readonly config: Config;
  readonly archive: SharedArchivePort;
  readonly vectors: SharedVectors;
  /** UTC ns. */
  readonly now: () => bigint;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Who this memory is, as other holders of a lease see it (host, pid and a token of its own). */
  readonly holder: string;
  /** The archive's session lock, a few at a time in this process (see session-locks.ts). */
  readonly withSessionLock: WithSessionLock;
  /**
   * The home does not exist and the command only reads (or removes): this host's caches are neither written nor
   * read (the archive's summary and cursor are read instead), so nothing is created. See makeLocalHome.
   */
  noLocalHome?: boolean;
}

/** Make the home (its folder and sessions/) when the work about to run keeps files in it: summarize does. */
export function makeLocalHome(ctx: SharedContext): void {
  if (!ctx.noLocalHome) return;
  makeHomeFolder(ctx.paths.home);
  ensureOwnDir(ctx.paths.sessions, MOVE_IN_PLACE);
  ctx.noLocalHome = false;
}

/** A lease holder for one turn: this memory's holder and a token of the turn's own, so two turns never share one. */
export function turnHolder(ctx: SharedContext): string {
  return `${ctx.holder}#${crypto.randomUUID().slice(0, 8)}`;
}
