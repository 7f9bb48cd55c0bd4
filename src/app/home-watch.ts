// Notice that a home (or a file in it, such as the daemon's lock) was deleted or replaced: its device and
// inode are taken at start and compared on a timer. A long-lived process must then stop, never recreate it.
import { pathIdentity as identity } from "../shared/path-identity.ts";

/** What changed among `paths` since `start` (undefined: nothing). */
function changed(paths: readonly string[], start: readonly (string | undefined)[]): string | undefined {
  for (const [i, path] of paths.entries()) {
    const now = identity(path);
    if (now === start[i]) continue;
    return now === undefined ? `${path} was deleted` : `${path} was replaced`;
  }
  return undefined;
}

/**
 * Check `paths` every `intervalMs`; call `onLost` once with what happened when one is gone or replaced.
 * Returns a function that stops watching.
 */
export function watchPaths(paths: readonly string[], onLost: (why: string) => void, intervalMs = 1000): () => void {
  const start = paths.map(identity);
  const timer = setInterval(() => {
    const why = changed(paths, start);
    if (why === undefined) return;
    clearInterval(timer);
    onLost(why);
  }, intervalMs);
  return () => clearInterval(timer);
}
