// The command a person can type, here and now, to run this memvoy again: `memvoy` when that is what PATH
// finds, else the compiled binary's path, else `bun <entry script>` (a source checkout), relative to the
// working directory when the script is under it.
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

export function invocation(cwd: string = process.cwd(), onPath: string | null = Bun.which("memvoy")): string {
  const self = selfCommand();
  const target = self.length === 1 ? self[0]! : self[1]!;
  if (onPath && real(onPath) === real(target)) return "memvoy";
  if (self.length === 1) return shellQuote(self[0]!);
  const rel = relative(cwd, target);
  const script = rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : target;
  return `bun ${shellQuote(script)}`;
}

/** A home as a shell word. */
export function quoteArg(s: string): string {
  return shellQuote(s);
}
