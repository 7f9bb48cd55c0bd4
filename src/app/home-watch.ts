// Notice that a home (or a file in it, such as the daemon's lock) was deleted or replaced: its device and
// inode are taken at start and compared on a timer. A long-lived process must then stop, never recreate it.
import { identityChange, pathIdentity } from "../shared/path-identity.ts";

/**
 * Check `paths` every `intervalMs`; call `onLost` once with what happened when one is gone or replaced.
 * Returns a function that stops watching.
 */
export function watchPaths(paths: readonly string[], onLost: (why: string) => void, intervalMs = 1000): () => void {
  const start = paths.map(pathIdentity);
  const timer = setInterval(() => {
    const why = identityChange(paths, start);
    if (why === undefined) return;
    clearInterval(timer);
    onLost(why);
  }, intervalMs);
  return () => clearInterval(timer);
}
