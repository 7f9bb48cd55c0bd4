// Test-only fault injection: MEMVOY_TEST_FAULT=<point> makes the process kill itself (SIGKILL) when it
// reaches that point, so tests can crash a writer at an exact step. Not a user setting; unset, it does nothing.
const FAULT = process.env.MEMVOY_TEST_FAULT;

export type FaultPoint =
  | "after-history-staged"
  | "after-archive-commit"
  | "after-deletion-commit"
  | "after-copy-batch"
  | "after-vector-batch"
  | "before-rebuild-swap";

export function faultPoint(name: FaultPoint): void {
  if (FAULT === name) process.kill(process.pid, "SIGKILL");
}
