// `memvoy daemon status|stop`: read the state file and the lock; stop with SIGTERM and a deadline.
import { homePaths, resolveHome } from "../config/home.ts";
import { errorMessage, namedError } from "../shared/errors.ts";
import { redactSecrets, secretValues } from "../shared/redact.ts";
import { nsToRfc3339 } from "../shared/time.ts";
import { nextRunOf } from "./cron-patterns.ts";
import { isDaemonLockHeld, lockHolderPid } from "./lock.ts";
import { configStamp, readState, type JobState } from "./state.ts";
import { loadConfig } from "../config/load.ts";

/** `daemon stop` could not stop the home's daemon: no pid to signal, the signal refused, or no exit in time. */
export const DaemonStopError = namedError<
  | { problem: "no-pid"; home: string }
  | { problem: "signal-refused"; pid: number; reason: string }
  | { problem: "still-running"; pid: number; timeoutMs: number }
>("DaemonStopError", "runtime", (d) => {
  switch (d.problem) {
    case "no-pid":
      return `a daemon holds ${d.home}/daemon.lock but its pid is unknown; stop it with your service manager`;
    case "signal-refused":
      return `cannot signal the daemon (pid ${d.pid}): ${d.reason}`;
    case "still-running":
      return `the daemon (pid ${d.pid}) did not stop within ${Math.round(d.timeoutMs / 1000)} s`;
  }
});
export type DaemonStopError = InstanceType<typeof DaemonStopError>;

export interface JobStatus extends JobState {
  name: string;
  nextRun: string | null;
  /**
   * The daemon ended during a run of this job (kill -9, a crash, a power cut): lastRun is that run's start,
   * lastResult "error", and the result of the run before it is not shown as the last one.
   */
  interrupted: boolean;
}

export interface DaemonStatus {
  home: string;
  running: boolean;
  pid: number | null;
  startedAt: string | null;
  uptimeMs: number | null;
  version: string | null;
  /** The state file of the running daemon, or of the last one when none runs. */
  stoppedAt: string | null;
  jobs: JobStatus[];
  lastError: { job: string; at: string; message: string } | null;
  /** The HTTP API's URL while the daemon serves it. */
  http: string | null;
  /** While the daemon runs without its HTTP API although it is enabled: why it could not start. */
  httpError: string | null;
  /**
   * Whether the config here (config.toml with this environment's MEMVOY_* overrides) differs from the one the
   * running daemon loaded at its start, which it keeps until restarted; null when no daemon runs or it cannot be told.
   */
  configChanged: boolean | null;
  /** Why config.toml cannot be loaded here now, while the daemon runs on the one it loaded. */
  configProblem: string | null;
  log: string;
}

/** What `daemon status` says of a run the daemon did not live to finish. */
export const INTERRUPTED = "interrupted: the daemon ended during this run";

/** The project's JSON time form: RFC 3339 UTC with 9 fractional digits. */
function rfc3339(iso: string | null): string | null {
  if (iso === null) return null;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? nsToRfc3339(BigInt(ms) * 1_000_000n) : iso;
}

export function daemonStatus(
  homeFlag?: string,
  env: Record<string, string | undefined> = process.env,
  now = new Date(),
): DaemonStatus {
  const paths = homePaths(resolveHome(homeFlag, env));
  const running = isDaemonLockHeld(paths.daemonLock);
  const holder = running ? lockHolderPid(paths.daemonLock) : undefined;
  let s = readState(paths.home);
  // A daemon that is starting holds the lock before it writes its state: the file is the previous one's.
  const fresh = s !== undefined && (!running || holder === undefined || holder === s.pid);
  if (running && !fresh) s = undefined;
  const keys = secretValues(env);
  let configChanged: boolean | null = null;
  let configProblem: string | null = null;
  if (running && s?.configStamp) {
    try {
      configChanged = configStamp(loadConfig(paths.config, env)) !== s.configStamp;
    } catch (err) {
      configChanged = true;
      configProblem = redactSecrets(errorMessage(err), keys).text;
    }
  }
  const jobs: JobStatus[] = Object.entries(s?.jobs ?? {}).map(([name, j]) => {
    let nextRun: string | null = null;
    if (running && j.schedule !== "continuous" && j.schedule !== "at start") {
      try {
        // The daemon's zone, not this command's: its patterns fire there.
        nextRun = nextRunOf(j.schedule, now, s?.timeZone)?.toISOString() ?? null;
      } catch {
        nextRun = null;
      }
    }
    // Scrubbed when written; scrubbed again here, with this environment's keys, for state files of older versions.
    const lastError = j.lastError && {
      ...j.lastError,
      at: rfc3339(j.lastError.at) ?? j.lastError.at,
      message: redactSecrets(j.lastError.message, keys).text,
    };
    const lastDetail = j.lastDetail === null ? null : redactSecrets(j.lastDetail, keys).text;
    const interrupted = !running && j.running;
    const since = rfc3339(j.runningSince ?? null);
    if (interrupted)
      return {
        name,
        ...j,
        lastRun: since ?? rfc3339(j.lastRun),
        lastDurationMs: null,
        lastResult: "error",
        lastDetail: INTERRUPTED,
        lastError,
        running: false,
        progress: null,
        runningSince: null,
        nextRun: null,
        interrupted,
      };
    return {
      name,
      ...j,
      lastDetail,
      lastRun: rfc3339(j.lastRun),
      lastError,
      running: running && j.running,
      progress: running && j.running ? (j.progress ?? null) : null,
      runningSince: running && j.running ? since : null,
      nextRun: rfc3339(nextRun),
      interrupted,
    };
  });
  return {
    home: paths.home,
    running,
    pid: running ? (holder ?? s?.pid ?? null) : (s?.pid ?? null),
    startedAt: rfc3339(s?.startedAt ?? null),
    uptimeMs: running && s ? now.getTime() - Date.parse(s.startedAt) : null,
    version: s?.version ?? null,
    stoppedAt: running ? null : rfc3339(s?.stoppedAt ?? null),
    jobs,
    lastError: s?.lastError
      ? {
          ...s.lastError,
          at: rfc3339(s.lastError.at) ?? s.lastError.at,
          message: redactSecrets(s.lastError.message, keys).text,
        }
      : null,
    http: running ? (s?.http ?? null) : null,
    httpError: running && s?.httpError ? redactSecrets(s.httpError, keys).text : null,
    configChanged,
    configProblem,
    log: paths.daemonLog,
  };
}

export interface StopResult {
  wasRunning: boolean;
  pid: number | null;
  ms: number;
}

/** SIGTERM the home's daemon and wait until it has let go of its lock. */
export async function stopDaemon(
  homeFlag?: string,
  timeoutMs = 10_000,
  env: Record<string, string | undefined> = process.env,
): Promise<StopResult> {
  const started = performance.now();
  const st = daemonStatus(homeFlag, env);
  if (!st.running) return { wasRunning: false, pid: st.pid, ms: 0 };
  if (st.pid === null) throw new DaemonStopError({ problem: "no-pid", home: st.home });
  try {
    process.kill(st.pid, "SIGTERM");
  } catch (err) {
    throw new DaemonStopError({ problem: "signal-refused", pid: st.pid, reason: errorMessage(err) }, { cause: err });
  }
  const lock = homePaths(st.home).daemonLock;
  for (let delay = 10; isDaemonLockHeld(lock); delay = Math.min(delay * 2, 200)) {
    if (performance.now() - started > timeoutMs) {
      throw new DaemonStopError({ problem: "still-running", pid: st.pid, timeoutMs });
    }
    await Bun.sleep(delay);
  }
  return { wasRunning: true, pid: st.pid, ms: Math.round(performance.now() - started) };
}
