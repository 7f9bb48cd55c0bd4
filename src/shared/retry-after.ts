// A server's retry-after as milliseconds, and the wording of a wait in errors (`450 ms`, `20 s`, `3,600 s`).

/** Milliseconds the server asked to wait (retry-after-ms, or retry-after in seconds or as a date). */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Number(ms);
  const after = headers.get("retry-after");
  if (after === null) return undefined;
  if (/^\d+(\.\d+)?$/.test(after.trim())) return Number(after) * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function formatWait(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 1000).toLocaleString("en-US")} s`;
}

/** The tail of an error for a retry-after over the longest wait memvoy takes between attempts. */
export function serverWaitTail(serverWaitMs: number, retryMaxMs: number): string {
  return `; the server asked to wait ${formatWait(serverWaitMs)} before a retry, longer than memvoy waits between attempts (${formatWait(retryMaxMs)}), so it was not retried now`;
}
