// The daemon's state file (<home>/daemon.state.json): pid, start time and each job's last run, written atomically.
import { closeSync, constants, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../shared/atomic-write.ts";

export type JobResult = "ok" | "error";

export interface JobState {
  /** A cron pattern, "continuous" for the embedding queue drain, or "at start" for a job run once at start. */
  schedule: string;
  running: boolean;
  lastRun: string | null;
  lastDurationMs: number | null;
  lastResult: JobResult | null;
  lastDetail: string | null;
  lastError: { at: string; message: string } | null;
  runs: number;
  failures: number;
  /** How far a running loop job has got, in its own words (absent from state files of older versions). */
  progress?: string | null;
  /** When the run going on now started (null between runs; absent from state files of older versions). */
  runningSince?: string | null;
}

export interface DaemonState {
  pid: number;
  home: string;
  version: string;
  startedAt: string;
  updatedAt: string;
  status: "running" | "stopping" | "stopped";
  stoppedAt: string | null;
  jobs: Record<string, JobState>;
  lastError: { job: string; at: string; message: string } | null;
  /** The loopback HTTP API's URL while it serves (the token is only in <home>/http.json). */
  http?: string | null;
  /** Why the HTTP API is not served although enabled: it could not start (a port in use, say). */
  httpError?: string | null;
  /** The daemon's time zone (IANA name), in which its cron patterns fire (absent from older state files). */
  timeZone?: string;
  /** configStamp of the effective config the daemon runs with: it reads config.toml once, at its start. */
  configStamp?: string;
}

/** A hash of an effective config: two equal configs have the same stamp. */
export function configStamp(config: unknown): string {
  return Bun.hash(JSON.stringify(config)).toString(36);
}

export function statePath(home: string): string {
  return join(home, "daemon.state.json");
}

/** The state of a daemon of this process that starts now, before its jobs are added. */
export function newDaemonState(home: string, version: string): DaemonState {
  const now = new Date().toISOString();
  return {
    pid: process.pid,
    home,
    version,
    startedAt: now,
    updatedAt: now,
    status: "running",
    stoppedAt: null,
    jobs: {},
    lastError: null,
    http: null,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  };
}

export function newJobState(schedule: string): JobState {
  return {
    schedule,
    running: false,
    lastRun: null,
    lastDurationMs: null,
    lastResult: null,
    lastDetail: null,
    lastError: null,
    runs: 0,
    failures: 0,
    progress: null,
    runningSince: null,
  };
}

export function writeState(home: string, state: DaemonState): void {
  state.updatedAt = new Date().toISOString();
  writeFileAtomic(statePath(home), JSON.stringify(state, null, 2) + "\n");
}

/** The last state a daemon wrote for this home, or undefined (none, unreadable, or a link: never followed). */
export function readState(home: string): DaemonState | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(statePath(home), constants.O_RDONLY | constants.O_NOFOLLOW);
    const s = JSON.parse(readFileSync(fd, "utf8")) as DaemonState;
    return typeof s.pid === "number" && s.jobs && typeof s.jobs === "object" ? s : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
