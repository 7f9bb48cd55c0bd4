// Session locks as this process takes them: each held lock keeps one pooled connection in its transaction
// while the work inside runs on others, so at most a few are held at once and the rest wait here. Without
// this limit, enough concurrent writers to different sessions could hold every connection and wait forever.
import type { ArchivePort } from "../../storage/ports/archive-port.ts";

export type WithSessionLock = <T>(session: string, fn: () => Promise<T>) => Promise<T>;

export function sessionLocks(archive: ArchivePort, slots: number): WithSessionLock {
  let free = slots;
  const waiting: (() => void)[] = [];
  const take = async () => {
    if (free > 0) free--;
    else await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const give = () => {
    const next = waiting.shift();
    if (next) next();
    else free++;
  };
  return async (session, fn) => {
    await take();
    try {
      return await archive.withSessionLock(session, fn);
    } finally {
      give();
    }
  };
}
