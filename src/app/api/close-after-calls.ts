// A MemoryApi whose close() lets the calls already made finish before the memory closes under them (a search
// under way would otherwise fail with the database's "Cannot use a closed database"); calls made after close()
// are refused at once.
import type { MemoryApi } from "./memory-api.ts";
import { MemoryClosedError } from "./memory-closed.ts";

export function closeAfterCalls(api: MemoryApi): MemoryApi {
  let running = 0;
  let idle = Promise.withResolvers<void>();
  idle.resolve();
  let closing: Promise<void> | undefined;
  return new Proxy(api, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key);
      if (typeof value !== "function") return value;
      if (key === "close") return () => (closing ??= idle.promise.then(() => target.close()));
      return async (...args: unknown[]) => {
        if (closing) throw new MemoryClosedError({ open: "openMemory" });
        if (running++ === 0) idle = Promise.withResolvers<void>();
        try {
          return await value.apply(target, args);
        } finally {
          if (--running === 0) idle.resolve();
        }
      };
    },
  });
}
