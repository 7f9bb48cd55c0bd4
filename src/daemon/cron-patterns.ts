// The daemon's cron patterns (summary.cron, daemon.sweep_cron, daemon.maintenance_cron): checked with croner.
import { Cron } from "croner";
import type { Config } from "../config/schema.ts";
import { ConfigError } from "../config/load.ts";

export interface CronKey {
  key: string;
  env: string;
  pattern: string;
}

export function cronKeys(config: Config): CronKey[] {
  return [
    { key: "summary.cron", env: "MEMVOY_SUMMARY_CRON", pattern: config.summary.cron },
    { key: "daemon.sweep_cron", env: "MEMVOY_DAEMON_SWEEP_CRON", pattern: config.daemon.sweep_cron },
    { key: "daemon.maintenance_cron", env: "MEMVOY_DAEMON_MAINTENANCE_CRON", pattern: config.daemon.maintenance_cron },
    { key: "import.cron", env: "MEMVOY_IMPORT_CRON", pattern: config.import.cron },
  ];
}

/** The croner parse error for a pattern, or why it never runs; undefined when it is valid. */
export function cronPatternError(pattern: string): string | undefined {
  try {
    const probe = new Cron(pattern.trim(), { paused: true, mode: "5-or-6-parts" });
    // A date no month has (`0 0 30 2 *`, `0 0 31 4 *`) parses, but its job would never run.
    const next = probe.nextRun();
    probe.stop();
    return next === null ? "it never fires (no date matches it)" : undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** Throw a ConfigError naming every invalid pattern, each with its key and where it came from. */
export function checkCronPatterns(
  config: Config,
  file: string,
  env: Record<string, string | undefined> = process.env,
): void {
  const bad = cronKeys(config).flatMap((k) => {
    const reason = cronPatternError(k.pattern);
    return reason === undefined ? [] : [{ ...k, reason, fromEnv: env[k.env] !== undefined }];
  });
  if (bad.length === 0) return;
  if (bad.length === 1) {
    const k = bad[0]!;
    const source = k.fromEnv ? `${k.env} (environment)` : file;
    throw new ConfigError({ problem: "cron", source, key: k.key, pattern: k.pattern, reason: k.reason });
  }
  const inFile = bad.some((k) => !k.fromEnv);
  const inEnv = bad.some((k) => k.fromEnv);
  const source = !inEnv ? file : inFile ? `${file} + MEMVOY_* environment` : "the MEMVOY_* environment";
  const issues = bad.map((k) => ({
    path: k.fromEnv ? `${k.key} (${k.env})` : k.key,
    problem: `invalid cron pattern ${JSON.stringify(k.pattern)}: ${k.reason}`,
  }));
  throw new ConfigError({ problem: "invalid", source, issues });
}

/** The next time a pattern fires after `from`, in `timeZone` (IANA name; default the local one, like system cron). */
export function nextRunOf(pattern: string, from: Date = new Date(), timeZone?: string): Date | null {
  const c = new Cron(pattern.trim(), {
    paused: true,
    mode: "5-or-6-parts",
    ...(timeZone ? { timezone: timeZone } : {}),
  });
  try {
    return c.nextRun(from);
  } finally {
    c.stop();
  }
}
