// The user's home folder: $HOME, else the system's user list; one clear error when neither knows it.
import { join } from "node:path";
import { namedError } from "./errors.ts";

/** HOME unset and no entry for this user (a container run as a bare uid, systemd's DynamicUser, env -i). */
export const NoUserHomeError = namedError<{ needed: string }>(
  "NoUserHomeError",
  "usage",
  (d) => `HOME is not set and this user has no home folder in the system's user list: ${d.needed}`,
);

// node:os is loaded only when HOME is unset: loading it is a measurable part of a one-shot command's start.
const systemHome = () => (require("node:os") as typeof import("node:os")).homedir();

/** $HOME, else the user's entry in the system's user list; undefined when neither gives a folder. */
export function knownUserHome(env: Record<string, string | undefined> = process.env): string | undefined {
  if (env.HOME) return env.HOME;
  try {
    return systemHome() || undefined;
  } catch {
    return undefined;
  }
}

/** The user's home folder; `needed` says what to give instead when there is none. */
export function userHome(env: Record<string, string | undefined>, needed: string): string {
  const home = knownUserHome(env);
  if (home === undefined) throw new NoUserHomeError({ needed });
  return home;
}

/**
 * A leading ~ (alone or ~/...) as the user's home folder. A shell leaves it as it is after "=" (--home=~/x,
 * --project=~/code), and an agent's MCP config passes its args with no shell at all.
 */
export function untilde(path: string, env: Record<string, string | undefined> = process.env): string {
  if (path !== "~" && !path.startsWith("~/")) return path;
  return join(userHome(env, `set HOME, or write ${path} as a full path`), path.slice(1));
}
