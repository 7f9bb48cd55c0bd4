// A MemoryApi that opens its implementation on its first call: an MCP server answers its client's start-up
// before it opens the home. A failure to open is that call's error; the next call tries again.
import type { MemoryApi } from "./memory-api.ts";
import { MemoryClosedError } from "./memory-closed.ts";

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
  return new Proxy({} as MemoryApi, {
    get(_, key) {
      if (key === "then") return undefined; // not a thenable
      if (key === "close")
        return async () => {
          closed = true;
          const api = await opened?.catch(() => undefined);
          await api?.close();
        };
      return async (...args: unknown[]) => {
        const api = (await get()) as unknown as Record<PropertyKey, (...a: unknown[]) => unknown>;
        return api[key]!(...args);
      };
    },
  });
}
