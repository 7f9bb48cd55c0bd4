// Back-off between retries: exponential with jitter, or the server's retry-after when it names one.

export { retryAfterMs } from "../shared/retry-after.ts";

/** Delay before retry number `retry` (0-based): base * 2^retry with +-25% jitter, capped at max. */
export function backoffMs(retry: number, baseMs: number, maxMs: number, serverMs?: number): number {
  if (serverMs !== undefined) return Math.min(serverMs, maxMs);
  const exp = baseMs * 2 ** retry;
  return Math.min(Math.round(exp * (0.75 + Math.random() * 0.5)), maxMs);
}

/** Sleep that an AbortSignal cuts short (resolves false when aborted). */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
