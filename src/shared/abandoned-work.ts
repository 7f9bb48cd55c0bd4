// Work a command gave up waiting for that it cannot cancel (a native call to an object store that never answers):
// it would hold the process open after the command is done, so the CLI ends the process instead of waiting.
let abandoned = 0;

/** Note one piece of work still running that nothing waits for any more. */
export function abandonWork(): void {
  abandoned++;
}

/** Whether anything was given up this way in this process. */
export function hasAbandonedWork(): boolean {
  return abandoned > 0;
}
