// A MemoryApi that opens its implementation on its first call: an MCP server answers its client's start-up
// before it opens the home. A failure to open is that call's error; the next call tries again. A home replaced
// while it is open (a new home made at its path) is opened again and the call made there; a deleted one stays a
// refusal (HomeGoneError) until a new home is made at its path.
import type { MemoryApi } from "./memory-api.ts";
import { MemoryClosedError } from "./memory-closed.ts";
import { HomeGoneError } from "../../storage/sqlite/db-in-place.ts";

export function lazyMemoryApi(open: () => Promise<MemoryApi>): MemoryApi {
  let opened: Promise<MemoryApi> | undefined;
  let closed = false;
  const get = () => {
    // Closed before its first call, it would otherwise open a new memory for the next one.
    if (closed) throw new MemoryClosedError({ open: "openMemory" });
    return (opened ??= open().catch((err) => {
      opened = undefined;
      throw err;
    }));
  };
  const call = async (key: PropertyKey, args: unknown[], again: boolean): Promise<unknown> => {
    const current = get();
    const api = (await current) as unknown as Record<PropertyKey, (...a: unknown[]) => unknown>;
    try {
      return await api[key]!(...args);
    } catch (err) {
      // The refusal comes before anything is written, so the call is made again on the new home. The old memory
      // is not closed: another call may still be running on it (its own check refuses it from then on).
      if (!again || !(err instanceof HomeGoneError) || !err.data.replaced) throw err;
      if (opened === current) opened = undefined;
      return call(key, args, false);
    }
  };
  return new Proxy({} as MemoryApi, {
    get(_, key) {
      if (key === "then") return undefined; // not a thenable
      if (key === "close")
        return async () => {
          closed = true;
          const api = await opened?.catch(() => undefined);
          await api?.close();
        };
      return (...args: unknown[]) => call(key, args, true);
    },
  });
}
