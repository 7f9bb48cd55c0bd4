// Session locks as this process takes them: each held lock keeps a connection of its own in an open transaction
// (the work inside runs on the pool), so at most a few are held at once and the rest wait here: the process
// opens no more lock connections than that, however many sessions it writes to at once.
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
