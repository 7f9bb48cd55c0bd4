// A closed terminal (an ssh drop, a closed tab: a hangup) fails every read, write and mode change with EIO.
// Nothing is left to show: those failures are dropped, and the SIGHUP that comes with the hangup ends memvoy.

/** Whether `err` is a terminal's EIO (a stream's write error, or setRawMode's "failed with errno: 5"). */
export function isHungUp(err: unknown): boolean {
  return (err as { code?: string })?.code === "EIO" || /\berrno: 5\b/.test(String((err as Error)?.message));
}

let installed = false;

/**
 * Drop the terminal's EIO on stdin and stderr (stdout's own handler drops it too), to the end of the process: a
 * write made just before memvoy ends fails after it. Any other error is thrown as it would have been.
 */
export function ignoreHangups(): void {
  if (installed) return;
  installed = true;
  const onError = (err: unknown) => {
    if (!isHungUp(err)) throw err;
  };
  process.stdin.on("error", onError);
  process.stderr.on("error", onError);
}
