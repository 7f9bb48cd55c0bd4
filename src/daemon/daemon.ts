// `memvoy --daemon`: one foreground process per home running the jobs until SIGTERM/SIGINT/SIGHUP. Its LanceDB work
// runs in short-lived children (workers.ts), so the daemon itself stays small while idle.
import { ignoredVariables, inspectConfig } from "../app/config-info.ts";
import { watchPaths } from "../app/home-watch.ts";
import { openMemory } from "../app/open-memory.ts";
import type { HomeMemory } from "../app/memory-api.ts";
import type { MaintenanceApi } from "../app/maintenance-api.ts";
import type { Config } from "../config/schema.ts";
import { homePaths } from "../config/home.ts";
import { makeHomeFolder } from "../shared/folder-made.ts";
import { namedError } from "../shared/errors.ts";
import { describeError } from "../shared/describe-error.ts";
import { checkCronPatterns } from "./cron-patterns.ts";
import { embedDrainJob } from "./jobs/embed-drain.ts";
import { errorSweepJob } from "./jobs/error-sweep.ts";
import { indexUpgradeJob } from "./jobs/index-upgrade.ts";
import { maintenanceJob } from "./jobs/maintenance.ts";
import { summaryJob } from "./jobs/summaries.ts";
import { importJob, waitingForWriters } from "./jobs/imports.ts";
import { sharedDrainJob, sharedErrorSweepJob, sharedImportJob, sharedMaintenanceJob } from "./jobs/shared-jobs.ts";
import { openSharedHome } from "../app/shared/open-shared.ts";
import { SharedHome } from "../app/shared/shared-home.ts";
import { vectorCallsVia } from "./vector-calls.ts";
import { acquireDaemonLock, lockHolderPid } from "./lock.ts";
import { DaemonLog } from "./log.ts";
import { Scheduler } from "./scheduler.ts";
import { configStamp, newDaemonState, readState } from "./state.ts";
import type { RunWork } from "./work-kinds.ts";
import { Workers } from "./workers.ts";
import { startDaemonHttp, type DaemonHttp } from "../http/daemon-http.ts";
import { jitAsUsual } from "../shared/jit-policy.ts";

/** SIGTERM to exit: the process must be gone within 5 s, so running work gets this long to settle. */
export const SETTLE_MS = 3_500;

/** Of SETTLE_MS, what the HTTP requests under way at a stop get to be answered before they are cut off. */
const HTTP_GRACE_MS = 2_000;

/** How often the daemon checks that its home and lock file are still the ones it started on. */
export const HOME_CHECK_MS = 1_000;

/** Exit code when the home or the lock file was deleted or replaced under the running daemon. */
export const HOME_LOST_EXIT = 1;

/** Another daemon holds the home's daemon lock: its pid (when known) and since when it runs. */
export const DaemonAlreadyRunningError = namedError<{ home: string; pid: number | null; since?: string }>(
  "DaemonAlreadyRunningError",
  "runtime",
  (d) =>
    `a memvoy daemon is already running on ${d.home} (pid ${d.pid ?? "unknown"}${d.since ? `, since ${d.since}` : ""}); stop it with: memvoy daemon stop --home ${d.home}`,
);
export type DaemonAlreadyRunningError = InstanceType<typeof DaemonAlreadyRunningError>;

export interface DaemonOptions {
  home?: string;
  verbose?: boolean;
  version: string;
  env?: Record<string, string | undefined>;
}

function lockHolder(home: string, lockPath: string): DaemonAlreadyRunningError["data"] {
  const s = readState(home);
  const pid = lockHolderPid(lockPath) ?? s?.pid ?? null;
  return s && s.pid === pid ? { home, pid, since: s.startedAt } : { home, pid };
}

function registerJobs(scheduler: Scheduler, api: MaintenanceApi, c: Config, storeDir: string, work: RunWork): void {
  scheduler.addCron(summaryJob(api, c.summary.cron));
  scheduler.addLoop(embedDrainJob(api, work, c.daemon.embed_interval_ms, storeDir));
  scheduler.addCron(errorSweepJob(work, c.daemon.sweep_cron));
  scheduler.addCron(maintenanceJob(api, work, c.daemon.maintenance_cron));
  scheduler.addLoop(indexUpgradeJob(api));
}

/**
 * Shared mode: summaries (one summarizer per session across hosts, by the archive's lease), the drain, the
 * error sweep, live capture (one importer per source across hosts, by a lease) and the shared vectors' upkeep.
 */
function registerSharedJobs(
  scheduler: Scheduler,
  home: SharedHome,
  c: Config,
  log: DaemonLog,
  env: Record<string, string | undefined>,
): void {
  scheduler.addCron(summaryJob(home, c.summary.cron));
  scheduler.addLoop(sharedDrainJob(home, c.daemon.embed_interval_ms));
  scheduler.addCron(sharedErrorSweepJob(home, c.daemon.sweep_cron));
  if (c.import.sources.length > 0) scheduler.addCron(sharedImportJob(home, c.import.cron, c.import.sources, env));
  scheduler.addCron(sharedMaintenanceJob(home, c.daemon.maintenance_cron));
  log.warn("daemon.shared_mode", {
    note: "the archive is shared: the nightly upkeep covers the shared vectors only (PostgreSQL runs its own), and the SQLite index upgrade does not apply",
  });
}

/** Run until a stop signal; resolves with the exit code (0 after a clean stop). */
export async function runDaemon(o: DaemonOptions): Promise<number> {
  const env = o.env ?? process.env;
  const info = inspectConfig(o.home, env);
  checkCronPatterns(info.config, info.path, env);
  const paths = homePaths(info.home);
  makeHomeFolder(paths.home);
  const release = await acquireDaemonLock(paths.daemonLock);
  if (!release) throw new DaemonAlreadyRunningError(lockHolder(paths.home, paths.daemonLock));

  const log = new DaemonLog({
    path: paths.daemonLog,
    maxBytes: info.config.daemon.log_max_bytes,
    verbose: o.verbose,
    env,
  });
  // A home removed (rm -rf) or replaced under the daemon must not be rebuilt by it, nor leave a second daemon
  // free to start while this one runs: stop at once, writing nothing more into the home. Children notice
  // their closed stdin and exit.
  const stopWatching = watchPaths(
    [paths.home, paths.daemonLock],
    (why) => {
      process.stderr.write(`memvoy: ${why}; the daemon stops without writing anything more\n`);
      process.exit(HOME_LOST_EXIT);
    },
    HOME_CHECK_MS,
  );
  const stopping = Promise.withResolvers<string>();
  const onTerm = () => stopping.resolve("SIGTERM");
  const onInt = () => stopping.resolve("SIGINT");
  // A hangup (the terminal or ssh session it was started from closed) stops it cleanly too, instead of killing it.
  const onHup = () => stopping.resolve("SIGHUP");
  const onUnhandled = (err: unknown) => log.error("daemon.unhandled", { error: log.scrub(describeError(err)) });
  process.on("SIGTERM", onTerm);
  process.on("SIGINT", onInt);
  process.on("SIGHUP", onHup);
  process.on("unhandledRejection", onUnhandled);

  let api: HomeMemory | SharedHome;
  try {
    // With an archive URL configured, the daemon serves and drains the shared memory.
    api = info.config.archive.url.trim()
      ? await openSharedHome({ home: paths.home, config: info.config, env })
      : openMemory({ home: paths.home, config: info.config, env, drain: "off", command: "the daemon" });
  } catch (err) {
    log.error("daemon.start_failed", { error: log.scrub(describeError(err)) });
    log.close();
    release();
    // Nothing was started: the home watch and the signal handlers must not keep the process alive (and deaf
    // to SIGTERM) after the error is reported.
    stopWatching();
    process.off("SIGTERM", onTerm);
    process.off("SIGINT", onInt);
    process.off("SIGHUP", onHup);
    process.off("unhandledRejection", onUnhandled);
    throw err;
  }
  const state = newDaemonState(paths.home, o.version);
  state.configStamp = configStamp(info.config);
  const controller = new AbortController();
  const scheduler = new Scheduler(paths.home, state, log, controller.signal);
  // Aborting the controller forwards SIGTERM to every child.
  const workers = new Workers(paths.home, env, log, controller.signal);
  if (api instanceof SharedHome) registerSharedJobs(scheduler, api, info.config, log, env);
  else {
    registerJobs(scheduler, api, info.config, paths.store, (kind) => workers.run(kind));
    // Live capture: the importers write through the home's own API (imported writes, per-file state).
    const imports = info.config.import;
    if (imports.sources.length > 0) {
      const home = api;
      const target = waitingForWriters(home, () => home.writerLockFree());
      scheduler.addCron(importJob(target, imports.cron, imports.sources, env));
    }
  }
  let http: DaemonHttp | undefined;
  if (info.config.http.enabled) {
    try {
      // Shared mode makes them in this process (its vectors are on object storage, not mapped from the home).
      const elsewhere = api instanceof SharedHome ? undefined : vectorCallsVia((c) => workers.run("api", c));
      http = startDaemonHttp(api, info.config, paths, o.version, log, elsewhere);
      state.http = http.url;
    } catch (err) {
      const message = log.scrub(describeError(err));
      log.error("http.start_failed", { error: message });
      state.httpError = message;
      state.lastError = { job: "http", at: new Date().toISOString(), message };
    }
  }
  scheduler.save();
  const schedules = Object.entries(state.jobs)
    .map(([n, j]) => `${n}=${j.schedule}`)
    .join(",");
  log.info("daemon.start", { pid: process.pid, version: o.version, home: paths.home, jobs: schedules });
  jitAsUsual();
  // A misspelled MEMVOY_* setting (in a unit file's Environment=) would otherwise go unnoticed for good.
  for (const problem of ignoredVariables(env)) log.warn("daemon.ignored_variable", { note: problem });
  if (!env.ANTHROPIC_API_KEY)
    log.warn("daemon.no_api_key", {
      note: "summaries fail until ANTHROPIC_API_KEY is set in the daemon's environment",
    });

  const signal = await stopping.promise;
  log.info("daemon.stopping", { signal, running: scheduler.runningJobs().join(",") || "none" });
  state.status = "stopping";
  scheduler.stop();
  // No new requests: those under way are answered (their worker calls too, before the workers are stopped), or,
  // past the grace, cut off (a write is acknowledged only once stored).
  const stopStarted = performance.now();
  await http?.stop(HTTP_GRACE_MS);
  state.http = null;
  controller.abort();
  scheduler.save();
  const settleMs = Math.max(0, SETTLE_MS - (performance.now() - stopStarted));
  const [settled] = await Promise.all([scheduler.settle(settleMs), workers.stop(settleMs)]);
  if (!settled)
    log.warn("daemon.abandon", {
      jobs: scheduler.runningJobs().join(",") || "unknown",
      note: "files are replaced atomically; the work resumes at the next start",
    });
  state.status = "stopped";
  state.stoppedAt = new Date().toISOString();
  for (const j of Object.values(state.jobs)) j.running = false;
  scheduler.save();
  if (settled) await api.close();
  stopWatching();
  log.info("daemon.stop", { signal, uptime_s: Math.round((Date.now() - Date.parse(state.startedAt)) / 1000) });
  log.close();
  release();
  return 0;
}
