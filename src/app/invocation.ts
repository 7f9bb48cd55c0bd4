// The command a person can type, here and now, to run this memvoy again: `memvoy` when that is what PATH
// finds, else the compiled binary's path, else `scripts/run start` when started through it, else
// `bun <entry script>` (a source checkout), relative to the working directory when under it.
import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { selfCommand } from "./background-drain.ts";

const shellQuote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export function invocation(
  cwd: string = process.cwd(),
  onPath: string | null = Bun.which("memvoy"),
  runScript = process.env.MEMVOY_RUN_SCRIPT,
  self: string[] = selfCommand(),
): string {
  // Started through scripts/run (which installs Bun when missing): the same way works again.
  if (runScript && self.length === 2) return `${shellQuote(relativeIfInside(cwd, runScript))} start`;
  const target = self.length === 1 ? self[0]! : self[1]!;
  if (onPath && real(onPath) === real(target)) return "memvoy";
  if (self.length === 1) return shellQuote(self[0]!);
  return `bun ${shellQuote(relativeIfInside(cwd, target))}`;
}

/**
 * The compiled binary by the path it was started as, when that is a link to it (~/.local/bin/memvoy ->
 * ~/opt/memvoy-0.2.0/memvoy): a config that names the link keeps working when an upgrade moves the link, while the
 * resolved path goes away with the old version. Anything else is `self` as it is.
 */
export function launchedCommand(self: string[] = selfCommand(), argv0 = process.argv0, cwd = process.cwd()): string[] {
  if (self.length !== 1 || !argv0) return self;
  const path = argv0.includes("/") ? resolve(cwd, argv0) : Bun.which(argv0);
  return path && path !== self[0] && real(path) === real(self[0]!) ? [path] : self;
}

function relativeIfInside(cwd: string, path: string): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? (rel.includes("/") ? rel : `./${rel}`) : path;
}

/** A home as a shell word. */
export function quoteArg(s: string): string {
  return shellQuote(s);
}
