// The command a person can type, here and now, to run this memvoy again: `memvoy` when that is what PATH
// finds, else the compiled binary's path, else `scripts/run start` when started through it, else
// `bun <entry script>` (a source checkout), relative to the working directory when under it.
import { realpathSync } from "node:fs";
import { isAbsolute, relative } from "node:path";
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

function relativeIfInside(cwd: string, path: string): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? (rel.includes("/") ? rel : `./${rel}`) : path;
}

/** A home as a shell word. */
export function quoteArg(s: string): string {
  return shellQuote(s);
}
