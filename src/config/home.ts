// Where the home lives: --home, else $MEMVOY_HOME, else $XDG_CONFIG_HOME/memvoy, else ~/.config/memvoy.
import { existsSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { untilde, userHome } from "../shared/user-home.ts";

export function resolveHome(flag?: string, env: Record<string, string | undefined> = process.env): string {
  if (flag) return resolve(untilde(flag, env));
  if (env.MEMVOY_HOME) return resolve(untilde(env.MEMVOY_HOME, env));
  // The XDG spec: a relative XDG_CONFIG_HOME is invalid and ignored (taken as given, each folder would get a home).
  const xdg = env.XDG_CONFIG_HOME ? untilde(env.XDG_CONFIG_HOME, env) : undefined;
  return join(
    xdg && isAbsolute(xdg) ? xdg : join(userHome(env, "give --home DIR or set MEMVOY_HOME"), ".config"),
    "memvoy",
  );
}

/** Every path inside a home, in one place. */
export function homePaths(home: string) {
  return {
    home,
    config: join(home, "config.toml"),
    sessions: join(home, "sessions"),
    store: join(home, ".store"),
    db: join(home, ".store", "history.db"),
    lance: join(home, ".store", "lance"),
    /** Statistics of the vector tables that semantic search's relevance rules keep (background-stats.ts). */
    relevance: join(home, ".store", "relevance"),
    daemonLog: join(home, "daemon.log"),
    daemonLock: join(home, "daemon.lock"),
    /** The daemon's HTTP URL and bearer token (0600): the one secret file of a home. */
    httpFile: join(home, "http.json"),
    session: (id: string) => join(home, "sessions", id),
    history: (id: string) => join(home, "sessions", id, "history.json"),
    summary: (id: string) => join(home, "sessions", id, "summary.json"),
    cursor: (id: string) => join(home, "sessions", id, ".summary_cursor"),
  };
}

export type HomePaths = ReturnType<typeof homePaths>;

/**
 * Whether memvoy's folders are at the home's path: not for a folder that does not exist, nor for one that holds
 * other things only (a mistyped --home ~ or --home .). A sessions/ folder alone (Agenvoy's) is a home.
 */
export function holdsHome(paths: Pick<HomePaths, "sessions" | "store">): boolean {
  return existsSync(paths.sessions) || existsSync(paths.store);
}
