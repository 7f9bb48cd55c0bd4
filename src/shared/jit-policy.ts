// The JIT's tier-up policy: the compiled binary starts reluctant to compile (build.ts), which suits a one-shot
// command (its code runs about once); a process that goes on serving restores the usual policy.

/** JavaScriptCore's usual tier-up thresholds, for a process that runs on (the TUI, the daemon, the MCP server). */
export function jitAsUsual(): void {
  Bun.unsafe.setJITPolicy(1);
}
