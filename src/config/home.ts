// Where the home lives: --home, else $MEMVOY_HOME, else $XDG_CONFIG_HOME/memvoy, else ~/.config/memvoy.
import { join, resolve } from "node:path";

// node:os is loaded only when HOME is unset: loading it is a measurable part of a one-shot command's start.
const homedir = () => (require("node:os") as typeof import("node:os")).homedir();

export function resolveHome(flag?: string, env: Record<string, string | undefined> = process.env): string {
  if (flag) return resolve(flag);
  if (env.MEMVOY_HOME) return resolve(env.MEMVOY_HOME);
  const xdg = env.XDG_CONFIG_HOME;
  return join(xdg ? resolve(xdg) : join(env.HOME || homedir(), ".config"), "memvoy");
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
