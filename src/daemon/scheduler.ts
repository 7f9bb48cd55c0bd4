// Runs the daemon's jobs (croner schedules and continuous loops), records each run in the state file.
import { Cron } from "croner";
import { describeError } from "../shared/describe-error.ts";
import type { DaemonLog } from "./log.ts";
import { newJobState, writeState, type DaemonState, type JobState } from "./state.ts";

const IDLE_SAVE_MS = 60_000;
/** How often a loop job's progress reaches the state file at most (`daemon status` reads it). */
const PROGRESS_SAVE_MS = 1_000;
/** A cron run still going after this long is written to the state file as running. */
const RUNNING_SAVE_MS = 1_000;

export interface JobOutcome {
  /** One line for `daemon status` and the log: what the run did. */
  detail?: string;
  /** Failures in describeError's words: some that did not stop the run (one session of several), or the one that did; the run counts as failed. */
  errors?: string[];
  /** false: an idle run (nothing to do) that is not logged. */
  worked?: boolean;
}

export interface JobContext {
  signal: AbortSignal;
  log: DaemonLog;
}

/** A loop job's context: it also says when it works on something long, and how far it has got. */
export interface LoopContext extends JobContext {
  /** A line for `daemon status` while the job works (it shows as running); null once the work has ended. */
  progress(detail: string | null): void;
}

export interface CronJob {
  name: string;
  pattern: string;
  /** Let a tick start while the previous run is still going (the job guards its own units of work). */
  overlap?: boolean;
  run(ctx: JobContext): Promise<JobOutcome | void>;
}

export interface LoopJob {
  name: string;
  /** What `daemon status` shows as its schedule: "continuous" unless the loop runs once ("at start"). */
  schedule?: "continuous" | "at start";
  /** Runs until ctx.signal aborts; calls report() after each unit of work. */
  loop(ctx: LoopContext, report: (startedAt: Date, outcome: JobOutcome) => void): Promise<void>;
}

export class Scheduler {
  private readonly crons = new Map<string, Cron>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly active = new Map<string, number>();
  private savedAt = 0;

  constructor(
    private readonly home: string,
    private readonly state: DaemonState,
    private readonly log: DaemonLog,
    private readonly signal: AbortSignal,
  ) {}

  private job(name: string): JobState {
    return this.state.jobs[name]!;
  }

  addCron(job: CronJob): void {
    this.state.jobs[job.name] = newJobState(job.pattern.trim());
    const cron = new Cron(job.pattern.trim(), { mode: "5-or-6-parts" }, () => {
      if (this.signal.aborted) return;
      if (!job.overlap && (this.active.get(job.name) ?? 0) > 0) {
        this.log.info("job.skip", { job: job.name, reason: "previous run still going" });
        return;
      }
      this.track(this.execute(job));
    });
    this.crons.set(job.name, cron);
  }

  addLoop(job: LoopJob): void {
    this.state.jobs[job.name] = newJobState(job.schedule ?? "continuous");
    const ctx: LoopContext = { signal: this.signal, log: this.log, progress: (d) => this.progress(job.name, d) };
    const done = job
      .loop(ctx, (startedAt, outcome) => this.record(job.name, startedAt, outcome))
      .catch((err) => {
        this.record(job.name, new Date(), { errors: [describeError(err)] });
        this.log.error("job.crash", { job: job.name, error: this.log.scrub(describeError(err)) });
      });
    this.track(done);
  }

  /** The next time each cron job fires (for the state file and the start line). */
  nextRuns(): Record<string, string | null> {
    const out: Record<string, string | null> = {};
    for (const [name, c] of this.crons) out[name] = c.nextRun()?.toISOString() ?? null;
    return out;
  }

  private track(p: Promise<unknown>): void {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  private async execute(job: CronJob): Promise<void> {
    const startedAt = new Date();
    this.active.set(job.name, (this.active.get(job.name) ?? 0) + 1);
    this.job(job.name).running = true;
    this.job(job.name).runningSince ??= startedAt.toISOString();
    // A run that lasts shows as running in `daemon status`; a quick one (an idle tick) writes nothing.
    let shown = false;
    const show = setTimeout(() => {
      shown = true;
      this.save();
    }, RUNNING_SAVE_MS);
    let outcome: JobOutcome;
    try {
      outcome = (await job.run({ signal: this.signal, log: this.log })) ?? {};
    } catch (err) {
      outcome = { errors: [describeError(err)] };
    } finally {
      clearTimeout(show);
    }
    const left = (this.active.get(job.name) ?? 1) - 1;
    this.active.set(job.name, left);
    this.job(job.name).running = left > 0;
    if (left === 0) this.job(job.name).runningSince = null;
    const saved = this.savedAt;
    this.record(job.name, startedAt, outcome);
    // An idle run is not saved, but the file must not go on saying it runs.
    if (shown && this.savedAt === saved) this.save();
  }

  /** A loop job's progress: running with that line, or no longer (saved at once); a new line at most once a second. */
  private progress(name: string, detail: string | null): void {
    const j = this.job(name);
    const changed = j.running !== (detail !== null);
    j.running = detail !== null;
    j.progress = detail;
    j.runningSince = detail === null ? null : (j.runningSince ?? new Date().toISOString());
    if (changed || Date.now() - this.savedAt >= PROGRESS_SAVE_MS) this.save();
  }

  /** Record one run of a job: state file, and a log line unless it was idle. */
  record(name: string, startedAt: Date, outcome: JobOutcome): void {
    const j = this.job(name);
    const ms = Date.now() - startedAt.getTime();
    j.lastRun = startedAt.toISOString();
    j.lastDurationMs = ms;
    j.runs++;
    const failure = outcome.errors?.length ? outcome.errors.join("; ") : undefined;
    const detail = outcome.detail ?? null;
    j.lastDetail = detail;
    if (failure !== undefined) {
      const message = this.log.scrub(failure).slice(0, 500);
      j.lastResult = "error";
      j.failures++;
      j.lastError = { at: new Date().toISOString(), message };
      this.state.lastError = { job: name, at: j.lastError.at, message };
      this.log.error("job.fail", { job: name, ms, detail: detail ?? undefined, error: message });
    } else {
      const recovered = j.lastResult === "error";
      j.lastResult = "ok";
      if (outcome.worked === false && !recovered) {
        // Idle runs (a drain with nothing queued, a tick with nothing due) touch the disk at most once a minute.
        if (Date.now() - this.savedAt >= IDLE_SAVE_MS) this.save();
        return;
      }
      this.log.info("job.done", { job: name, ms, detail: detail ?? undefined });
    }
    this.save();
  }

  save(): void {
    this.savedAt = Date.now();
    try {
      writeState(this.home, this.state);
    } catch (err) {
      this.log.warn("state.write_failed", { error: describeError(err) });
    }
  }

  /** Stop every schedule: no new run starts. */
  stop(): void {
    for (const c of this.crons.values()) c.stop();
  }

  /** Wait for running work to settle; false when the deadline passed first. */
  async settle(deadlineMs: number): Promise<boolean> {
    const until = performance.now() + deadlineMs;
    while (this.inFlight.size > 0) {
      const left = until - performance.now();
      if (left <= 0) return false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([Promise.allSettled([...this.inFlight]), new Promise((r) => (timer = setTimeout(r, left)))]);
      clearTimeout(timer);
    }
    return true;
  }

  runningJobs(): string[] {
    return Object.entries(this.state.jobs)
      .filter(([, j]) => j.running)
      .map(([n]) => n);
  }
}
